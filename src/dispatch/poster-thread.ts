// A webhook poster thread (src/dispatch/webhook-poster.ts, ThreadedPoster): signs and sends the
// attempts the event loop hands it, with its own pooled client and SSRF guard.
import { parentPort, workerData } from 'node:worker_threads';
import { WebhookHttpClient } from './http-client.js';
import { SsrfGuard } from '../net/ssrf.js';
import { BrokerDestinations } from './destinations/pool.js';
import { InlinePoster, type PosterAnswer, type PosterMessage, type PosterThreadData } from './webhook-poster.js';

const { allowHosts } = workerData as PosterThreadData;
const guard = new SsrfGuard(allowHosts);
const poster = new InlinePoster(new WebhookHttpClient(guard), new BrokerDestinations(guard));
const port = parentPort!;

/** Answers of this turn, posted together once it ends (see PosterRequest). */
let answers: PosterAnswer[] = [];

function answer(reply: PosterAnswer): void {
  if (answers.push(reply) === 1) setImmediate(flush);
}

function flush(): void {
  const batch = answers;
  answers = [];
  port.postMessage(batch);
}

port.on('message', (message: PosterMessage) => {
  if (message === 'cancel-queued') {
    poster.cancelQueued();
    return;
  }
  // Attempts of one order key are sent one after the other here, each as soon as the last was answered.
  for (const { n, request } of message) {
    poster.post(request).then(
      (outcome) => answer({ n, outcome }),
      (error: unknown) => answer({ n, error: error instanceof Error ? error.message : String(error) }),
    );
  }
});
