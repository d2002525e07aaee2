// Summarises a V8 .cpuprofile (node --cpu-prof): self time per function and per file, top first.
// Usage: node scripts/bench/probes/profile-summary.mjs <file.cpuprofile> [top=30]
import fs from 'node:fs';

const [file, topText = '30'] = process.argv.slice(2);
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const top = Number(topText);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i += 1) {
  const node = byId.get(profile.samples[i]);
  self.set(node.id, (self.get(node.id) ?? 0) + (dt[i] ?? 0));
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const fnTotals = new Map();
const fileTotals = new Map();
for (const [id, us] of self) {
  const { callFrame } = byId.get(id);
  const where = callFrame.url.replace(/^file:\/\/.*?\/(node_modules|dist|src)\//, '$1/') || '(native)';
  const fn = `${callFrame.functionName || '(anonymous)'} ${where}:${callFrame.lineNumber + 1}`;
  fnTotals.set(fn, (fnTotals.get(fn) ?? 0) + us);
  const pkg = where.startsWith('node_modules/')
    ? where
        .split('/')
        .slice(0, where.startsWith('node_modules/@') ? 3 : 2)
        .join('/')
    : where.startsWith('node:')
      ? 'node:*'
      : where;
  fileTotals.set(pkg, (fileTotals.get(pkg) ?? 0) + us);
}
const show = (title, map) => {
  console.log(`\n${title} (total ${(total / 1e6).toFixed(2)} s sampled)`);
  for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${name}`);
};
show('self time by function', fnTotals);
show('self time by file or package', fileTotals);
