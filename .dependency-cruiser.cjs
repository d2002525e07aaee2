/**
 * The layer order of src/ (docs/architecture.md), enforced by `npm run check:imports` inside
 * `npm test`. Each layer imports only the layers below it; type-only imports count too.
 */
const LAYERS = [
  ['foundation', '^(src/(config|errors|lib|tracing)/|src/log\\.ts$|schemas/)'],
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

/** Parts of one layer that stand side by side and never import each other. */
const SIDE_BY_SIDE = [
  ['stages', '^src/(ingest|outbox|dispatch|connectors)/'],
  ['faces', '^src/(api|admin|callbacks|openapi|console|portal|front)/'],
];

const upward = LAYERS.flatMap(([name, from], index) =>
  LAYERS.slice(index + 1).map(([upper, to]) => ({
    name: `${name}-not-to-${upper}`,
    comment: `${name} is below ${upper}: it may not import it (docs/architecture.md).`,
    severity: 'error',
    from: { path: from },
    to: { path: to },
  })),
);

const sideways = SIDE_BY_SIDE.map(([name, parts]) => ({
  name: `${name}-apart`,
  comment: `The ${name} share what they need through the layers below, never by importing each other.`,
  severity: 'error',
  from: { path: parts },
  to: { path: parts, pathNot: '^src/$1/' },
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
