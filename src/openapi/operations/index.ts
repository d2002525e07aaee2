import type { Operation } from '../document.js';
import { adminOperations } from './admin.js';
import { callbackOperations } from './callbacks.js';
import { serviceOperations } from './service.js';
import { v1Operations } from './v1.js';
import { authOperations } from './v2-auths.js';
import { companyAndCatalogOperations } from './v2-company-and-catalogs.js';
import { v2MessagingOperations } from './v2-messaging.js';
import { webhookEndpointOperations } from './v2-webhooks.js';

/** Routes taking the admin token answer 429 while the client's address waits after wrong ones (src/http/auth-throttle.ts). */
const throttled = (op: Operation): Operation => ({ ...op, errors: [...new Set([...(op.errors ?? []), 429])] });

/** Every route of the API; test/api/openapi.test.ts fails when a registered route is missing here. */
export const OPERATIONS: readonly Operation[] = [
  ...serviceOperations.map((op) => (op.path === '/metrics' ? throttled(op) : op)),
  ...v1Operations,
  ...v2MessagingOperations,
  ...authOperations,
  ...webhookEndpointOperations,
  ...companyAndCatalogOperations,
  ...callbackOperations,
  ...adminOperations.map(throttled),
];
