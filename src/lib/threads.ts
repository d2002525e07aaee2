import v8 from 'node:v8';
import { Worker, type WorkerOptions } from 'node:worker_threads';

let workerHeapsSizedByThemselves = false;

/**
 * A worker thread whose heap is sized by its own `resourceLimits`. The daemon starts with
 * `--max-semi-space-size=8` (docs/operations.md, "Memory"), which sizes the main thread's young
 * generation; V8 reads that flag for every isolate it creates, and it outranks a worker's
 * `maxYoungGenerationSizeMb`, so each thread would commit two 8 MiB semi-spaces whatever its
 * limits. The main isolate read the flag when it was created and keeps its young generation, so
 * clearing the flag before the first worker changes the workers only.
 */
export function startWorkerThread(
  script: URL,
  options: WorkerOptions & { resourceLimits: NonNullable<WorkerOptions['resourceLimits']> },
): Worker {
  if (!workerHeapsSizedByThemselves) {
    v8.setFlagsFromString('--max-semi-space-size=0');
    workerHeapsSizedByThemselves = true;
  }
  return new Worker(script, options);
}
