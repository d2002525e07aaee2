import type { JSONSchema } from 'json-schema-to-ts';
import { contactEvent } from '../events/contact.js';
import { pathCompanyBody } from './common.js';

/** DELETE /api/p2/companies/<id>/contacts/<id>: `company_id` may be sent and must then name the path's company. */
export const contactEraseBody = pathCompanyBody;

/** What an erasure answers: the object its `contact.delete` event carries. */
export const contactEraseResponse = {
  $id: 'v2/contact-erase-response',
  type: 'object',
  additionalProperties: false,
  required: ['contact'],
  properties: { contact: contactEvent.properties.object },
} as const satisfies JSONSchema;
