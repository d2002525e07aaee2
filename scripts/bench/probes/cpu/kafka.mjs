// cpu.mjs kafka: e2e in Kafka mode, a core and one worker on the test broker
// (scripts/kafka/kafka.sh); CPU per callback of each process, of their threads and of the broker's
// threads by kind.
import { freePort, setupCompanies, sleep, startDaemon, testBroker } from '../../suite/lib.mjs';
import { byTid, cpuMsOf, mainThread, perThread, threadName, us } from '../../suite/proc-stats.mjs';
import { COMPANIES, deliveredRun } from './shared.mjs';

/** `kafka [seconds=8]`: max-rate signed callbacks to the core, delivered by the worker. */
export async function kafka({ amount, dir, cpuProf, root, receiver }) {
  const broker = testBroker();
  if (broker.run('start').status !== 0)
    throw new Error('the Kafka test broker could not be started (scripts/kafka/kafka.sh start)');
  const brokerPid = broker.pid();
  const env = { GATEWAY_KAFKA_BROKERS: broker.brokers, GATEWAY_KAFKA_NAMESPACE: `cpu-${process.pid}-${Date.now()}.` };
  let core;
  let worker;
  try {
    core = await startDaemon({
      name: 'cpu-kafka-core',
      dataDir: dir,
      port: await freePort(),
      role: 'core',
      env,
      cpuProf,
      root,
    });
    worker = await startDaemon({
      name: 'cpu-kafka-worker',
      dataDir: dir,
      role: 'worker',
      env,
      cpuProf,
      root,
    });
    const companies = await setupCompanies(core.base, receiver.url, COMPANIES);
    await receiver.useCompanies(companies);
    await sleep(2_000);
    await receiver.reset();
    const pids = {
      core: core.pid,
      worker: worker.pid,
      broker: brokerPid,
      receiver: receiver.pid,
      'load generator': process.pid,
    };
    const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMsOf(pid)]));
    const [c0, cb0, wb0, bb0] = [mainThread(core.pid), byTid(core.pid), byTid(worker.pid), byTid(brokerPid)];
    const { result, status, n, elapsed, eventsPerSecond } = await deliveredRun(
      receiver,
      core.base,
      companies,
      Number(amount ?? 8),
    );
    console.log(
      `kafka: ${n} callbacks (${result.rps.toFixed(0)}/s answered), ${status.hooks} events delivered in ${elapsed.toFixed(1)} s = ${eventsPerSecond.toFixed(0)} events/s`,
    );
    console.log(
      `CPU per callback (with its events): ${Object.entries(pids)
        .map(([name, pid]) => `${name} ${us(cpuMsOf(pid) - before[name], n)}`)
        .join(', ')}; core event loop ${us(mainThread(core.pid) - c0, n)}`,
    );
    console.log(`by thread id: core ${perThread(core.pid, cb0, n)}; worker ${perThread(worker.pid, wb0, n)}`);
    // The broker's JVM threads by kind (name without its number): request handlers, GC, JIT compilers...
    const kinds = new Map();
    for (const [tid, ms] of byTid(brokerPid)) {
      const kind = threadName(brokerPid, tid).replace(/[-#\s]*\d+$/, '');
      kinds.set(kind, (kinds.get(kind) ?? 0) + ms - (bb0.get(tid) ?? 0));
    }
    console.log(
      `broker threads by kind: ${[...kinds]
        .filter(([, ms]) => ms > 0)
        .sort((a, b) => b[1] - a[1])
        .map(([kind, ms]) => `${kind} ${us(ms, n)}`)
        .join(', ')}`,
    );
  } finally {
    await worker?.stop();
    await core?.stop();
    broker.run('release');
  }
}
