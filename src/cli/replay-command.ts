import { parseArgs } from 'node:util';
import { adminCall } from './admin-client.js';
import { progressBar } from './progress.js';
import type { Config } from '../config/config.js';

export const REPLAY_USAGE = `  gateway replay <delivery-id>                 replay one webhook delivery (manual trigger)
  gateway replay [--status failed] [--company <id>] [--endpoint <id>] [--event-type <name>] [--since <iso>] [--until <iso>]
                                               replay every matching delivery, with a progress bar`;

/**
 * `gateway replay`: the admin API's replays from the command line. It talks to the running daemon
 * at GATEWAY_PUBLIC_URL with GATEWAY_ADMIN_TOKEN, so the replay is done (and recorded) by the daemon.
 */
export async function replayCommand(
  args: string[],
  config: Config,
  out: NodeJS.WriteStream = process.stderr,
): Promise<number> {
  if (config.adminToken === null) {
    out.write('gateway: replay needs GATEWAY_ADMIN_TOKEN (the admin API is off without it)\n');
    return 2;
  }
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      status: { type: 'string' },
      company: { type: 'string' },
      endpoint: { type: 'string' },
      'event-type': { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
    },
  });
  const call = (method: string, path: string, body?: unknown) => adminCall(config, method, path, body);
  try {
    if (positionals.length > 0) {
      const answer = await call('POST', `/admin/deliveries/${encodeURIComponent(positionals[0]!)}/replay`);
      out.write(`replay of ${answer.delivery.id} queued (attempt ${answer.replay.attempt}, manual)\n`);
      return 0;
    }
    const filter = {
      status: values.status,
      company_id: values.company === undefined ? undefined : Number(values.company),
      endpoint_id: values.endpoint === undefined ? undefined : Number(values.endpoint),
      event_type: values['event-type'],
      since: values.since,
      until: values.until,
    };
    let { task } = await call('POST', '/admin/replays', filter);
    const progress = progressBar(out, 'deliveries');
    progress.start(task.total, task.enqueued);
    while (task.status === 'queued' || task.status === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 250));
      ({ task } = await call('GET', `/admin/replays/${task.id}`));
      progress.setTotal(task.total);
      progress.update(task.enqueued);
    }
    progress.stop();
    out.write(`${task.status}: ${task.enqueued} of ${task.total} deliveries replayed (task ${task.id})\n`);
    return task.status === 'completed' ? 0 : 1;
  } catch (error) {
    out.write(`gateway: replay failed: ${(error as Error).message}\n`);
    return 1;
  }
}
