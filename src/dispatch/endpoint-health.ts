import type { DisableRule } from '../store/deliveries/delivery-rows.js';

const DAY_MS = 86_400_000;

/**
 * When the gateway disables a webhook endpoint on its own: at once when it answers 410 Gone, and
 * when it has not had a single success for `disableAfterMs` since its failures began (5 days by
 * default, GATEWAY_WEBHOOK_DISABLE_AFTER). The store records the reason and the time.
 */
export function endpointDisableRule(disableAfterMs: number): DisableRule {
  const days = Math.round((disableAfterMs / DAY_MS) * 10) / 10;
  return (attempt, failingSince) => {
    if (attempt.outcome === 'gone') return 'the endpoint answered 410 Gone';
    if (failingSince !== null && attempt.started_at - failingSince >= disableAfterMs)
      return `no successful delivery for ${days} days`;
    return null;
  };
}
