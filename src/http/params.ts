import { NotFound } from '../errors/errors.js';

/** An id from the path; anything that is not a positive integer is a resource that does not exist. */
export function pathId(value: string | undefined, what: string): number {
  const id = /^[1-9][0-9]{0,15}$/.test(value ?? '') ? Number(value) : NaN;
  if (!Number.isSafeInteger(id)) throw new NotFound(`${what} ${value ?? ''} was not found.`);
  return id;
}

/** Optional text fields: an empty string (all a form can send) or null clears the value. */
export function textOrNull(value: string | null | undefined): string | null | undefined {
  return value === '' ? null : value;
}
