/** An event's id: the `webhook-id` header of each of its deliveries, the same across redeliveries. */
export const eventId = { type: 'string', pattern: '^evt_[0-9a-f]{32}$' } as const;

/** Unix seconds, which the v1 payloads carry beside their times. */
export const unixSeconds = { type: 'integer', minimum: 0 } as const;

/** `2017-11-11 12:45:53 UTC`, as the v1 pages write times. */
export const v1Time = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} UTC$' } as const;
