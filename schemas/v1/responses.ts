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

export const v1Deleted = { type: 'object', required: ['status'], properties: { status: { const: 'deleted' } } } as const;
