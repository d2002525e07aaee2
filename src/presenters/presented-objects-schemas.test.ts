// The object schemas in schemas/objects/ and the presenters agree both ways: each presenter is typed
// FromSchema<its object schema>, and the strict test ajv refuses what a presenter must never answer,
// as the object alone, inside the REST answers and inside the events that carry it.
import type { FromSchema } from 'json-schema-to-ts';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { attachmentObject } from '../../schemas/objects/attachment.js';
import { authObject } from '../../schemas/objects/auth.js';
import { conversationObject } from '../../schemas/objects/conversation.js';
import { messageObject } from '../../schemas/objects/message.js';
import { messageEventObject } from '../../schemas/objects/message-event.js';
import { templateObject } from '../../schemas/objects/template.js';
import { webhookObject } from '../../schemas/objects/webhook.js';
import { assertValidEvent } from '../../test/helpers/events.js';
import {
  capturedEvents,
  isAttachment,
  isAuth,
  isConversation,
  isMessage,
  isMessageEvent,
  isTemplate,
  isWebhook,
  isWebhookList,
  NOW,
  URLS,
  type Validate,
} from '../../test/helpers/presented-objects-fixtures.js';
import {
  attachmentRows,
  conversationRows,
  messageRows,
  templateRows,
} from '../../test/helpers/presented-messaging-rows.js';
import { authPage, channelRows, webhookRows } from '../../test/helpers/presented-auth-webhook-rows.js';
import { recordAuthSignal } from '../domain/channel-events.js';
import { recordEvent } from '../domain/events.js';
import { presentAttachment, type AttachmentObject } from './attachment.js';
import { presentAuth, presentAuthPage, type AuthObject } from './auth.js';
import { presentConversation, type ConversationObject } from './conversation.js';
import { presentMessage, type MessageObject } from './message.js';
import { presentMessageEvent } from './message-event.js';
import { presentTemplate, type TemplateObject } from './template.js';
import { presentWebhook, type WebhookObject } from './webhook.js';

function expectInvalid(validate: Validate, value: unknown): void {
  expect(validate(value), `accepted: ${JSON.stringify(value)}`).toBe(false);
}

describe('the presenters are typed by the schemas', () => {
  it('answer FromSchema<object schema>', () => {
    expectTypeOf(presentAttachment).returns.toEqualTypeOf<FromSchema<typeof attachmentObject>>();
    expectTypeOf(presentAuth).returns.toEqualTypeOf<FromSchema<typeof authObject>>();
    expectTypeOf(presentConversation).returns.toEqualTypeOf<FromSchema<typeof conversationObject>>();
    expectTypeOf(presentMessage).returns.toEqualTypeOf<FromSchema<typeof messageObject>>();
    expectTypeOf(presentMessageEvent).returns.toEqualTypeOf<FromSchema<typeof messageEventObject>>();
    expectTypeOf(presentTemplate).returns.toEqualTypeOf<FromSchema<typeof templateObject>>();
    expectTypeOf(presentWebhook).returns.toEqualTypeOf<FromSchema<typeof webhookObject>>();
    expectTypeOf<AttachmentObject>().toEqualTypeOf<FromSchema<typeof attachmentObject>>();
    expectTypeOf<AuthObject>().toEqualTypeOf<FromSchema<typeof authObject>>();
    expectTypeOf<ConversationObject>().toEqualTypeOf<FromSchema<typeof conversationObject>>();
    expectTypeOf<MessageObject>().toEqualTypeOf<FromSchema<typeof messageObject>>();
    expectTypeOf<TemplateObject>().toEqualTypeOf<FromSchema<typeof templateObject>>();
    expectTypeOf<WebhookObject>().toEqualTypeOf<FromSchema<typeof webhookObject>>();
  });
});

describe('the schemas refuse what the presenters must never answer', () => {
  const attachment = presentAttachment(attachmentRows[0]!, URLS);
  const messageObj = presentMessage(messageRows[2]![1], messageRows[2]![2], URLS);
  const conversationObj = presentConversation(conversationRows[0]![1]);
  const messageEventObj = presentMessageEvent(messageRows[2]![1], messageRows[2]![2], conversationRows[0]![1], URLS);
  const templateObj = presentTemplate(templateRows[0]![1]);
  const auth = presentAuth(channelRows[3]![1], []);
  const webhookObj = presentWebhook(webhookRows[0]![1], { withSecret: true });

  it.each([
    ['attachment with an unknown field', isAttachment, { ...attachment, storage_key: 'x' }],
    ['attachment with a relative URL', isAttachment, { ...attachment, attachment_url: '/files/x/y' }],
    ['attachment with a negative size', isAttachment, { ...attachment, size: -1 }],
    ['attachment with dimensions as text', isAttachment, { ...attachment, data: { width: '1920' } }],
    ['message without milliseconds in created_at', isMessage, { ...messageObj, created_at: '2026-11-02T10:15:30Z' }],
    ['message with an unknown status', isMessage, { ...messageObj, status: 'queued' }],
    ['message without details', isMessage, (({ details: _, ...rest }) => rest)(messageObj)],
    ['message with income as 0/1', isMessage, { ...messageObj, income: 0 }],
    [
      'message with a broken attachment',
      isMessage,
      { ...messageObj, attachments: [{ ...attachment, mime_type: null }] },
    ],
    ['message event without its conversation', isMessageEvent, { ...messageEventObj, conversation: undefined }],
    [
      'message event whose contact mixes internal and provider ids',
      isMessageEvent,
      {
        ...messageEventObj,
        contact: { ...messageEventObj.contact, internal_id: 17, external_id: 'x', external_public_id: 'x' },
      },
    ],
    ['conversation with an unknown state', isConversation, { ...conversationObj, operational_state: 'closed' }],
    ['conversation with group as 0/1', isConversation, { ...conversationObj, group: 0 }],
    ['template without position', isTemplate, (({ position: _, ...rest }) => rest)(templateObj)],
    ['auth with a credential in its settings', isAuth, { ...auth, settings: { ...auth.settings, token: 'EAAG' } }],
    ['auth with its credentials', isAuth, { ...auth, credentials: {} }],
    ['auth of an unknown provider', isAuth, { ...auth, provider: 'carrier_pigeon' }],
    ['auth with an unknown confirmation', isAuth, { ...auth, confirmation: 'sms' }],
    ['auth with a connector signal outside an answer or event', isAuth, { ...auth, qr: 'x' }],
    ['auth without its documented fields', isAuth, (({ phone_number: _, ...rest }) => rest)(auth)],
    ['auth with a page whose id is text', isAuth, { ...auth, pages: [{ ...presentAuthPage(authPage), id: '901' }] }],
    ['webhook with a malformed secret', isWebhook, { ...webhookObj, secret: 'whsec_short' }],
    ['webhook with an unknown event type', isWebhook, { ...webhookObj, event_types: ['message.delete'] }],
    ['webhook with active as 0/1', isWebhook, { ...webhookObj, active: 1 }],
    [
      'webhook list of six',
      isWebhookList,
      { webhooks: Array.from({ length: 6 }, () => presentWebhook(webhookRows[0]![1])) },
    ],
  ] as [string, Validate, unknown][])('%s', (_name, validate, value) => {
    expectInvalid(validate, value);
  });

  it('events with a broken object or a record that disagrees with its body are refused', () => {
    const { outbox, store, events } = capturedEvents();
    recordEvent(outbox, 3, 'message', 'create', { ...messageEventObj, status: 'queued' }, NOW);
    recordEvent(outbox, 3, 'conversation', 'update', { ...conversationObj, group: 0 }, NOW);
    recordEvent(outbox, 3, 'auth', 'update', { ...auth, settings: { token: 'x' } }, NOW);
    recordEvent(outbox, 4, 'message', 'create', messageEventObj, NOW); // another company than the object's
    recordAuthSignal(store, { ...channelRows[0]![1], provider: 'carrier_pigeon' }, { kind: 'qr', qr: 'x' }, true, NOW);
    expect(events).toHaveLength(6);
    for (const event of events.slice(0, 5)) expect(() => assertValidEvent(event), event.name).toThrow();
    // The v1 channel payload of that signal holds no auth object: it stays valid.
    expect(() => assertValidEvent(events[5]!)).not.toThrow();
    expect(() => assertValidEvent({ ...events[5]!, name: 'channel.code' })).toThrow(/disagree/);
  });
});
