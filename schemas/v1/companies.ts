import type { JSONSchema } from 'json-schema-to-ts';

const name = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  pattern: '\\S',
  'x-message': 'must not be blank',
} as const;
const optionalText = (maxLength: number) => ({ type: ['string', 'null'], maxLength }) as const;
const webhookUrl = {
  type: ['string', 'null'],
  maxLength: 2048,
  format: 'webhook-url',
  'x-message': 'must be an absolute http(s) URL',
} as const;

/** POST /p1/companies */
export const companyCreateBody = {
  $id: 'v1/company-create',
  type: 'object',
  required: ['name'],
  properties: {
    name,
    phone: optionalText(64),
    description: optionalText(10_000),
    webhook_url: webhookUrl,
  },
} as const satisfies JSONSchema;

/** PUT /p1/companies/<ID>: every field optional; `hidden` only here. */
export const companyUpdateBody = {
  $id: 'v1/company-update',
  type: 'object',
  properties: {
    name,
    phone: optionalText(64),
    description: optionalText(10_000),
    webhook_url: webhookUrl,
    hidden: { type: 'boolean' },
  },
} as const satisfies JSONSchema;
