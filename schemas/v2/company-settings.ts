import type { JSONSchema } from 'json-schema-to-ts';
import { withMessage } from '../message.js';
import { companyId } from './common.js';

/** Days a company's messages are kept: 1 to 3650 (ten years), or null for the operator's default. */
export const MAX_RETENTION_DAYS = 3650;

const retentionDays = withMessage(
  { type: ['integer', 'null'], minimum: 1, maximum: MAX_RETENTION_DAYS },
  `must be a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or null for the gateway's default`,
);

/** GET /api/p2/companies/<id>/settings: `company_id` may be sent and must then name the path's company. */
export const companySettingsQuery = {
  $id: 'v2/company-settings-query',
  type: 'object',
  properties: { company_id: companyId },
} as const satisfies JSONSchema;

/** PUT /api/p2/companies/<id>/settings. */
export const companySettingsBody = {
  $id: 'v2/company-settings-update',
  type: 'object',
  required: ['message_retention_days'],
  properties: { company_id: companyId, message_retention_days: retentionDays },
} as const satisfies JSONSchema;

export const companySettingsResponse = {
  $id: 'v2/company-settings-response',
  type: 'object',
  additionalProperties: false,
  required: ['settings'],
  properties: {
    settings: {
      type: 'object',
      additionalProperties: false,
      required: ['company_id', 'message_retention_days', 'default_message_retention_days'],
      properties: {
        company_id: { type: 'integer' },
        /** The company's own period; null: the gateway's default applies. */
        message_retention_days: { type: ['integer', 'null'] },
        /** The gateway's default (GATEWAY_MESSAGE_RETENTION) in days; null: kept until deleted. */
        default_message_retention_days: { type: ['number', 'null'] },
      },
    },
  },
} as const satisfies JSONSchema;
