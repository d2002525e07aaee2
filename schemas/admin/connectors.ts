import type { JSONSchema } from 'json-schema-to-ts';

const externalId = { type: 'string', pattern: '^[A-Za-z0-9@._:+-]{1,64}$' } as const;

/**
 * POST /admin/sandbox/channels/<id>/messages: an incoming message, as if a person wrote to the
 * channel, or with `group`, wrote in that group chat of the channel (`from` is then the member).
 */
export const sandboxMessageBody = {
  $id: 'admin/sandbox-message',
  type: 'object',
  additionalProperties: false,
  required: ['from', 'text'],
  properties: {
    /** The sender's id at the provider: a phone (digits) for messengers, any id otherwise. */
    from: externalId,
    name: { type: 'string', minLength: 1, maxLength: 255 },
    text: { type: 'string', minLength: 1, maxLength: 4096 },
    /** The group chat written in: its id at the provider and its title (default: the id). */
    group: {
      type: 'object',
      additionalProperties: false,
      required: ['id'],
      properties: { id: externalId, name: { type: 'string', minLength: 1, maxLength: 255 } },
    },
  },
} as const satisfies JSONSchema;
