import { channelCreateBodies, channelProviderBody } from '../../../schemas/v1/channels.js';

/** `{<name>: object}` */
export const wrap = (name: string, schema: object) => ({
  type: 'object',
  required: [name],
  properties: { [name]: schema },
});
/** The v2 list envelope `{<plural>: [...], meta: {page, entries_count, per_page}}`. */
export const v2List = (plural: string, item: object) => ({
  type: 'object',
  required: [plural, 'meta'],
  properties: {
    [plural]: { type: 'array', items: item },
    meta: {
      type: 'object',
      required: ['page', 'entries_count', 'per_page'],
      properties: { page: { type: 'integer' }, entries_count: { type: 'integer' }, per_page: { type: 'integer' } },
    },
  },
});

/** Channel create, in v1 and as a v2 auth: the provider picks one of the variants of the contract. */
export const channelCreate = {
  oneOf: Object.entries(channelCreateBodies).map(([provider, schema]) => ({
    ...schema,
    required: ['provider', ...((schema as { required?: string[] }).required ?? [])],
    properties: { provider: { const: provider }, ...(schema as { properties?: object }).properties },
  })),
  discriminator: { propertyName: 'provider' },
  description: `provider: ${channelProviderBody.properties.provider.enum.join(', ')}`,
};
