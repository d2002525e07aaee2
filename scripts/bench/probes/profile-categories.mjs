// Where a daemon's (or a floor's) CPU went per unit of work, by part of the job: each sample of a
// V8 .cpuprofile is charged to the first frame, from the leaf up, that names a part (the store's
// statements, validation, the request line, ...). Two profiles side by side (the gateway's and the
// complete floor's) show which parts cost more than the job needs. Startup (module loading,
// compiling schemas) is charged to its own line: divide by the units of the whole profile.
//
//   node scripts/bench/probes/profile-categories.mjs <file.cpuprofile>:<units> [<file.cpuprofile>:<units> ...]
//
// <units>: the callbacks (or requests) the process handled while profiled, warm-up included.
import fs from 'node:fs';

/** Work of the process's start, wherever in a sample's stack (module loading, schemas compiled). */
const STARTUP = /^(evaluate|Module\._load|compile|compileSchema|wrapSafe) /;

/** Parts of the job, tried in order against `<function> <url>` of each frame from the leaf up. */
const PARTS = [
  ['log line', /^(LOG|write) .*pino|sonic-boom/],
  ['metrics', /prom-client|metrics\/metrics/],
  ['validation', /ajv|validate\.js|^validate\d+ /],
  ['JSON parse', /^(parseJson|deeperThan|nestedDeeperThan|mayNestDeeperThan) /],
  ['verification', /verify|digest|timingSafe|matchesSecret/],
  ['presenters', /presenters\//],
  ['outbox append', /^append .*outbox|writeEvent|appendEvent|^event .*floor/],
  ['message dedup and insert', /insertOnce|findByChannelExternalId/],
  ['conversation', /conversations\.js/],
  ['contact', /contacts\.js/],
  ['rest of the store unit', /^(storeIncoming|store) /],
  ['outbox relay and fan-out', /outbox\/(relay|fan-out)/],
  ['attempt records', /attempt-recorder|deliveries\.js/],
  ['COMMIT (group commit itself)', /^flush /],
  ['answer (Koa respond, socket write)', /^(respond|handleResponse) /],
  ['raw body', /raw-body|readRawBody|body-reader/],
  ['HTTP parse, Koa, middleware', /parserOn|handleRequest|koa|router/],
  ['garbage collector', /garbage collector/],
];

for (const arg of process.argv.slice(2)) {
  const at = arg.lastIndexOf(':');
  const [file, units] = [arg.slice(0, at), Number(arg.slice(at + 1))];
  if (!(units > 0)) throw new Error(`${arg}: give <file.cpuprofile>:<units>`);
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const spent = new Map();
  let busy = 0;
  profile.samples.forEach((leaf, index) => {
    const us = profile.timeDeltas[index] ?? 0;
    if (byId.get(leaf).callFrame.functionName === '(idle)') return;
    busy += us;
    const frames = [];
    for (let id = leaf; id !== undefined; id = parentOf.get(id)) {
      const { functionName, url } = byId.get(id).callFrame;
      frames.push(`${functionName || '(anonymous)'} ${url}`);
    }
    let part = frames.some((frame) => STARTUP.test(frame)) ? 'startup' : 'other';
    for (const frame of frames) {
      if (part !== 'other') break;
      part = PARTS.find(([, pattern]) => pattern.test(frame))?.[0] ?? 'other';
    }
    spent.set(part, (spent.get(part) ?? 0) + us);
  });
  console.log(`\n${file}: ${(busy / units).toFixed(0)} µs busy per unit (${units} units)`);
  for (const [part, us] of [...spent].sort((a, b) => b[1] - a[1]))
    console.log(`${(us / units).toFixed(1).padStart(7)} µs  ${part}`);
}
