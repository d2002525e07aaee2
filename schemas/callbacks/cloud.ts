import type { JSONSchema } from 'json-schema-to-ts';

/** Unix seconds as text, the way the cloud-style API sends every timestamp; at most 99_999_999_999, like the connector's. */
const unixText = { type: 'string', pattern: '^\\d{1,11}$', 'x-message': 'must be unix seconds as text' } as const;
const media = {
  type: 'object',
  required: ['id'],
  properties: {
    id: { type: 'string', minLength: 1 },
    mime_type: { type: 'string' },
    sha256: { type: 'string' },
    caption: { type: 'string' },
    filename: { type: 'string' },
    voice: { type: 'boolean' },
    animated: { type: 'boolean' },
    url: { type: 'string' },
  },
} as const;

/** Per message type, the object a message of that type must carry. */
const MEDIA_TYPES = ['image', 'audio', 'video', 'document', 'sticker'] as const;

const cloudMessage = {
  type: 'object',
  required: ['id', 'from', 'timestamp', 'type'],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 255 },
    from: { type: 'string', minLength: 1, maxLength: 64 },
    timestamp: unixText,
    type: { type: 'string', minLength: 1 },
    context: { type: 'object', properties: { id: { type: 'string' }, from: { type: 'string' } } },
    text: { type: 'object', required: ['body'], properties: { body: { type: 'string' } } },
    image: media,
    audio: media,
    video: media,
    document: media,
    sticker: media,
    location: {
      type: 'object',
      required: ['latitude', 'longitude'],
      properties: {
        latitude: { type: 'number' },
        longitude: { type: 'number' },
        name: { type: 'string' },
        address: { type: 'string' },
        url: { type: 'string' },
      },
    },
    reaction: {
      type: 'object',
      required: ['message_id'],
      properties: { message_id: { type: 'string', minLength: 1 }, emoji: { type: 'string' } },
    },
    interactive: {
      type: 'object',
      required: ['type'],
      properties: {
        type: { type: 'string' },
        button_reply: {
          type: 'object',
          required: ['id', 'title'],
          properties: { id: { type: 'string' }, title: { type: 'string' } },
        },
        list_reply: {
          type: 'object',
          required: ['id', 'title'],
          properties: { id: { type: 'string' }, title: { type: 'string' }, description: { type: 'string' } },
        },
      },
    },
    button: {
      type: 'object',
      required: ['text'],
      properties: { text: { type: 'string' }, payload: { type: 'string' } },
    },
  },
  allOf: [
    ...['text', 'location', 'reaction', 'interactive', 'button', ...MEDIA_TYPES].map((type) => ({
      if: { properties: { type: { const: type } }, required: ['type'] },
      then: { required: [type] },
    })),
  ],
} as const;

const cloudStatus = {
  type: 'object',
  required: ['id', 'status', 'timestamp'],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 255 },
    status: { type: 'string', enum: ['sent', 'delivered', 'read', 'failed', 'deleted'] },
    timestamp: unixText,
    recipient_id: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          code: { type: 'integer' },
          title: { type: 'string' },
          message: { type: 'string' },
          error_data: { type: 'object', properties: { details: { type: 'string' } } },
        },
      },
    },
  },
} as const;

/**
 * A cloud-style business API callback (`chat_a_business`, docs/design.md section 5): entries of changes,
 * each change's value holding the contacts, messages and statuses of one phone number. Fields the
 * gateway does not read are allowed (providers add fields without notice).
 */
export const cloudCallback = {
  $id: 'callbacks/cloud',
  type: 'object',
  required: ['object', 'entry'],
  properties: {
    object: { type: 'string' },
    entry: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'changes'],
        properties: {
          id: { type: 'string' },
          changes: {
            type: 'array',
            items: {
              type: 'object',
              required: ['field', 'value'],
              properties: {
                field: { type: 'string' },
                value: {
                  type: 'object',
                  properties: {
                    messaging_product: { type: 'string' },
                    metadata: {
                      type: 'object',
                      required: ['phone_number_id'],
                      properties: { display_phone_number: { type: 'string' }, phone_number_id: { type: 'string' } },
                    },
                    contacts: {
                      type: 'array',
                      items: {
                        type: 'object',
                        required: ['wa_id'],
                        properties: {
                          wa_id: { type: 'string', minLength: 1 },
                          profile: { type: 'object', properties: { name: { type: 'string' } } },
                        },
                      },
                    },
                    messages: { type: 'array', items: cloudMessage },
                    statuses: { type: 'array', items: cloudStatus },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
} as const satisfies JSONSchema;

/** The GET subscribe handshake's query. */
export const cloudHandshakeQuery = {
  $id: 'callbacks/cloud-handshake',
  type: 'object',
  required: ['hub.mode', 'hub.verify_token', 'hub.challenge'],
  properties: {
    'hub.mode': { type: 'string', const: 'subscribe' },
    'hub.verify_token': { type: 'string' },
    'hub.challenge': { type: 'string', minLength: 1, maxLength: 255 },
  },
} as const satisfies JSONSchema;
