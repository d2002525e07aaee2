import {
  accountAuthListQuery,
  authActionBody,
  authEnableBody,
  authListQuery,
  authListResponse,
  authResponse,
} from '../../../schemas/v2/auths.js';
import type { Operation } from '../document.js';
import { channelCreate } from './shared-schemas.js';

const auths = '/api/p2/companies/:companyId/auths';
/** The v2 auths: a company's provider accounts, created, confirmed, enabled and disabled. */
export const authOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/p2/auths',
    tag: 'v2 auths',
    summary: "List the auths of all the account's companies",
    input: accountAuthListQuery,
    success: { status: 200, schema: authListResponse },
  },
  {
    method: 'get',
    path: auths,
    tag: 'v2 auths',
    summary: "List a company's auths",
    input: authListQuery,
    success: { status: 200, schema: authListResponse },
  },
  {
    method: 'post',
    path: auths,
    tag: 'v2 auths',
    summary: 'Create an auth (the v1 channel variants, JSON; phone_number is phone)',
    errors: [409],
    input: channelCreate,
    success: { status: 201, schema: authResponse },
  },
  {
    method: 'get',
    path: `${auths}/:id`,
    tag: 'v2 auths',
    summary: 'Show an auth',
    input: authActionBody,
    success: { status: 200, schema: authResponse },
  },
  {
    method: 'delete',
    path: `${auths}/:id`,
    tag: 'v2 auths',
    summary: 'Delete an auth',
    input: authActionBody,
    success: { status: 200, schema: authResponse },
  },
  {
    method: 'post',
    path: `${auths}/:id/confirm`,
    tag: 'v2 auths',
    summary: 'Start confirming an auth (QR, code or OAuth)',
    errors: [409, 502, 503],
    input: authActionBody,
    success: { status: 200, schema: authResponse },
  },
  ...(['put', 'patch'] as const).flatMap((method): Operation[] => [
    {
      method,
      path: `${auths}/:id/enable`,
      tag: 'v2 auths',
      summary: 'Enable an auth (with the code when the provider sent one)',
      errors: [409, 502, 503],
      input: authEnableBody,
      success: { status: 200, schema: authResponse },
    },
    {
      method,
      path: `${auths}/:id/disable`,
      tag: 'v2 auths',
      summary: 'Disable an auth',
      errors: [409],
      input: authActionBody,
      success: { status: 200, schema: authResponse },
    },
  ]),
];
