// The presenters of the messaging objects, fed realistic rows (null and optional variants included),
// answer what their schemas in schemas/objects/ describe: attachments, messages, conversations and
// templates, checked with the strict test ajv as the object alone and inside the events that carry it.
import { describe, expect, it } from 'vitest';
import { assertValidEvent } from '../../test/helpers/events.js';
import {
  capturedEvents,
  expectValid,
  isAttachment,
  isConversation,
  isMessage,
  isMessageEvent,
  isTemplate,
  NOW,
  URLS,
} from '../../test/helpers/presented-objects-fixtures.js';
import {
  attachmentRows,
  conversationRows,
  messageRows,
  templateRows,
} from '../../test/helpers/presented-messaging-rows.js';
import { recordEvent } from '../domain/events.js';
import { presentAttachment } from './attachment.js';
import { presentConversation } from './conversation.js';
import { presentMessage } from './message.js';
import { presentMessageEvent } from './message-event.js';
import { presentTemplate } from './template.js';

describe('attachments', () => {
  it.each(attachmentRows.map((row) => [row.file_name, row] as const))('%s matches objects/attachment', (_name, row) => {
    const object = presentAttachment(row, URLS);
    expectValid(isAttachment, object);
  });

  it('covers the optional and null variants', () => {
    const objects = attachmentRows.map((row) => presentAttachment(row, URLS));
    expect(objects.some((o) => o.preview_url === undefined)).toBe(true);
    expect(objects.some((o) => o.aspect_ratio === null)).toBe(true);
    expect(objects.some((o) => o.message_id === null)).toBe(true);
    expect(objects.some((o) => Object.keys(o.data).length === 0)).toBe(true);
    expect(objects.some((o) => o.push_to_talk === true)).toBe(true);
  });
});

describe('messages', () => {
  it.each(messageRows)('%s matches objects/message and its events match events/message', (_name, row, attachments) => {
    const object = presentMessage(row, attachments, URLS);
    expectValid(isMessage, object);
    const { outbox, events } = capturedEvents();
    for (const [, conversationRow] of conversationRows) {
      const eventObject = presentMessageEvent(row, attachments, conversationRow, URLS);
      expectValid(isMessageEvent, eventObject);
      recordEvent(outbox, row.company_id, 'message', 'create', eventObject, NOW);
      recordEvent(outbox, row.company_id, 'message', 'update', eventObject, NOW);
    }
    for (const event of events) assertValidEvent(event);
  });

  it('events name the contact by the provider ids when incoming, by the internal id when outgoing', () => {
    const [incoming, outgoing] = [messageRows[0]![1], messageRows[1]![1]].map((row) =>
      presentMessageEvent(row, [], conversationRows[0]![1], URLS),
    );
    expect(incoming!.contact).toEqual({
      id: 17,
      external_id: '491701234567',
      external_public_id: '+49 170 1234567',
      name: 'Anna Schmidt',
      avatar_url: '',
      phone: '491701234567',
    });
    expect(outgoing!.contact).toEqual({
      id: 17,
      internal_id: 17,
      name: 'Anna Schmidt',
      avatar_url: '',
      phone: '491701234567',
    });
    expect(incoming!.conversation).toEqual(presentConversation(conversationRows[0]![1]));
  });

  it('covers the null variants', () => {
    const objects = messageRows.map(([, row, attachments]) => presentMessage(row, attachments, URLS));
    for (const key of ['external_id', 'replied_to_id', 'message', 'details'] as const) {
      expect(
        objects.some((o) => o[key] === null),
        key,
      ).toBe(true);
      expect(
        objects.some((o) => o[key] !== null),
        key,
      ).toBe(true);
    }
  });
});

describe('conversations', () => {
  it.each(conversationRows)(
    '%s matches objects/conversation and its events match events/conversation',
    (_name, row) => {
      const object = presentConversation(row);
      expectValid(isConversation, object);
      const { outbox, events } = capturedEvents();
      recordEvent(outbox, row.company_id, 'conversation', 'create', object, NOW);
      recordEvent(outbox, row.company_id, 'conversation', 'update', object, NOW);
      for (const event of events) assertValidEvent(event);
    },
  );
});

describe('templates', () => {
  it.each(templateRows)('%s matches objects/biz-template', (_name, row) => {
    expectValid(isTemplate, presentTemplate(row));
  });
});
