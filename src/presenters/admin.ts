import type { ApiTokenRow } from '../store/resources/accounts.js';
import type { AttemptRow, DeliveryRow } from '../store/deliveries/delivery-rows.js';
import type { EndpointFilter } from '../../schemas/objects/endpoint-filter.js';
import type { EndpointHealthRow } from '../store/deliveries/delivery-search.js';
import type { ReplayTaskRow } from '../store/deliveries/replay-tasks.js';
import { presentDestination } from './destination.js';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** An API token as operators see it: its id and prefix, never the token. */
export function presentApiToken(row: ApiTokenRow) {
  return {
    id: row.id,
    account_id: row.account_id,
    account_name: row.account_name,
    prefix: row.prefix,
    state: row.revoked_at === null ? 'active' : 'revoked',
    created_at: iso(row.created_at),
    last_used_at: iso(row.last_used_at),
    revoked_at: iso(row.revoked_at),
  };
}

export function presentDelivery(row: DeliveryRow) {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_name,
    company_id: row.company_id,
    endpoint_id: row.endpoint_id,
    // A held delivery is pending in the store; operators see it held, with why.
    status: row.status === 'pending' && row.held_reason !== null ? 'held' : row.status,
    held_reason: row.status === 'pending' ? row.held_reason : null,
    attempt_count: row.attempt_count,
    next_attempt_at: iso(row.next_attempt_at),
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function presentAttempt(row: AttemptRow) {
  return {
    id: row.id,
    number: row.number,
    trigger: row.trigger,
    started_at: iso(row.started_at),
    duration_ms: row.duration_ms,
    status_code: row.status_code,
    response_body: row.response_body,
    error: row.error,
    outcome: row.outcome,
  };
}

export function presentEndpointHealth(row: EndpointHealthRow) {
  return {
    endpoint_id: row.id,
    type: row.type,
    url: row.url,
    active: row.active === 1,
    disabled_reason: row.disabled_reason,
    disabled_since: iso(row.disabled_at),
    last_success_at: iso(row.last_success_at),
    last_failure_at: iso(row.last_failure_at),
    failing_since: iso(row.failing_since),
    consecutive_failures: row.consecutive_failures ?? 0,
    ordering: row.ordering,
    rate_limit: row.rate_limit,
    retry_schedule: row.retry_schedule === null ? null : (JSON.parse(row.retry_schedule) as number[]),
    filter: row.filter === null ? null : (JSON.parse(row.filter) as EndpointFilter),
    held: row.held,
  };
}

/** An endpoint as the admin API answers it: its health and, for a broker, its settings without credentials. */
export function presentAdminEndpoint(row: EndpointHealthRow) {
  return { ...presentEndpointHealth(row), ...presentDestination(row) };
}

export function presentReplayTask(row: ReplayTaskRow) {
  return {
    id: row.id,
    status: row.status,
    filter: JSON.parse(row.filter) as unknown,
    total: row.total,
    enqueued: row.enqueued,
    error: row.error,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
