import type { Migration } from './migration.js';
import { foundation } from './001-foundation.js';
import { messaging } from './002-messaging.js';
import { pipeline } from './003-pipeline.js';
import { callbacks } from './004-callbacks.js';
import { retrySchedule } from './005-retry-schedule.js';
import { earlyStatuses } from './006-early-statuses.js';
import { streamLog } from './007-stream-log.js';
import { conversationIndexes } from './008-conversation-indexes.js';
import { webFaces } from './009-web-faces.js';
import { traceContext } from './010-trace-context.js';
import { v1Jobs } from './011-v1-jobs.js';
import { authPages } from './012-auth-pages.js';
import { idempotencyKeys } from './013-idempotency-keys.js';
import { deliveryOrder } from './014-delivery-order.js';
import { deliveryKeys } from './015-delivery-keys.js';
import { secretsAndTokens } from './016-secrets-and-tokens.js';
import { directory } from './017-directory.js';
import { conversationNotes } from './018-conversation-notes.js';
import { endpointFilters } from './019-endpoint-filters.js';
import { endpointRetrySchedules } from './020-endpoint-retry-schedules.js';
import { companyEvents } from './021-company-events.js';
import { conversationParticipants } from './022-conversation-participants.js';
import { unreadCounts } from './023-unread-counts.js';
import { messageRetention } from './024-message-retention.js';
import { endpointDestinations } from './025-endpoint-destinations.js';

/**
 * Versioned schema changes, applied in order at start: one module per version. Append only: a
 * released migration is never edited, a change is a new entry. Times are unix milliseconds.
 */
export const MIGRATIONS: readonly Migration[] = [
  foundation,
  messaging,
  pipeline,
  callbacks,
  retrySchedule,
  earlyStatuses,
  streamLog,
  conversationIndexes,
  webFaces,
  traceContext,
  v1Jobs,
  authPages,
  idempotencyKeys,
  deliveryOrder,
  deliveryKeys,
  secretsAndTokens,
  directory,
  conversationNotes,
  endpointFilters,
  endpointRetrySchedules,
  companyEvents,
  conversationParticipants,
  unreadCounts,
  messageRetention,
  endpointDestinations,
];
