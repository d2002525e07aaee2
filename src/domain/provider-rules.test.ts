import { describe, expect, it } from 'vitest';
import { ValidationFailed } from '../errors/errors.js';
import { assertAttachmentFits, sendKindOf } from './provider-rules.js';

const file = (mime_type: string, size: number, push_to_talk = 0) => ({ id: 9, mime_type, size, push_to_talk });

describe('sendKindOf', () => {
  it.each([
    ['image/webp', 0, 'image'],
    ['video/mp4', 0, 'video'],
    ['audio/mpeg', 0, 'audio'],
    ['audio/ogg', 1, 'voice'],
    ['application/pdf', 0, 'document'],
    ['text/plain', 1, 'document'],
  ])('%s (push_to_talk %i) is sent as %s', (mime, ptt, kind) => {
    expect(sendKindOf({ mime_type: mime, push_to_talk: ptt })).toBe(kind);
  });
});

describe('assertAttachmentFits', () => {
  const refusal = (provider: string, attachment: ReturnType<typeof file>) => {
    try {
      assertAttachmentFits(provider, attachment, 'attachment_ids/0');
      return null;
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationFailed);
      return (error as ValidationFailed).problems;
    }
  };

  it('takes a file at the limit and refuses one byte more, on the field given', () => {
    expect(refusal('chat_b', file('image/png', 5 * 1024 * 1024))).toBeNull();
    expect(refusal('chat_b', file('image/png', 5 * 1024 * 1024 + 1))).toEqual([
      {
        field: 'attachment_ids/0',
        detail: 'attachment 9 is 5242881 bytes; chat_b takes image files of at most 5242880 bytes',
      },
    ]);
  });

  it('leaves the size to the operator limit where the provider states none', () => {
    expect(refusal('chat_d', file('video/mp4', 2 ** 40))).toBeNull();
  });

  it('refuses a kind the provider does not take, naming what it takes', () => {
    expect(refusal('social_c_business', file('application/pdf', 10))).toEqual([
      {
        field: 'attachment_ids/0',
        detail: 'attachment 9 is a document; social_c_business takes image, video, audio (GET /api/p2/providers)',
      },
    ]);
    expect(refusal('chat_c', file('audio/mpeg', 10))![0]!.detail).toBe(
      'attachment 9 is an audio; chat_c takes image, video, document (GET /api/p2/providers)',
    );
  });

  it('checks nothing for a provider code the table does not know', () => {
    expect(refusal('pager', file('application/pdf', 2 ** 40))).toBeNull();
  });
});
