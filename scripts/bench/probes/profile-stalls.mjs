// Where the event loop was busy without a break: finds the runs of a .cpuprofile (node --cpu-prof)
// during which the thread was never idle for `min` ms or more (what makes a latency tail), and shows
// what filled them: the first frame of our own code (dist/) under each sample, and the self time.
// Usage: node scripts/bench/probes/profile-stalls.mjs <file.cpuprofile> [min ms=20] [top=12]
import fs from 'node:fs';

const [file, minText = '20', topText = '12'] = process.argv.slice(2);
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const minUs = Number(minText) * 1000;
const top = Number(topText);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const name = (node) => {
  const where = node.callFrame.url.replace(/^file:\/\/.*?\/(node_modules|dist|src)\//, '$1/') || '(native)';
  return `${node.callFrame.functionName || '(anonymous)'} ${where}:${node.callFrame.lineNumber + 1}`;
};
/** The outermost frame of our code (dist/src) on the sample's stack, else its outermost frame below the root. */
const entryCache = new Map();
function entry(id) {
  if (entryCache.has(id)) return entryCache.get(id);
  const stack = [];
  for (let at = id; at !== undefined; at = parent.get(at)) stack.push(byId.get(at));
  stack.reverse(); // root first
  const ours = stack.find((n) => n.callFrame.url.includes('/dist/src/'));
  const result = ours ? name(ours) : stack[1] ? name(stack[1]) : '(root)';
  entryCache.set(id, result);
  return result;
}

const runs = [];
let run = null;
const dt = profile.timeDeltas;
let t = profile.startTime;
for (let i = 0; i < profile.samples.length; i += 1) {
  t += dt[i] ?? 0;
  const node = byId.get(profile.samples[i]);
  const idle = node.callFrame.functionName === '(idle)';
  if (idle) {
    if (run !== null && run.us >= minUs) runs.push(run);
    run = null;
    continue;
  }
  const us = dt[i + 1] ?? 0;
  run ??= { start: t, us: 0, entries: new Map(), self: new Map() };
  run.us += us;
  const e = entry(node.id);
  run.entries.set(e, (run.entries.get(e) ?? 0) + us);
  const s = name(node);
  run.self.set(s, (run.self.get(s) ?? 0) + us);
}
if (run !== null && run.us >= minUs) runs.push(run);

const total = (profile.endTime - profile.startTime) / 1000;
const busy = runs.reduce((a, r) => a + r.us, 0) / 1000;
console.log(
  `${runs.length} busy runs of ${minText} ms or more in ${(total / 1000).toFixed(1)} s; ${busy.toFixed(0)} ms in them; longest ${(Math.max(0, ...runs.map((r) => r.us)) / 1000).toFixed(1)} ms`,
);
for (const limit of [20, 50, 100, 200])
  console.log(`  ≥ ${limit} ms: ${runs.filter((r) => r.us >= limit * 1000).length}`);
const sum = (key) => {
  const all = new Map();
  for (const r of runs) for (const [k, us] of r[key]) all.set(k, (all.get(k) ?? 0) + us);
  return [...all].sort((a, b) => b[1] - a[1]).slice(0, top);
};
console.log('\nin those runs, by entry into our code:');
for (const [k, us] of sum('entries')) console.log(`${((100 * us) / (busy * 1000)).toFixed(1).padStart(5)}%  ${k}`);
console.log('\nin those runs, self time:');
for (const [k, us] of sum('self')) console.log(`${((100 * us) / (busy * 1000)).toFixed(1).padStart(5)}%  ${k}`);
console.log('\nthe 5 longest (ms from the profile start: length, top entries):');
for (const r of [...runs].sort((a, b) => b.us - a.us).slice(0, 5)) {
  const entries = [...r.entries]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([k, us]) => `${k} ${(us / 1000).toFixed(1)}`)
    .join('; ');
  console.log(`  at ${((r.start - profile.startTime) / 1000).toFixed(0)}: ${(r.us / 1000).toFixed(1)} ms — ${entries}`);
}
