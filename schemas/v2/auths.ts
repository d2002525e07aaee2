import type { JSONSchema } from 'json-schema-to-ts';
import { companyId, pageParams, pathCompanyBody } from './common.js';
import { authObject, authObjectWith } from '../objects/auth.js';

/** Auth lists: `per_page` default and documented maximum. */
export const AUTHS_DEFAULT_PER_PAGE = 25;
export const AUTHS_MAX_PER_PAGE = 100;

/**
 * Optional on every company-scoped auth request: the company is the path's, and a `company_id`
 * sent beside it must name the same one.
 */

/** GET /api/p2/companies/<company_id>/auths */
export const authListQuery = {
  $id: 'v2/auth-list',
  type: 'object',
  properties: { company_id: companyId, ...pageParams(AUTHS_DEFAULT_PER_PAGE, AUTHS_MAX_PER_PAGE) },
} as const satisfies JSONSchema;

/** GET /api/p2/auths: every company of the account (company_id is not used). */
export const accountAuthListQuery = {
  $id: 'v2/account-auth-list',
  type: 'object',
  properties: pageParams(AUTHS_DEFAULT_PER_PAGE, AUTHS_MAX_PER_PAGE),
} as const satisfies JSONSchema;

/** How far back a new auth synchronizes message history (the hosted service's create-auth page). */
export const SYNC_PERIODS = ['day', 'week', 'month'] as const;
export type SyncPeriod = (typeof SYNC_PERIODS)[number];

/**
 * First pass of POST .../auths, before the provider's variant (the v1 channel create variants,
 * schemas/v1/channels.ts) is applied: the company check, `phone_number`, the contract's v2 name of
 * `phone`, and `sync_period`.
 */
export const authCreateCommon = {
  $id: 'v2/auth-create-common',
  type: 'object',
  properties: {
    company_id: companyId,
    phone_number: { type: 'string' },
    sync_period: { type: 'string', enum: SYNC_PERIODS },
  },
} as const satisfies JSONSchema;

/** GET, DELETE and POST .../confirm, PUT|PATCH .../disable of one auth: nothing beyond the company. */
export const authActionBody = pathCompanyBody;

const verificationCode = {
  type: ['string', 'integer'],
  pattern: '^[0-9A-Za-z-]{1,32}$',
  minimum: 0,
  maximum: 99_999_999_999,
  'x-message': 'must be the verification code (1 to 32 letters, digits or dashes)',
} as const;

/** PUT|PATCH .../enable: `code`, the verification code the provider sent, for auths confirmed by code. */
export const authEnableBody = {
  $id: 'v2/auth-enable',
  type: 'object',
  properties: {
    company_id: companyId,
    code: verificationCode,
  },
} as const satisfies JSONSchema;

const text = { type: 'string' } as const;

/**
 * Answer of create, show, confirm, enable, disable and delete. Create and confirm add what the
 * connector showed (`qr`, `code`, `oauth_provider_url`); enable with a code adds a two-factor
 * follow-up when the provider asks for one.
 */
export const authResponse = {
  $id: 'v2/auth-response',
  type: 'object',
  additionalProperties: false,
  required: ['auth'],
  properties: {
    auth: authObjectWith({
      qr: text,
      code: text,
      oauth_provider_url: { type: 'string', format: 'uri' },
      two_factor_requires: {
        type: 'array',
        items: { type: 'object', properties: { value: { type: 'integer' }, key: text } },
      },
      confirmation_requires: {
        type: 'array',
        items: { type: 'object', properties: { value: { type: 'integer' }, label: text } },
      },
    }),
  },
} as const satisfies JSONSchema;

/** Answer of both auth lists. */
export const authListResponse = {
  $id: 'v2/auth-list-response',
  type: 'object',
  additionalProperties: false,
  required: ['auths', 'meta'],
  properties: {
    auths: { type: 'array', items: authObject },
    meta: {
      type: 'object',
      additionalProperties: false,
      required: ['page', 'entries_count', 'per_page'],
      properties: { page: { type: 'integer' }, entries_count: { type: 'integer' }, per_page: { type: 'integer' } },
    },
  },
} as const satisfies JSONSchema;
