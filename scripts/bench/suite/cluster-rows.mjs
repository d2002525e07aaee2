// The rows of bench scenario 9's CPU rounds (cluster.mjs): per contestant, the CPU per callback of
// each of its processes, their idle CPU, the receiver's and the load generator's, the latencies and
// the rounds' length; then the cluster's ratio to the single core at the same rate (the target) and
// at one shard's rate, and the single core's at the two rates.
import { percentile } from './lib.mjs';
import { percents } from './proc-stats.mjs';

/** "180 / 160": µs per callback of each process, for a row that names them. */
function perCallback(cpuMs, callbacks) {
  return Object.values(cpuMs)
    .map((ms) => ((ms * 1000) / callbacks).toFixed(0))
    .join(' / ');
}

/**
 * The rows of the CPU rounds. Besides the CPU per callback, its share beyond the fixed costs: each
 * process's idle CPU a second times the rounds' seconds, taken off. The rounds last longer than
 * their load (the wait for the last webhook and an idle pipeline), and longer still on a busy host,
 * so at a low rate the fixed costs weigh on the ratio; the rest is what each callback costs.
 */
export function cpuRows(row, contestants, tallies, idle, { rate, seconds, machine, target, shards }) {
  const label = '9 cluster';
  const sum = (values) => values.reduce((a, b) => a + b, 0);
  const total = (t) => (sum(Object.values(t.cpuMs)) * 1000) / t.callbacks;
  const beyondIdle = (t, i) =>
    ((sum(Object.values(t.cpuMs)) - sum(Object.values(idle[i])) * t.seconds) * 1000) / t.callbacks;
  const [one, two, half] = tallies;
  const ratio = total(two) / total(one);
  row(label, 'rate asked (callbacks/s), each contestant in turn', contestants.map((c) => c.rate).join(' / '));
  row(label, 'machine CPU busy / idle / stolen (%), all rounds', percents(machine));
  contestants.forEach((c, i) => {
    const t = tallies[i];
    const names = Object.keys(t.cpuMs).join(' / ');
    row(label, `${c.name}: CPU per callback, ${names} (µs)`, perCallback(t.cpuMs, t.callbacks));
    row(
      label,
      `${c.name}: idle CPU, ${names} (ms/s; µs per callback at this rate: ×${(1000 / c.rate).toFixed(1)})`,
      Object.values(idle[i])
        .map((ms) => ms.toFixed(1))
        .join(' / '),
    );
    row(
      label,
      `${c.name}: CPU per callback, receiver / load generator (µs)`,
      `${((t.receiverMs * 1000) / t.callbacks).toFixed(0)} / ${((t.loadMs * 1000) / t.callbacks).toFixed(0)}`,
    );
    const p = (q) =>
      percentile(
        t.latencies.sort((a, b) => a - b),
        q,
      ).toFixed(1);
    row(label, `${c.name}: callback→webhook p50 / p99 (ms)`, `${p(50)} / ${p(99)}`);
    row(
      label,
      `${c.name}: seconds per round, from the first callback to an idle pipeline (the load: ${seconds} s)`,
      t.seconds / t.rounds.length,
    );
  });
  row(
    label,
    `CPU per callback, every process of the cluster (µs; baseline: the single core and its worker at ${rate}/s)`,
    total(two),
    {
      baseline: total(one),
      ratio,
      target: `≤ ${target}`,
      ok: ratio <= target,
    },
  );
  row(label, '  ratio round by round', two.rounds.map((us, i) => (us / one.rounds[i]).toFixed(2)).join(' '));
  row(label, "CPU per callback beyond the processes' idle CPU (µs; baseline: the single core)", beyondIdle(two, 1), {
    baseline: beyondIdle(one, 0),
    ratio: beyondIdle(two, 1) / beyondIdle(one, 0),
  });
  row(
    label,
    `CPU per callback, every process of the cluster (µs; baseline: the single core at one shard's rate, ${rate / shards}/s)`,
    total(two),
    { baseline: total(half), ratio: total(two) / total(half) },
  );
  row(label, '  ratio round by round', two.rounds.map((us, i) => (us / half.rounds[i]).toFixed(2)).join(' '));
  row(
    label,
    `the single core at ${rate / shards}/s against itself at ${rate}/s, CPU per callback (µs): what the lower rate costs on this host`,
    total(half),
    { baseline: total(one), ratio: total(half) / total(one) },
  );
}
