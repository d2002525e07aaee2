import { describe, expect, it } from 'vitest';
import { matchesFilter, type EndpointFilter } from './endpoint-filter.js';

const envelope = {
  id: 'evt_1',
  event: 'create',
  type: 'message',
  created_at: '2026-11-29T00:00:00.000Z',
  object: { id: 7, direction: 'incoming', channel_id: 3, text: 'hi', tags: ['vip', 'new'], reply_to: null },
};

describe('payload filters', () => {
  it.each<[string, EndpointFilter, boolean]>([
    ['eq on a string', { path: 'object.direction', op: 'eq', value: 'incoming' }, true],
    ['eq that differs', { path: 'object.direction', op: 'eq', value: 'outgoing' }, false],
    ['eq never converts types', { path: 'object.channel_id', op: 'eq', value: '3' }, false],
    ['eq on null', { path: 'object.reply_to', op: 'eq', value: null }, true],
    ['eq on an absent field', { path: 'object.missing', op: 'eq', value: null }, false],
    ['ne on a different value', { path: 'type', op: 'ne', value: 'conversation' }, true],
    ['ne on an absent field', { path: 'object.missing', op: 'ne', value: 1 }, true],
    ['ne on the same value', { path: 'event', op: 'ne', value: 'create' }, false],
    ['gt on numbers', { path: 'object.channel_id', op: 'gt', value: 2 }, true],
    ['gte at the bound', { path: 'object.channel_id', op: 'gte', value: 3 }, true],
    ['lt at the bound', { path: 'object.channel_id', op: 'lt', value: 3 }, false],
    ['lte at the bound', { path: 'object.channel_id', op: 'lte', value: 3 }, true],
    ['a number never compares with a string', { path: 'object.channel_id', op: 'gt', value: '1' }, false],
    ['strings compare as text (ISO times)', { path: 'created_at', op: 'gte', value: '2026-11-01' }, true],
    ['a later time', { path: 'created_at', op: 'gt', value: '2026-12-01' }, false],
    ['in a list', { path: 'object.channel_id', op: 'in', value: [1, 3] }, true],
    ['not in a list', { path: 'object.channel_id', op: 'in', value: [1, 2] }, false],
    ['exists', { path: 'object.text', op: 'exists' }, true],
    ['exists true on null', { path: 'object.reply_to', op: 'exists', value: true }, true],
    ['exists false on an absent field', { path: 'object.missing', op: 'exists', value: false }, true],
    ['an array index', { path: 'object.tags.0', op: 'eq', value: 'vip' }, true],
    ['a path through a scalar', { path: 'object.text.length', op: 'exists' }, false],
    ['a path to an inherited property', { path: 'object.toString', op: 'exists' }, false],
    [
      'and: every part',
      {
        and: [
          { path: 'type', op: 'eq', value: 'message' },
          { path: 'object.direction', op: 'eq', value: 'outgoing' },
        ],
      },
      false,
    ],
    [
      'or: any part',
      {
        or: [
          { path: 'type', op: 'eq', value: 'conversation' },
          {
            and: [
              { path: 'object.id', op: 'gte', value: 7 },
              { path: 'object.tags', op: 'exists' },
            ],
          },
        ],
      },
      true,
    ],
  ])('%s', (_name, filter, expected) => {
    expect(matchesFilter(filter, envelope)).toBe(expected);
  });
});
