import type { JSONSchema } from 'json-schema-to-ts';

/**
 * The query of the OAuth redirect (GET /callbacks/<provider>/<channel_id>/oauth): the `state` the
 * authorization address carried, the provider's authorization `code`, and the page it was for.
 */
export const oauthRedirectQuery = {
  $id: 'callbacks/oauth-redirect',
  type: 'object',
  required: ['state'],
  properties: {
    state: { type: 'string', minLength: 1, maxLength: 256 },
    code: { type: 'string', minLength: 1, maxLength: 2048 },
    page: { type: 'string', minLength: 1, maxLength: 256 },
  },
} as const satisfies JSONSchema;
