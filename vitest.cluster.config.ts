// The black-box tests again, against a 3-shard cluster on the real broker (test/helpers/test-cluster.ts):
// `npm run test:cluster`, part of `npm test`. startTestGateway starts the cluster, whose front
// answers what one daemon answers. A cluster has no single store, data dir or daemon object, and a
// test that reads one throws there, so only files that assert through HTTP alone are listed.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/** Run against the cluster: every assertion through HTTP, webhooks and logs. */
export const CLUSTER_FILES = [
  'test/http/errors.test.ts',
  'test/pipeline/api-e2e.test.ts',
  'test/compat/auths-v2.test.ts',
  'test/api/company-list.test.ts',
  'test/api/channels-list.test.ts',
  'test/api/auths-read.test.ts',
  'test/api/attachments-files.test.ts',
  'test/ingest/cloud-messages.test.ts',
  'test/ingest/cloud-statuses.test.ts',
  'test/ingest/cloud-secrets.test.ts',
  'test/ingest/bot.test.ts',
  'test/ingest/connector-messages.test.ts',
  'test/ingest/connector-connection.test.ts',
  'test/ingest/callback-bodies.test.ts',
  'test/api/webhook-endpoints-compat.test.ts',
  'test/connectors/flows-v2.test.ts',
  'test/connectors/sandbox.test.ts',
  'test/http/api-tokens.test.ts',
  'test/api/webhook-filters.test.ts',
  'test/ingest/provider-values.test.ts',
  'test/security/cross-account-walk.test.ts',
  'test/web/portal-endpoint-options.test.ts',
  'test/web/portal-live-browser.test.ts',
  'test/web/portal-browser.test.ts',
  'test/web/portal-isolation.test.ts',
  'test/web/portal-links.test.ts',
  'test/web/console-browser.test.ts',
  'test/web/console-endpoint-options.test.ts',
  'test/web/console-session.test.ts',
  'test/api/companies-create.test.ts',
  'test/api/companies-update.test.ts',
  'test/api/companies-access.test.ts',
  'test/api/templates.test.ts',
  'test/api/openapi.test.ts',
];

/**
 * The API, callback, pipeline, console and portal files that stay single-daemon-only, each with why. Making one
 * black-box (its assertions through the API, equally strict) moves it to CLUSTER_FILES.
 */
export const SINGLE_DAEMON_ONLY: Record<string, string> = {
  'test/api/attachment-upload.test.ts':
    'proves a refused upload leaves no row and no file: reads the store and data dir',
  'test/api/attachments-upload.test.ts': 'counts the attachment rows and the files in the data dir after a refusal',
  'test/api/attachments-store.test.ts': 'reads the attachment rows and the files under the data dir',
  'test/api/auths-create.test.ts':
    'reads the outbox (the create events, the secret sweep) and the channel rows a refused create leaves as they were',
  'test/api/auths-state.test.ts':
    'reads the stored state and deleted_at, and the outbox rows of the update and delete events',
  'test/api/auths-events.test.ts': 'reads the stored credentials and the outbox: refusals write no event',
  'test/api/auths-access.test.ts': 'reads the channel rows and counts the outbox: a refusal stores and emits nothing',
  'test/api/channels-create.test.ts': 'reads the stored channel rows (credentials) of every accepted variant',
  'test/api/channels-create-validation.test.ts': 'proves a refused create stores no channel row',
  'test/api/channels-update-delete.test.ts':
    'reads the stored credentials after PUT, the state and deleted_at after DELETE',
  'test/api/channels-refusals.test.ts': 'proves refusals change no stored channel row, credentials included',
  'test/api/channels-secrets.test.ts': 'reads the stored credentials and settings no API shows',
  'test/api/conversations.test.ts': 'seeds conversations through the store and reads the events it emitted',
  'test/api/event-stream.test.ts':
    'records events through the store (the front is tested in test/front/front-event-stream.test.ts)',
  'test/api/event-stream-callbacks.test.ts':
    "reads the emitted events and the outbox rows in the store, and the paused stream's counters in the daemon",
  'test/api/event-types.test.ts': 'reads every emitted event from the store, webhooks not sent included',
  'test/api/messages.test.ts': 'seeds through the store; reads outbound jobs and emitted events',
  'test/api/webhooks-create.test.ts':
    'proves the secret shown is the one stored and that refused creates store no endpoint row, secrets included',
  'test/api/webhooks-company-url.test.ts':
    'reads the endpoint rows the v1 webhook_url mirrors (their secret is never shown) and proves refusals change no row',
  'test/api/webhooks-update-delete-rotate.test.ts':
    'writes a private url the API refuses straight into the store; reads the signing secrets of a rotation over time',
  'test/api/webhooks-access.test.ts': "proves a 401 or another account's 404 changes no endpoint row, secrets included",
  'test/api/write-first.test.ts': 'enables channels and seeds templates through the store',
  'test/http/auth.test.ts':
    "walks the daemon's router, reads a core's /healthz body and the token digests in the store (the rest: api-tokens.test.ts)",
  'test/http/idempotency.test.ts': 'reads and ages the idempotency rows in the store',
  'test/http/limits.test.ts':
    "opens raw sockets to the daemon's port; counts rows and the data dir's part files; waits for a cut callback on the core's metrics",
  'test/http/rate-limits.test.ts': 'a cluster counts rate limits per core (docs/scaling.md); reads the store',
  'test/ingest/apply-callback.test.ts':
    "calls applyCallback on the daemon's store and stubs its repositories to prove one transaction, all or nothing",
  'test/ingest/callback-settings.test.ts':
    "deletes and counts channel_callbacks rows; reads a channel's own app secret, which no API shows",
  'test/ingest/channel-cache.test.ts': "the daemon's channel cache and its log line: reads and writes the store",
  'test/ingest/written-rows.test.ts':
    "asserts the rows a callback writes that no API shows: receipts and the provider's media reference",
  'test/pipeline/operational-events.test.ts': 'reads emitted events and changes an endpoint through the store',
  'test/compat/messages-v2.test.ts': 'reads and backdates message rows in the store',
  'test/compat/message-actions.test.ts': 'reads message rows and counts the outbound jobs in the store',
  'test/compat/read-state.test.ts': 'reads the outbound jobs, emitted events and channel settings in the store',
  'test/connectors/message-actions.test.ts': 'seeds messages through the store and counts its outbound jobs',
  'test/ingest/message-changes.test.ts': 'asserts the rows each callback writes',
  'test/connectors/compat-v1-channels.test.ts':
    'reads the message rows of the v1 jobs and the secret the webhook_url is signed with',
  'test/connectors/compat-v1-webhooks.test.ts':
    'counts the outbox and reads the webhook_url endpoint, conversation and message rows in the store',
  'test/connectors/flows-v1-session-start.test.ts': 'reads the emitted events and the stored channel state',
  'test/connectors/flows-v1-enable.test.ts': 'reads the stored channel state and counts the emitted events',
  'test/connectors/flows-v1-write-first.test.ts':
    'reads the v1 jobs, message rows, synced templates and emitted events in the store',
  'test/connectors/send-cloud.test.ts': 'reads and seeds messages and early statuses through the store',
  'test/connectors/send-bot-and-connector.test.ts': 'reads and seeds messages through the store',
  'test/dispatch/delivery-dispatcher.test.ts': 'moves a ManualClock through the retry schedule',
  'test/dispatch/delivery-scheduled-retries.test.ts': 'moves a ManualClock through the retry schedule',
  'test/dispatch/delivery-order.test.ts': 'moves a ManualClock through the retry schedule',
  'test/dispatch/endpoint-retry-schedule.test.ts': 'moves a ManualClock through the retry schedule',
  'test/dispatch/ed25519-signatures.test.ts':
    'reads the rotated private key from the store to prove it is never answered',
  'test/admin/admin.test.ts': 'moves a ManualClock through the retry schedule',
  'test/admin/operator-actions.test.ts': 'moves a ManualClock through the retry schedule',
  'test/web/console-session-store.test.ts':
    'reads the session rows (a digest only), ages a session and changes the admin token it was opened with in the store; counts the console sessions a throttled daemon keeps',
  'test/web/portal-link-rows.test.ts':
    'reads the link rows (a digest only), ages a link and deletes a company under a live session in the store: no API shows a link row or deletes a company',
};

// Spread, not mergeConfig: that would add the base's include to this one.
export default defineConfig({
  ...base,
  test: { ...base.test, include: CLUSTER_FILES, env: { GATEWAY_TEST_TARGET: 'cluster' } },
});
