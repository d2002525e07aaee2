const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;
const UNIX_SECONDS = /^\d{1,12}$/;

/**
 * Reads a timestamp given as ISO 8601 (date, or date and time; no zone means UTC) or as unix
 * seconds, the two forms clients send. Undefined when it is neither.
 */
export function parseTimestamp(value: string | number): Date | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 ? new Date(value * 1000) : undefined;
  const text = value.trim();
  if (UNIX_SECONDS.test(text)) return new Date(Number(text) * 1000);
  if (!ISO_8601.test(text)) return undefined;
  const hasZone = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(text) && text.length > 10;
  const date = new Date(hasZone || text.length === 10 ? text : `${text}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** The instant one calendar month before `now`. */
export function oneMonthBefore(now: Date): Date {
  const then = new Date(now.getTime());
  then.setUTCMonth(then.getUTCMonth() - 1);
  return then;
}

export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}
