import {
  webhookActionBody,
  webhookCreateBody,
  webhookListQuery,
  webhookListResponse,
  webhookResponse,
  webhookTestResponse,
  webhookUpdateBody,
} from '../../../schemas/v2/webhooks.js';
import type { Operation } from '../document.js';

const webhooks = '/api/p2/companies/:companyId/webhooks';
/** A company's v2 webhook endpoints: listed, added, changed, removed, tested and their secret rotated. */
export const webhookEndpointOperations: Operation[] = [
  {
    method: 'get',
    path: webhooks,
    tag: 'v2 webhooks',
    summary: "List a company's webhook endpoints (the v1 webhook_url is one), a page at a time",
    input: webhookListQuery,
    success: { status: 200, schema: webhookListResponse },
  },
  {
    method: 'post',
    path: webhooks,
    tag: 'v2 webhooks',
    summary: 'Add a webhook endpoint (at most 5), inactive unless active is true; the secret is shown once',
    input: webhookCreateBody,
    success: { status: 201, schema: webhookResponse },
  },
  {
    method: 'get',
    path: `${webhooks}/:id`,
    tag: 'v2 webhooks',
    summary: 'Show a webhook endpoint',
    input: webhookActionBody,
    success: { status: 200, schema: webhookResponse },
  },
  ...(['put', 'patch'] as const).map((method): Operation => ({
    method,
    path: `${webhooks}/:id`,
    tag: 'v2 webhooks',
    summary:
      'Change url, event types or active flag; activating it, or moving an active one, sends the test POST first (422 unless it answers 2xx)',
    errors: [409],
    input: webhookUpdateBody,
    success: { status: 200, schema: webhookResponse },
  })),
  {
    method: 'delete',
    path: `${webhooks}/:id`,
    tag: 'v2 webhooks',
    summary: 'Remove a webhook endpoint',
    errors: [409],
    input: webhookActionBody,
    success: { status: 204, description: 'Removed; no body' },
  },
  {
    method: 'post',
    path: `${webhooks}/:id/test`,
    tag: 'v2 webhooks',
    summary: 'Send the signed test POST to the endpoint now and answer its outcome',
    input: webhookActionBody,
    success: { status: 200, schema: webhookTestResponse },
  },
  {
    method: 'post',
    path: `${webhooks}/:id/rotate_secret`,
    tag: 'v2 webhooks',
    summary: 'Rotate the secret; the old one signs for 24 more hours',
    input: webhookActionBody,
    success: { status: 200, schema: webhookResponse },
  },
];
