/**
 * Reading one environment variable into a typed setting. Every reader pushes a line naming the
 * variable onto `problems` when the value is bad and returns the default, so that a bad start
 * names every bad key at once.
 */

/** An environment variable's trimmed value; undefined when unset or blank. */
export type ReadSetting = (key: string) => string | undefined;

export const MIN_TOKEN_LENGTH = 16;

/** An absolute http(s) URL without query or fragment. */
export const BASE_URL_PATTERN = /^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/;

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration such as `500ms`, `5s`, `5m`, `2h`, `5d`, or a bare number of milliseconds; null when unreadable. */
export function parseDuration(text: string): number | null {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!match) return null;
  return Math.round(Number(match[1]) * DURATION_UNITS[match[2] ?? 'ms']!);
}

/** A non-negative integer; `fallback` when unset, null when unreadable. */
export function parseInteger(text: string | undefined, fallback: number): number | null {
  if (text === undefined) return fallback;
  return /^\d+$/.test(text) ? Number(text) : null;
}

/** The non-empty, trimmed items of a comma-separated list. */
export function splitList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Long enough to resist guessing, and without spaces that a shell or header would mangle. */
export function isTokenShaped(token: string): boolean {
  return token.length >= MIN_TOKEN_LENGTH && !/\s/.test(token);
}

/** Typed readers over one environment, each reporting its bad values onto `problems`. */
export interface SettingReaders {
  /** A duration of at least `min` ms; `examples` shows the reader what to write. */
  duration(key: string, fallback: number, min: number, examples: string): number;
  /** An integer from `min` to `max`. */
  integer(key: string, fallback: number, min: number, max: number): number;
  /** An absolute http(s) base URL, its trailing slashes dropped; null when unset or bad. */
  baseUrl(key: string): string | null;
}

export function settingReaders(read: ReadSetting, problems: string[]): SettingReaders {
  return {
    duration(key, fallback, min, examples) {
      const text = read(key);
      const value = text === undefined ? fallback : parseDuration(text);
      if (value === null || value < min) {
        problems.push(`${key} must be a duration of at least ${min} ms, such as ${examples} (got "${text}")`);
        return fallback;
      }
      return value;
    },
    integer(key, fallback, min, max) {
      const value = parseInteger(read(key), fallback);
      if (value === null || value < min || value > max) {
        problems.push(`${key} must be an integer from ${min} to ${max} (got "${read(key)}")`);
        return fallback;
      }
      return value;
    },
    baseUrl(key) {
      const text = read(key);
      if (text === undefined) return null;
      if (!BASE_URL_PATTERN.test(text)) {
        problems.push(`${key} must be an absolute http(s) URL without query (got "${text}")`);
        return null;
      }
      return text.replace(/\/+$/, '');
    },
  };
}
