import { withMessage } from '../message.js';

/** Fragments shared by the v2 request schemas. */

/** Every v2 request names its company (contract section 4). */
export const companyId = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } as const;

/** A row id given in a body (an assignee, an attachment): a positive safe integer. */
export const rowId = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } as const;

/** An address the gateway calls or fetches (a webhook endpoint, a file_url): absolute http(s). */
export const httpUrl = {
  type: 'string',
  minLength: 1,
  maxLength: 2048,
  format: 'webhook-url',
  'x-message': 'must be an absolute http(s) URL',
} as const;

/** Highest page number accepted: keeps the row offset a safe integer for every list. */
export const MAX_PAGE = 1_000_000;

/** `page` and `per_page` of a v2 list, with the list's default and documented maximum. */
export function pageParams<const D extends number, const M extends number>(defaultPerPage: D, maxPerPage: M) {
  return {
    page: { type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1 },
    per_page: { type: 'integer', minimum: 1, maximum: maxPerPage, default: defaultPerPage },
  } as const;
}

/** Exactly one attachment id per message (contract section 8). */
export const attachmentIds = withMessage(
  { type: 'array', items: rowId, minItems: 1, maxItems: 1 },
  'must hold exactly one attachment id (send several attachments as several messages)',
);

/**
 * A request under a company path (`/api/p2/companies/<id>/...`) that takes nothing else: a
 * `company_id` may be sent and must then name the path's company.
 */
export const pathCompanyBody = {
  $id: 'v2/path-company-body',
  type: 'object',
  properties: { company_id: companyId },
} as const;
