// The rows and checks the src/presenters/presented-objects-*.test.ts files share: realistic rows of
// every response object (null and optional variants included), the strict test ajv's validators of the
// object schemas in schemas/objects/, and the events recordEvent would append, captured instead of stored.
// Here rather than beside them: a module of src/ that is no test may import neither test helpers nor the
// domain layer (.dependency-cruiser.cjs), and these rows are built with both.
import { expect } from 'vitest';
import { attachmentObject } from '../../schemas/objects/attachment.js';
import { authObject } from '../../schemas/objects/auth.js';
import { conversationObject } from '../../schemas/objects/conversation.js';
import { messageObject } from '../../schemas/objects/message.js';
import { messageEventObject } from '../../schemas/objects/message-event.js';
import { templateObject } from '../../schemas/objects/template.js';
import { webhookObject } from '../../schemas/objects/webhook.js';
import { webhookListResponse } from '../../schemas/v2/webhooks.js';
import type { AuthPageRow } from '../../src/store/resources/auth-pages.js';
import type { OutboxStore } from '../../src/store/pipeline/outbox.js';
import type { Store } from '../../src/store/store.js';
import type { EventRecord } from '../../src/streams/catalog.js';
import { publicUrls } from '../../src/presenters/public-urls.js';
import { compileSchema, schemaErrors } from './schemas.js';

const PUBLIC_URL = 'https://gateway.example.com';
export const URLS = publicUrls(PUBLIC_URL);
export const T0 = Date.parse('2026-11-02T10:15:30.123Z');
export const NOW = new Date(T0 + 60_000);

export const isAttachment = compileSchema(attachmentObject);
export const isAuth = compileSchema(authObject);
export const isConversation = compileSchema(conversationObject);
export const isMessage = compileSchema(messageObject);
export const isMessageEvent = compileSchema(messageEventObject);
export const isTemplate = compileSchema(templateObject);
export const isWebhook = compileSchema(webhookObject);
export const isWebhookList = compileSchema(webhookListResponse);

export type Validate = ReturnType<typeof compileSchema>;

export function expectValid(validate: Validate, value: unknown): void {
  const valid = validate(value);
  expect(valid, `${schemaErrors(validate)}\n${JSON.stringify(value)}`).toBe(true);
}

/** The events recordEvent (and the flows built on it) would append, captured instead of stored. */
export function capturedEvents(): { outbox: OutboxStore; store: Store; events: EventRecord[] } {
  const events: EventRecord[] = [];
  const outbox = {
    append: (message: { payload: unknown }) => void events.push(message.payload as EventRecord),
  } as unknown as OutboxStore;
  // Pages as the store keeps them, in memory: a list replaces them, ids are assigned in order.
  let pages: AuthPageRow[] = [];
  const authPages = {
    forChannel: (channelId: number) => pages.filter((p) => p.channel_id === channelId),
    replaceListed: (channel: { id: number; company_id: number }, listed: { id: string; name: string }[]) => {
      pages = listed.map((p, i) => ({
        id: 900 + i,
        channel_id: channel.id,
        company_id: channel.company_id,
        external_id: p.id,
        name: p.name,
        username: null,
        enabled: 0,
        created_at: T0,
        updated_at: T0,
      }));
    },
    enable: (_channelId: number, externalId: string) =>
      void pages.filter((p) => p.external_id === externalId).forEach((p) => (p.enabled = 1)),
  };
  return { outbox, store: { outbox, authPages } as unknown as Store, events };
}
