// What the modes of cpu.mjs share: the number of companies the load spreads over, a max-rate run
// timed to its last delivered event, and the span count of a traced run.
import { sleep } from '../../suite/lib.mjs';
import { maxRate, waitArrivals } from '../../suite/load.mjs';

/** Companies (or a floor's channels) the load spreads over, as in the bench's scenarios. */
export const COMPANIES = 32;

/**
 * Max-rate callbacks to `base` for `seconds`, then waits until the event of every accepted one
 * arrived at `receiver`, verified: events/s from the first send to the last arrival.
 */
export async function deliveredRun(receiver, base, companies, seconds) {
  const start = performance.timeOrigin + performance.now();
  const result = await maxRate({ base, companies, seconds });
  const state = await waitArrivals(receiver, result.accepted, 120_000);
  if (state.missing > 0 || state.bad > 0)
    throw new Error(`${state.missing} events missing, ${state.bad} bad signatures`);
  const status = await receiver.status();
  const elapsed = (status.lastArrival - start) / 1000;
  return { result, status, n: result.accepted.length, elapsed, eventsPerSecond: status.hooks / elapsed };
}

/**
 * The spans of a traced run (BENCH_TRACING) at `tracing`, the OTLP sink: the batch processor
 * exports every 5 s, so they are counted once two reads 6 s apart agree.
 */
export async function reportSpans(tracing, before, n, sinkCpu) {
  let last = -1;
  let spans = (await tracing.status()).spans;
  while (spans !== last) {
    last = spans;
    await sleep(6_000);
    spans = (await tracing.status()).spans;
  }
  console.log(
    `tracing (${process.env.BENCH_TRACING}, 100 % sampled): ${spans - before} spans received = ${((spans - before) / n).toFixed(1)} per callback; OTLP receiver ${sinkCpu} per callback`,
  );
}
