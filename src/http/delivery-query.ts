import { ValidationFailed } from '../errors/errors.js';
import type { DeliveryFilter, DeliveryFilterStatus } from '../store/deliveries/delivery-search.js';

/** A delivery filter as the admin API and the portal read it (times as ISO 8601 date-times). */
export interface DeliveryFilterInput {
  company_id?: number;
  endpoint_id?: number;
  status?: DeliveryFilterStatus;
  event_type?: string;
  event_id?: string;
  since?: string;
  until?: string;
}

/** The store's filter of validated input; since after until is a 422 on `since`. */
export function toDeliveryFilter(input: DeliveryFilterInput): DeliveryFilter {
  const since = input.since === undefined ? undefined : Date.parse(input.since);
  const until = input.until === undefined ? undefined : Date.parse(input.until);
  if (since !== undefined && until !== undefined && since > until)
    throw ValidationFailed.field('since', 'since must not be after until');
  return {
    company_id: input.company_id,
    endpoint_id: input.endpoint_id,
    status: input.status,
    event_type: input.event_type,
    event_id: input.event_id,
    since,
    until,
  };
}
