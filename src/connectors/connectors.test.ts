import { describe, expect, it } from 'vitest';
import { botActionCall, botCall } from './bot/bot-connector.js';
import { cloudMessage } from './cloud/cloud-connector.js';
import type { MessageActionRequest, SendRequest } from './connector.js';
import { substitutionsCount } from './template-sync.js';
import { ChannelThrottle } from './throttle.js';

const base: SendRequest = {
  provider: 'x',
  credentials: {},
  settings: {},
  recipient: { external_id: '12345', phone: '491701234567' },
  text: null,
  attachment: null,
  reply_to: null,
  template: null,
};
const file = (kind: 'image' | 'voice' | 'document' | 'video' | 'audio') => ({
  url: 'https://gw.example/files/k/f',
  mime_type: 'x/y',
  file_name: 'report.pdf',
  kind,
});

describe('cloudMessage', () => {
  it('sends a document with its file name and caption, a voice note as audio without caption, and replies by context', () => {
    expect(cloudMessage({ ...base, text: 'See attached', attachment: file('document'), reply_to: 'wamid.A' })).toEqual({
      messaging_product: 'chat_a',
      recipient_type: 'individual',
      to: '491701234567',
      context: { message_id: 'wamid.A' },
      type: 'document',
      document: { link: 'https://gw.example/files/k/f', caption: 'See attached', filename: 'report.pdf' },
    });
    expect(cloudMessage({ ...base, text: 'ignored', attachment: file('voice') })).toMatchObject({
      type: 'audio',
      audio: { link: 'https://gw.example/files/k/f' },
    });
    expect(cloudMessage({ ...base, template: { name: 'hello', language: 'en', parameters: [] } })).toMatchObject({
      type: 'template',
      template: { name: 'hello', language: { code: 'en' }, components: [] },
    });
  });
});

describe('botCall', () => {
  it('picks the method by kind and puts the text as caption', () => {
    expect(botCall({ ...base, text: 'Look', attachment: file('image') })).toEqual({
      method: 'sendPhoto',
      body: { chat_id: '12345', photo: 'https://gw.example/files/k/f', caption: 'Look' },
    });
    expect(botCall({ ...base, attachment: file('voice') }).method).toBe('sendVoice');
    expect(botCall({ ...base, attachment: file('document') }).method).toBe('sendDocument');
    expect(botCall({ ...base, attachment: file('video') }).method).toBe('sendVideo');
    expect(botCall({ ...base, text: 'hi', reply_to: '12345:77' }).body).toEqual({
      chat_id: '12345',
      text: 'hi',
      reply_parameters: { message_id: 77, allow_sending_without_reply: true },
    });
  });
});

describe('substitutionsCount', () => {
  it('is the highest {{n}} marker', () => {
    expect(substitutionsCount('Hello')).toBe(0);
    expect(substitutionsCount('Hi {{1}}, {{1}} again')).toBe(1);
    expect(substitutionsCount('{{2}} then {{ 1 }}')).toBe(2);
    expect(substitutionsCount('{{1}} and {{3}}')).toBe(3);
  });
});

describe('ChannelThrottle', () => {
  it('holds calls of one channel to the rate, and to the concurrency', async () => {
    const throttle = new ChannelThrottle(1, 10);
    const started: number[] = [];
    let running = 0;
    let most = 0;
    const call = () =>
      throttle.run(7, async () => {
        running += 1;
        most = Math.max(most, running);
        started.push(Date.now());
        // Each call lasts a moment, so that calls let through together would overlap.
        await new Promise((resolve) => setTimeout(resolve, 5));
        running -= 1;
      });
    const t0 = Date.now();
    await Promise.all(Array.from({ length: 13 }, call));
    expect(most).toBe(1);
    // A burst of 10, then one call per 100 ms.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    // Another channel is not held back.
    const other = Date.now();
    await throttle.run(8, async () => {});
    expect(Date.now() - other).toBeLessThan(50);
  });
});

describe('botActionCall', () => {
  const request = (action: MessageActionRequest['action'], hasAttachment = false): MessageActionRequest => ({
    channel_id: 1,
    provider: 'chat_b',
    settings: {},
    credentials: {},
    chat_id: '777000111',
    external_id: '777000111:56',
    has_attachment: hasAttachment,
    action,
  });

  it('edits the caption of a message with an attachment, the text otherwise; removes a reaction with an empty list', () => {
    expect(botActionCall(request({ action: 'edit', text: 'New' }, true))).toEqual({
      method: 'editMessageCaption',
      body: { chat_id: '777000111', message_id: 56, caption: 'New' },
    });
    expect(botActionCall(request({ action: 'edit', text: 'New' }))).toEqual({
      method: 'editMessageText',
      body: { chat_id: '777000111', message_id: 56, text: 'New' },
    });
    expect(botActionCall(request({ action: 'unreact' }))).toEqual({
      method: 'setMessageReaction',
      body: { chat_id: '777000111', message_id: 56, reaction: [] },
    });
  });

  it('has no call for a read receipt, nor for an id that is not <chat>:<message>', () => {
    expect(botActionCall(request({ action: 'read' }))).toBeNull();
    expect(botActionCall({ ...request({ action: 'unreact' }), external_id: 'not-a-bot-id' })).toBeNull();
  });
});
