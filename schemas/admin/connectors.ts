import type { JSONSchema } from 'json-schema-to-ts';

/** POST /admin/sandbox/channels/<id>/messages: an incoming message, as if a person wrote to the channel. */
export const sandboxMessageBody = {
  $id: 'admin/sandbox-message',
  type: 'object',
  additionalProperties: false,
  required: ['from', 'text'],
  properties: {
    /** The sender's id at the provider: a phone (digits) for messengers, any id otherwise. */
    from: { type: 'string', pattern: '^[A-Za-z0-9@._:+-]{1,64}$' },
    name: { type: 'string', minLength: 1, maxLength: 255 },
    text: { type: 'string', minLength: 1, maxLength: 4096 },
  },
} as const satisfies JSONSchema;
