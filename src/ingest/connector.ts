import type { FromSchema } from 'json-schema-to-ts';
import type { connectorEvents } from '../../schemas/callbacks/connector.js';
import {
  bareMimeType,
  defaultFileName,
  type IngestBatch,
  type IngestItem,
  type SenderProfile,
} from '../domain/provider-facts.js';

type Events = typeof connectorEvents;

const NOTICE_TEXTS = {
  phone_offline: 'phone offline',
  phone_online: 'phone online',
  unavailable: 'unavailable',
  trying_resume_work: 'trying_resume_work',
  synchronized: 'synchronized',
} as const;
export type ConnectorEvent = { [K in keyof Events]: FromSchema<Events[K]> }[keyof Events];

/**
 * One connector protocol event (validated, docs/connector-protocol.md) as provider-neutral items.
 * The Standard Webhooks `webhook-id` is the receipt: a redelivered event changes nothing.
 */
export function normalizeConnectorEvent(event: ConnectorEvent, webhookId: string): IngestBatch {
  return { receipt: `webhook:${webhookId}`, items: [connectorItem(event, webhookId)] };
}

type MessageEvent = Extract<ConnectorEvent, { type: 'message' }>;

/** A group member as the connector names them: the same fields, and defaults, as a chat. */
function connectorSender(sender: NonNullable<MessageEvent['sender']>): SenderProfile {
  const phone = sender.phone?.replace(/^\+/, '') ?? null;
  return {
    externalId: sender.id,
    externalPublicId: sender.public_id ?? phone ?? sender.id,
    name: sender.name ?? sender.public_id ?? phone ?? sender.id,
    phone,
    ...(sender.avatar_url === undefined ? {} : { avatarUrl: sender.avatar_url }),
  };
}

function connectorItem(event: ConnectorEvent, webhookId: string): IngestItem {
  switch (event.type) {
    case 'message': {
      const phone = event.chat.phone?.replace(/^\+/, '') ?? null;
      const details: Record<string, unknown> = {};
      const isGroup = event.chat.group ?? false;
      if (event.sender !== undefined) details.sender = event.sender;
      const sender = isGroup && event.sender !== undefined ? connectorSender(event.sender) : undefined;
      if (event.location !== undefined) details.location = event.location;
      return {
        kind: 'message',
        externalId: event.id,
        chat: {
          externalId: event.chat.id,
          externalPublicId: event.chat.public_id ?? phone ?? event.chat.id,
          name: event.chat.name ?? event.chat.public_id ?? phone ?? event.chat.id,
          phone,
          ...(event.chat.avatar_url === undefined ? {} : { avatarUrl: event.chat.avatar_url }),
          isGroup,
        },
        ...(sender === undefined ? {} : { sender }),
        income: event.from_me !== true,
        sentAt: event.timestamp * 1000,
        text: event.text ?? null,
        repliedToId: event.reply_to ?? null,
        attachments: (event.attachments ?? []).map((a) => {
          const mimeType = bareMimeType(a.mime_type, 'application/octet-stream');
          return {
            kind: a.kind,
            mimeType,
            fileName: a.file_name ?? defaultFileName(a.kind, mimeType),
            size: a.size ?? 0,
            width: a.width ?? null,
            height: a.height ?? null,
            pushToTalk: a.kind === 'voice',
            providerMedia: {
              ...(a.id === undefined ? {} : { id: a.id }),
              ...(a.url === undefined ? {} : { url: a.url }),
            },
          };
        }),
        details: Object.keys(details).length === 0 ? null : details,
      };
    }
    case 'status':
      return event.status === 'failed'
        ? {
            kind: 'status',
            externalId: event.message_id,
            status: 'error',
            at: event.timestamp * 1000,
            error: { errors: event.error === undefined ? [] : [event.error] },
          }
        : { kind: 'status', externalId: event.message_id, status: event.status, at: event.timestamp * 1000 };
    case 'reaction':
      return {
        kind: 'reaction',
        receipt: `reaction:${webhookId}`,
        targetExternalId: event.message_id,
        from: event.from,
        emoji: event.emoji,
        sentAt: event.timestamp * 1000,
      };
    case 'edit':
      return { kind: 'edit', targetExternalId: event.message_id, text: event.text, editedAt: event.timestamp * 1000 };
    case 'delete':
      return { kind: 'deletion', externalIds: event.message_ids, at: event.timestamp * 1000 };
    case 'state':
      return {
        kind: 'state',
        state: event.state,
        reason: event.reason ?? null,
        ...(event.account === undefined ? {} : { account: event.account }),
      };
    case 'qr':
      return { kind: 'qr', qr: event.qr };
    case 'code':
      return { kind: 'code', code: event.code };
    case 'pages':
      return { kind: 'pages', pages: event.pages };
    case 'oauth':
      return { kind: 'oauth', oauthProviderUrl: event.oauth_provider_url };
    case 'notice':
      // The protocol's names are identifiers; the v1 notices keep the documented texts.
      return {
        kind: 'notice',
        notice: NOTICE_TEXTS[event.notice],
        at: event.timestamp === undefined ? Date.now() : event.timestamp * 1000,
      };
  }
}
