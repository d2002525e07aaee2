import {
  companySettingsBody,
  companySettingsQuery,
  companySettingsResponse,
} from '../../../schemas/v2/company-settings.js';
import { contactEraseBody, contactEraseResponse } from '../../../schemas/v2/contacts.js';
import { eventTypeListResponse } from '../../../schemas/v2/event-types.js';
import { providerListResponse } from '../../../schemas/v2/providers.js';
import type { Operation } from '../document.js';

/**
 * The other v2 routes: a company's settings, contact erasure, live event stream and portal link, and
 * the catalogs of event types and providers.
 */
export const companyAndCatalogOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/p2/companies/:companyId/settings',
    tag: 'v2 companies',
    summary: "The company's settings: its message retention in days (null: the gateway's default)",
    input: companySettingsQuery,
    success: { status: 200, schema: companySettingsResponse },
  },
  {
    method: 'put',
    path: '/api/p2/companies/:companyId/settings',
    tag: 'v2 companies',
    summary:
      "Set the company's message retention: 1 to 3650 days, or null for the gateway's default; older messages and their files are deleted by the retention pass",
    input: companySettingsBody,
    success: { status: 200, schema: companySettingsResponse },
  },
  {
    method: 'delete',
    path: '/api/p2/companies/:companyId/contacts/:id',
    tag: 'v2 contacts',
    summary:
      "Erase a contact: its conversations, messages and attachments' files, and its data in kept events, deliveries and attempts; writes contact.delete",
    input: contactEraseBody,
    success: { status: 200, schema: contactEraseResponse },
  },
  {
    method: 'get',
    path: '/api/p2/event_types',
    tag: 'v2 webhooks',
    summary:
      'The event catalog: every event type sent to webhook endpoints, with the JSON Schema of its body and an example (also under `webhooks` in this document)',
    success: { status: 200, schema: eventTypeListResponse },
  },
  {
    method: 'get',
    path: '/api/p2/companies/:companyId/events/stream',
    tag: 'v2 webhooks',
    summary:
      "The company's events live as Server-Sent Events (`text/event-stream`): `id:` the event's id, `event:` its type, `data:` the v2 envelope `{id, event, type, created_at, object}`. `Last-Event-ID` resumes right after that event, from the event log kept 24 hours; an id not kept is 409. At most 5 open streams per company and 20 per account (429)",
    success: { status: 200, description: 'A `text/event-stream` that lasts until the client closes it' },
    errors: [409, 429],
  },
  {
    method: 'get',
    path: '/api/p2/providers',
    tag: 'v2 providers',
    summary:
      'The provider capability catalog: for each provider how it authenticates, writing first, templates, groups, reactions, edits, deletes, read receipts (what the provider has, and what the gateway carries of it) and the attachment kinds and sizes it takes',
    success: { status: 200, schema: providerListResponse },
  },
  {
    method: 'post',
    path: '/api/p2/companies/:companyId/portal_sessions',
    tag: 'v2 portal',
    summary: "A single-use link into the company's portal (its webhook endpoints and event log), valid for 10 minutes",
    success: { status: 201 },
  },
];
