// What the benchmark reads from Linux's /proc: a process's RSS and CPU time, a thread's CPU time,
// and the machine's busy, idle and stolen shares.
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';

/** Resident set size of a process in bytes (Linux /proc), or null once it is gone. */
export function rssOf(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** A /proc stat file (a process's or a thread's): its name and the CPU ms it used (utime + stime, 100 ticks a second). */
export function statCpu(file) {
  const raw = fs.readFileSync(file, 'utf8');
  const fields = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
  return {
    name: raw.slice(raw.indexOf('(') + 1, raw.lastIndexOf(')')),
    ms: (Number(fields[11]) + Number(fields[12])) * 10,
  };
}

/** CPU ms a process has used, all its threads. */
export function cpuMsOf(pid) {
  return statCpu(`/proc/${pid}/stat`).ms;
}

/**
 * CPU ms a process and its descendants have used (a broker started by a script: RabbitMQ's Erlang
 * VM under rabbitmq-server), the live ones: a child that ended took its CPU along.
 */
export function treeCpuMs(pid) {
  let ms = 0;
  const pending = [pid];
  while (pending.length > 0) {
    const next = pending.pop();
    try {
      ms += cpuMsOf(next);
      for (const task of fs.readdirSync(`/proc/${next}/task`))
        pending.push(
          ...fs.readFileSync(`/proc/${next}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
        );
    } catch {
      // it ended between the reads: its CPU is gone with it
    }
  }
  return ms;
}

/** busy / idle / stolen percentages of a sampleMachine share, for a table or a log line. */
export const percents = ({ busy, idle, steal }) => `${busy.toFixed(0)} / ${idle.toFixed(0)} / ${steal.toFixed(0)}`;

/** The machine's CPU ticks so far (Linux /proc/stat, all CPUs): busy, idle (with I/O wait) and steal. */
function machineTicks() {
  const [, user, nice, system, idle, iowait, irq, softirq, steal] = fs
    .readFileSync('/proc/stat', 'utf8')
    .split('\n', 1)[0]
    .trim()
    .split(/\s+/)
    .map(Number);
  return { busy: user + nice + system + irq + softirq, idle: idle + iowait, steal };
}

/**
 * Samples the machine's CPU every `everyMs`: stop() answers the percentages of each interval that
 * were busy, idle and stolen (the hypervisor running someone else while this machine had work).
 */
export function sampleMachine(everyMs = 1_000) {
  const intervals = [];
  let last = machineTicks();
  const share = (from, to) => {
    const total = to.busy + to.idle + to.steal - (from.busy + from.idle + from.steal) || 1;
    return {
      busy: (100 * (to.busy - from.busy)) / total,
      idle: (100 * (to.idle - from.idle)) / total,
      steal: (100 * (to.steal - from.steal)) / total,
    };
  };
  const first = last;
  const timer = setInterval(() => {
    const now = machineTicks();
    intervals.push(share(last, now));
    last = now;
  }, everyMs);
  return { stop: () => (clearInterval(timer), { intervals, whole: share(first, machineTicks()) }) };
}

/**
 * Samples the RSS of the given pids now, every `everyMs` and when stopped, so a phase shorter than
 * `everyMs` still has its first and last; stop() answers the samples [{t, rss}] per pid.
 */
export function sampleRss(pids, everyMs = 200) {
  const samples = Object.fromEntries(pids.map((pid) => [pid, []]));
  const start = performance.now();
  const sample = () => {
    for (const pid of pids) {
      const rss = rssOf(pid);
      if (rss !== null) samples[pid].push({ t: performance.now() - start, rss });
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return { stop: () => (clearInterval(timer), sample(), samples) };
}

/**
 * RSS samples of one process (sampleRss) as the memory targets read them, in MB: the peak of all of
 * them, and the means of the first and the last third of `steady` (the phase compared). Each window
 * is a third of the phase: V8 collects the old generation every 30-60 s at the bench's rates, and
 * RSS rises by up to 80 MB of garbage in between (BENCHMARKS.md, "Memory"), so shorter windows
 * compare the phases of that cycle, not growth.
 */
export function rssThirds(samples, steady = samples) {
  const mean = (xs) => xs.reduce((a, s) => a + s.rss, 0) / xs.length / 1024 / 1024;
  const window = Math.max(1, Math.round(steady.length / 3));
  return {
    peak: samples.reduce((max, s) => Math.max(max, s.rss), 0) / 1024 / 1024,
    first: mean(steady.slice(0, window)),
    last: mean(steady.slice(-window)),
  };
}

/** CPU ms per thread of a process (name, ms), the busiest first. */
export function threads(pid) {
  return fs
    .readdirSync(`/proc/${pid}/task`)
    .map((task) => statCpu(`/proc/${pid}/task/${task}/stat`))
    .sort((a, b) => b.ms - a.ms);
}

/** CPU ms per thread id of a process. */
export function byTid(pid) {
  return new Map(
    fs.readdirSync(`/proc/${pid}/task`).map((task) => [Number(task), statCpu(`/proc/${pid}/task/${task}/stat`).ms]),
  );
}

export function threadName(pid, tid) {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
  } catch {
    return 'ended';
  }
}

/**
 * CPU per unit of each thread that worked since `before`, in creation order (thread id): the event
 * loop first, then V8's platform threads (GC helpers), then threads started later, such as the
 * webhook poster thread (started on the first attempt).
 */
export function perThread(pid, before, n) {
  const after = byTid(pid);
  return [...after]
    .sort((a, b) => a[0] - b[0])
    .map(([tid, ms]) => [tid, ms - (before.get(tid) ?? 0)])
    .filter(([, ms]) => ms > 0)
    .map(([tid, ms]) => `${tid === pid ? 'main' : `${tid} (${threadName(pid, tid)})`} ${us(ms, n)}`)
    .join(', ');
}

/** The event loop's CPU ms: the process's first task (its thread id is the pid). */
export function mainThread(pid) {
  return statCpu(`/proc/${pid}/task/${pid}/stat`).ms;
}

/** CPU ms over `n` units, in µs per unit, for a log line. */
export function us(ms, n) {
  return `${((ms / n) * 1000).toFixed(0)} µs`;
}
