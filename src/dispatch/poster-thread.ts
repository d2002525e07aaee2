// A webhook poster thread (src/dispatch/webhook-poster.ts, ThreadedPoster): signs and sends the
// attempts the event loop hands it, with its own pooled client and SSRF guard.
import { parentPort, workerData } from 'node:worker_threads';
import { WebhookHttpClient } from './http-client.js';
import { SsrfGuard } from './ssrf.js';
import { InlinePoster, type PosterAnswer, type PosterRequest, type PosterThreadData } from './webhook-poster.js';

const { allowHosts } = workerData as PosterThreadData;
const poster = new InlinePoster(new WebhookHttpClient(new SsrfGuard(allowHosts)));
const port = parentPort!;

port.on('message', ({ n, request }: PosterRequest) => {
  poster.post(request).then(
    (outcome) => port.postMessage({ n, outcome } satisfies PosterAnswer),
    (error: unknown) => port.postMessage({ n, error: error instanceof Error ? error.message : String(error) } satisfies PosterAnswer),
  );
});
