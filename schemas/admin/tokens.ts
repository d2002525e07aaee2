import type { JSONSchema } from 'json-schema-to-ts';

/** GET /admin/tokens: every account's tokens, or one account's. Unknown fields are refused. */
export const adminTokenListQuery = {
  $id: 'admin/token-list-query',
  type: 'object',
  additionalProperties: false,
  properties: {
    account_id: { type: 'integer', minimum: 1, description: "only this account's tokens" },
  },
} as const satisfies JSONSchema;
