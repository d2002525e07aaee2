/**
 * The layer order of src/ (docs/architecture.md), enforced by `npm run check:imports` inside
 * `npm test`. Each layer imports only the layers below it; type-only imports count too.
 */
const LAYERS = [
  ['foundation', '^(src/(config|errors|lib|net|tracing)/|src/log\\.ts$|schemas/)'],
  ['store', '^src/store/'],
  ['streams', '^src/streams/'],
  ['metrics', '^src/metrics/'],
  ['presenters', '^src/presenters/'],
  ['domain', '^src/domain/'],
  ['workers', '^src/workers/'],
  ['stages', '^src/(ingest|outbox|dispatch|connectors)/'],
  ['http', '^src/http/'],
  ['faces', '^src/(api|admin|callbacks|openapi|console|portal|front)/'],
  ['roles', '^src/roles/'],
  ['cli', '^src/cli/'],
];

/** Parts of one layer that stand side by side and never import each other: [name, folder, parts]. */
const SIDE_BY_SIDE = [
  ['stages', 'src/', 'ingest|outbox|dispatch|connectors'],
  ['faces', 'src/', 'api|admin|callbacks|openapi|console|portal|front'],
  ['store-deliveries-and-pipeline', 'src/store/', 'deliveries|pipeline'],
  ['stream-implementations', 'src/streams/', 'kafka|sqlite'],
];

/**
 * The rooms of the store, bottom to top: the engine (the database, migrations, group commit,
 * checkpoints, pruning) below the tables of the resources, those below the deliveries and the
 * pipeline's tables (outbox, stream log), and `store.ts`, which holds them all, on top.
 */
const STORE_LAYERS = [
  ['store-engine', '^src/store/engine/'],
  ['store-resources', '^src/store/resources/'],
  ['store-deliveries-and-pipeline', '^src/store/(deliveries|pipeline)/'],
  ['store-top', '^src/store/[^/]+\\.ts$'],
];

/**
 * The streams: the interface, the catalog and the pieces both implementations share at the top of
 * src/streams/, below the two implementations, which never import each other.
 */
const STREAMS_LAYERS = [
  ['streams-contract', '^src/streams/[^/]+\\.ts$'],
  ['streams-implementations', '^src/streams/(kafka|sqlite)/'],
];

const upwardIn = (layers, what) =>
  layers.flatMap(([name, from], index) =>
    layers.slice(index + 1).map(([upper, to]) => ({
      name: `${name}-not-to-${upper}`,
      comment: `${name} is below ${upper} ${what}: it may not import it (docs/architecture.md).`,
      severity: 'error',
      from: { path: from },
      to: { path: to },
    })),
  );

const upward = [
  ...upwardIn(LAYERS, 'in src/'),
  ...upwardIn(STORE_LAYERS, 'in the store'),
  ...upwardIn(STREAMS_LAYERS, 'in the streams'),
];

const sideways = SIDE_BY_SIDE.map(([name, folder, parts]) => ({
  name: `${name}-apart`,
  comment: `The ${name} share what they need through the layers below, never by importing each other.`,
  severity: 'error',
  from: { path: `^${folder}(${parts})/` },
  to: { path: `^${folder}(${parts})/`, pathNot: `^${folder}$1/` },
}));

module.exports = {
  forbidden: [
    ...upward,
    ...sideways,
    {
      name: 'no-circular',
      comment: 'A cycle of imports hides which module depends on which.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-tests',
      comment: 'Production code never imports a test or a test helper.',
      severity: 'error',
      from: { path: '^(src|schemas)/', pathNot: '\\.test\\.ts$' },
      to: { path: '(\\.test\\.ts$|^test/)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
