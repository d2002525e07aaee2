const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;
const UNIX_SECONDS = /^\d{1,12}$/;

/**
 * Reads a timestamp given as ISO 8601 (date, or date and time; no zone means UTC) or as unix
 * seconds, the two forms clients send. Undefined when it is neither.
 */
export function parseTimestamp(value: string | number): Date | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 ? validDate(value * 1000) : undefined;
  const text = value.trim();
  if (UNIX_SECONDS.test(text)) return validDate(Number(text) * 1000);
  if (!ISO_8601.test(text) || !isCalendarDate(text)) return undefined;
  const hasZone = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(text) && text.length > 10;
  const date = new Date(hasZone || text.length === 10 ? text : `${text}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** A Date for the instant, or undefined beyond the range Date can hold (±8.64e15 ms). */
function validDate(ms: number): Date | undefined {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** Rejects days a month does not have (2023-02-30), which Date would roll into the next month. */
function isCalendarDate(text: string): boolean {
  const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month - 1);
}

function daysInMonth(year: number, monthIndex: number): number {
  return new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();
}

/**
 * The instant one calendar month before `now`, the day clamped to the end of a shorter month
 * (31 March → 29 February), so the window never shrinks below a month.
 */
export function oneMonthBefore(now: Date): Date {
  const year = now.getUTCFullYear();
  const monthIndex = now.getUTCMonth() - 1;
  const day = Math.min(now.getUTCDate(), daysInMonth(year, monthIndex));
  const then = new Date(now.getTime());
  then.setUTCDate(1);
  then.setUTCMonth(monthIndex);
  then.setUTCDate(day);
  return then;
}

/** The last instant toIso formatted: the presenters of one change format the same `now` several times. */
let lastMs = Number.NaN;
let lastIso = '';

export function toIso(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}

/** Whole unix seconds of an instant (ms since the epoch), as the v1 payloads and answers give times. */
export function unixSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}

/** `2017-11-11 12:45:53 UTC`: how the hosted service's v1 pages write a time. */
export function v1DateTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
