// Scenario 6 of bench.mjs, Kafka mode on the test broker: a core and one worker end to end in turn
// with an embedded daemon (their ratio is the target), then the pair alone at a fixed rate.
import { alternateEndToEnd } from './alternate.mjs';
import { setupCompanies, testBroker } from './lib.mjs';
import { fixedRateOf } from './runs.mjs';

/**
 * Runs scenario 6. `daemon(name, options)` starts a built daemon on a data dir of the run; `rounds`
 * are the alternating rounds (alternate.mjs); `runs` is benchRuns' (runs.mjs); `companies` is how
 * many companies each contestant serves.
 */
export async function kafkaScenario({ daemon, receiver, row, P, rounds, runs, companies: count }) {
  const { checkLoad, fixedRun, e2eContestant, e2eRows } = runs;
  const broker = testBroker();
  if (broker.run('start').status !== 0)
    throw new Error('the Kafka test broker could not be started (scripts/kafka/kafka.sh start)');
  const env = { GATEWAY_KAFKA_BROKERS: broker.brokers, GATEWAY_KAFKA_NAMESPACE: `bench-${process.pid}-${Date.now()}.` };
  let core;
  let worker;
  let embedded;
  try {
    core = await daemon('s6-core', { role: 'core', env, dir: 's6-kafka' });
    worker = await daemon('s6-worker', { role: 'worker', env, dir: 's6-kafka' });
    embedded = await daemon('s6-embedded');
    const companies = await setupCompanies(core.base, receiver.url, count);
    const embeddedCompanies = await setupCompanies(embedded.base, receiver.url, count, 1, count);
    // Kafka's warm-up is longer: the broker is a fresh JVM here, whose JIT compilers take about half
    // its CPU in its first minute under load (cpu.mjs kafka prints its threads); a broker in service is warm.
    const contestants = [
      e2eContestant('Kafka', core, [core.pid, worker.pid], companies, P.warmKafka),
      e2eContestant('embedded', embedded, [embedded.pid], embeddedCompanies),
    ];
    const webhookCompanies = [...companies, ...embeddedCompanies];
    const [kafkaE2e, embeddedE2e] = await alternateEndToEnd(contestants, {
      receiver,
      webhookCompanies,
      ...rounds,
      drainMs: P.drainMs,
      checkLoad,
    });
    await receiver.useCompanies(companies);
    await embedded.stop();
    embedded = undefined;
    e2eRows('6 Kafka end to end', kafkaE2e);
    e2eRows('6 embedded end to end, in turn with it', embeddedE2e);
    const ratio = kafkaE2e.eventsPerSecond / embeddedE2e.eventsPerSecond;
    row('6 Kafka end to end', '  ratio to embedded end to end (in turn)', kafkaE2e.eventsPerSecond, {
      baseline: embeddedE2e.eventsPerSecond,
      ratio,
      target: '≥ 0.75',
      ok: ratio >= 0.75,
    });
    row(
      '6 Kafka end to end',
      '  ratio round by round',
      kafkaE2e.rounds.map((events, i) => (events / embeddedE2e.rounds[i]).toFixed(2)).join(' '),
    );
    await fixedRun(
      '6 Kafka fixed rate',
      core,
      companies,
      [core.pid, worker.pid],
      P.fixedKafka,
      150,
      null,
      fixedRateOf({ delivered: kafkaE2e.callbacksPerSecond }),
    );
  } finally {
    await embedded?.stop();
    await worker?.stop();
    await core?.stop();
    broker.run('release');
  }
}
