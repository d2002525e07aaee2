/** Answers of the v1 API (contract section 4), for the OpenAPI document. */

export const companyObject = {
  type: 'object',
  additionalProperties: false,
  required: ['external_id', 'name', 'phone', 'description', 'webhook_url', 'hidden'],
  properties: {
    external_id: { type: 'integer' },
    name: { type: 'string', maxLength: 255 },
    phone: { type: ['string', 'null'] },
    description: { type: ['string', 'null'] },
    webhook_url: { type: ['string', 'null'] },
    hidden: { type: 'boolean' },
  },
} as const;

export const channelItem = {
  type: 'object',
  additionalProperties: false,
  required: ['external_id', 'provider'],
  properties: { external_id: { type: 'integer' }, provider: { type: 'string' } },
} as const;

/** `{status: 'ok', data: {<plural>: [...], next_page}}`; next_page is '' on the last page. */
export function v1List<const P extends string, const I extends object>(plural: P, item: I) {
  return {
    type: 'object',
    required: ['status', 'data'],
    properties: {
      status: { const: 'ok' },
      data: {
        type: 'object',
        required: [plural, 'next_page'],
        properties: { [plural]: { type: 'array', items: item }, next_page: { type: 'string' } },
      },
    },
  } as const;
}

/** `{status: 'created' | 'updated', data: {external_id}}` */
export function v1Written<const S extends string>(status: S) {
  return {
    type: 'object',
    required: ['status', 'data'],
    properties: {
      status: { const: status },
      data: { type: 'object', required: ['external_id'], properties: { external_id: { type: 'integer' } } },
    },
  } as const;
}

export const v1Deleted = {
  type: 'object',
  required: ['status'],
  properties: { status: { const: 'deleted' } },
} as const;

/**
 * A v1 write-first delivery job (the jobs page of the hosted service): integer ids, the channel as
 * `{id, type}` (type: the provider code), `state` `trying_deliver` until the provider took or refused
 * the message (`delivered`, `not_delivered`), `details` null until then (`{result, reason?}`),
 * `created_at` in unix seconds.
 */
export const v1JobObject = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'company_id', 'channel', 'state', 'conversation_id', 'message_id', 'details', 'created_at'],
  properties: {
    id: { type: 'integer', minimum: 1 },
    company_id: { type: 'integer' },
    channel: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'type'],
      properties: { id: { type: 'integer' }, type: { type: 'string' } },
    },
    state: { type: 'string', enum: ['trying_deliver', 'delivered', 'not_delivered'] },
    conversation_id: { type: ['integer', 'null'] },
    message_id: { type: ['integer', 'null'] },
    details: {
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['result'],
      properties: { result: { type: 'string', enum: ['DELIVERED', 'NOT DELIVERED'] }, reason: { type: 'string' } },
    },
    created_at: { type: 'integer', minimum: 0 },
  },
} as const;

/** `{status: 'ok', data: <job>}`: the write-first answer and GET .../jobs/<id>. */
export const v1JobAnswer = {
  type: 'object',
  additionalProperties: false,
  required: ['status', 'data'],
  properties: { status: { const: 'ok' }, data: v1JobObject },
} as const;

/** `{status: 'ok', exists}`: whether a phone number has an account at the channel's provider. */
export const v1UserExistsAnswer = {
  type: 'object',
  additionalProperties: false,
  required: ['status', 'exists'],
  properties: { status: { const: 'ok' }, exists: { type: 'boolean' } },
} as const;
