import { describe, expect, it } from 'vitest';
import type { AttemptToRecord } from '../store/deliveries/delivery-rows.js';
import { endpointDisableRule } from './endpoint-health.js';

const DAY = 86_400_000;

function attempt(outcome: AttemptToRecord['outcome'], startedAt: number): AttemptToRecord {
  return {
    id: 'att_1',
    delivery_id: 'dlv_1',
    company_id: 1,
    endpoint_id: 1,
    number: 1,
    step: 1,
    trigger: 'auto',
    started_at: startedAt,
    duration_ms: 5,
    status_code: outcome === 'gone' ? 410 : 500,
    response_body: null,
    error: null,
    outcome,
    next_attempt_at: null,
  };
}

describe('endpointDisableRule', () => {
  const rule = endpointDisableRule(5 * DAY);

  it('disables at once on 410 Gone, with or without a failure streak', () => {
    expect(rule(attempt('gone', 1_000), null)).toBe('the endpoint answered 410 Gone');
    expect(rule(attempt('gone', 1_000), 900)).toBe('the endpoint answered 410 Gone');
  });

  it('disables once the streak reaches the limit, not a millisecond before', () => {
    expect(rule(attempt('retry', 5 * DAY - 1), 0)).toBeNull();
    expect(rule(attempt('retry', 5 * DAY), 0)).toBe('no successful delivery for 5 days');
    expect(rule(attempt('failed', 6 * DAY), 0)).toBe('no successful delivery for 5 days');
  });

  it('keeps an endpoint without a recorded streak', () => {
    expect(rule(attempt('failed', 100 * DAY), null)).toBeNull();
  });

  it('names the limit in days to one decimal', () => {
    expect(endpointDisableRule(DAY / 2)(attempt('retry', DAY), 0)).toBe('no successful delivery for 0.5 days');
  });
});
