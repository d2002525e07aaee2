import { parseArgs } from 'node:util';
import type { Config } from '../config/config.js';
import { adminCall } from './admin-client.js';

export const PROVIDER_USAGE = `  gateway templates sync <channel-id>          sync a chat_a_business channel's templates from the provider now
  gateway sandbox message --channel <id> --from <phone or id> --text <text> [--name <name>]
                         [--group <id> [--group-name <title>]]
                                               (GATEWAY_SANDBOX=true) inject an incoming message into a channel
                                               (with --group: written by --from in that group chat)`;

/** `gateway templates sync <channel-id>`: the admin API's template sync, on the running daemon. */
export async function templatesCommand(
  args: string[],
  config: Config,
  out: NodeJS.WritableStream = process.stdout,
): Promise<number> {
  const [sub, id] = args;
  if (sub !== 'sync' || id === undefined || !/^\d+$/.test(id)) {
    process.stderr.write(`gateway: usage:\n${PROVIDER_USAGE}\n`);
    return 2;
  }
  try {
    const answer = await adminCall(config, 'POST', `/admin/channels/${id}/templates/sync`);
    out.write(`channel ${answer.channel_id}: ${answer.synced} templates synced, ${answer.removed} removed\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`gateway: template sync failed: ${(error as Error).message}\n`);
    return 1;
  }
}

/** `gateway sandbox message ...`: an incoming message through the sandbox (admin API). */
export async function sandboxCommand(
  args: string[],
  config: Config,
  out: NodeJS.WritableStream = process.stdout,
): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      channel: { type: 'string' },
      from: { type: 'string' },
      text: { type: 'string' },
      name: { type: 'string' },
      group: { type: 'string' },
      'group-name': { type: 'string' },
    },
  });
  if (
    sub !== 'message' ||
    values.channel === undefined ||
    !/^\d+$/.test(values.channel) ||
    values.from === undefined ||
    values.text === undefined
  ) {
    process.stderr.write(`gateway: usage:\n${PROVIDER_USAGE}\n`);
    return 2;
  }
  try {
    const { message } = await adminCall(config, 'POST', `/admin/sandbox/channels/${values.channel}/messages`, {
      from: values.from,
      text: values.text,
      ...(values.name === undefined ? {} : { name: values.name }),
      ...(values.group === undefined
        ? {}
        : {
            group: {
              id: values.group,
              ...(values['group-name'] === undefined ? {} : { name: values['group-name'] }),
            },
          }),
    });
    out.write(
      `message ${message.id} received in conversation ${message.conversation_id} (company ${message.company_id})\n`,
    );
    return 0;
  } catch (error) {
    process.stderr.write(`gateway: sandbox message failed: ${(error as Error).message}\n`);
    return 1;
  }
}
