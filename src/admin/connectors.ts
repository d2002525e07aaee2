import { randomBytes } from 'node:crypto';
import type Router from '@koa/router';
import { sandboxMessageBody } from '../../schemas/admin/connectors.js';
import { pathId } from '../http/params.js';
import type { Presenters } from '../presenters/presenters.js';
import type { ConnectionFlows } from '../connectors/flows.js';
import { applyCallback } from '../domain/incoming.js';
import type { AppState } from '../http/context.js';
import { NotFound } from '../errors/errors.js';
import { parseBody, type BodyLimits } from '../http/body.js';
import { validator } from '../http/validate.js';
import type { ChannelRow } from '../store/resources/channels.js';
import type { Store } from '../store/store.js';
import { authenticateAdmin } from './authenticate-admin.js';
import type { AuthThrottle } from '../http/auth-throttle.js';

export interface AdminConnectorDeps {
  store: Store;
  adminToken: string;
  flows: ConnectionFlows;
  presenters: Presenters;
  bodyLimits: BodyLimits;
  /** GATEWAY_SANDBOX: the sandbox's routes exist only then. */
  sandbox: boolean;
  throttle?: AuthThrottle;
}

const validateSandboxMessage = validator(sandboxMessageBody);

/**
 * Operator actions on providers: template sync of a `chat_a_business` channel (also run when the
 * channel is created), and with the sandbox on, an incoming message injected into a channel (or
 * into a group chat of it).
 */
export function adminConnectorRoutes(router: Router<AppState>, deps: AdminConnectorDeps): void {
  const { store } = deps;
  const auth = authenticateAdmin(deps.adminToken, { throttle: deps.throttle });
  const body = parseBody(deps.bodyLimits);
  const liveChannel = (id: string | undefined): ChannelRow => {
    const channel = store.channels.findLive(pathId(id, 'Channel'));
    if (channel === undefined) throw new NotFound(`Channel ${id ?? ''} was not found.`);
    return channel;
  };

  router.post('/admin/channels/:id/templates/sync', auth, async (ctx) => {
    const channel = liveChannel(ctx.params.id);
    const result = await deps.flows.syncTemplates(channel);
    ctx.body = { channel_id: channel.id, ...result };
  });

  if (!deps.sandbox) return;
  router.post('/admin/sandbox/channels/:id/messages', auth, body, (ctx) => {
    const channel = liveChannel(ctx.params.id);
    const input = validateSandboxMessage(ctx.request.body ?? {}, ctx.is('json') ? 'json' : 'text');
    const externalId = `sbx_in_${randomBytes(10).toString('hex')}`;
    const phone = /^\+?[0-9]{7,15}$/.test(input.from) ? input.from.replace(/^\+/, '') : null;
    // A name left out keeps the one the channel knows (else the id), as a provider that omits it.
    const knownName = (id: string) => store.contacts.findOnChannel(channel.id, id)?.name ?? id;
    const person = {
      externalId: input.from,
      externalPublicId: input.from,
      name: input.name ?? knownName(input.from),
      phone,
    };
    const chat =
      input.group === undefined
        ? { ...person, isGroup: false }
        : {
            externalId: input.group.id,
            externalPublicId: input.group.id,
            name: input.group.name ?? knownName(input.group.id),
            phone: null,
            isGroup: true,
          };
    // The same normalization as a provider's callback: contact, conversation, message, events.
    applyCallback(
      store,
      { id: channel.id, api: store.callbacks.get(channel.id).api },
      {
        receipt: null,
        items: [
          {
            kind: 'message',
            externalId,
            chat,
            ...(input.group === undefined ? {} : { sender: person }),
            income: true,
            sentAt: Date.now(),
            text: input.text,
            repliedToId: null,
            attachments: [],
            details: null,
          },
        ],
      },
      deps.presenters,
    );
    const message = store.messages.findByChannelExternalId(channel.id, externalId)!;
    ctx.status = 201;
    ctx.body = { message: deps.presenters.message(message, []) };
  });
}
