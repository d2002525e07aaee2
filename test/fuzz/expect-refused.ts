/**
 * The checks every fuzz test makes of a refused request: a documented 4xx, in the contract's error
 * shape, leaving the store and the data dir as they were.
 */
import { expect } from 'vitest';
import type { FuzzWorld } from './fuzz-gateway.js';
import { describe, send, type FuzzAnswer, type FuzzRequest } from './send.js';
import { snapshot } from './snapshot.js';

/**
 * The property every fuzzed request keeps: a 4xx among the statuses its operation documents, in
 * the contract's error shape, and the store and the data dir exactly as they were.
 */
export async function expectRefusedLeavingNothing(
  world: FuzzWorld,
  request: FuzzRequest,
  documented: readonly number[],
): Promise<FuzzAnswer> {
  const before = snapshot(world);
  const answer = await send(world, request);
  const context = `${answer.status} ${answer.text.slice(0, 400)}\n  for ${describe(request)}`;
  expect(answer.status >= 400 && answer.status < 500, `a 4xx: ${context}`).toBe(true);
  expect(documented, `a documented status: ${context}`).toContain(answer.status);
  expectErrorBody(answer, context);
  expect(snapshot(world), `nothing stored or changed: ${context}`).toEqual(before);
  return answer;
}

/** `{errors: [{status, code, title, detail, source?}]}` with the answer's status in every entry. */
export function expectErrorBody(answer: FuzzAnswer, context: string): void {
  const errors = (answer.body as { errors?: unknown } | undefined)?.errors;
  expect(Array.isArray(errors) && errors.length > 0, `the error shape: ${context}`).toBe(true);
  for (const entry of errors as Record<string, unknown>[]) {
    expect(
      Object.keys(entry)
        .filter((k) => k !== 'source')
        .sort(),
      `error entry keys: ${context}`,
    ).toEqual(['code', 'detail', 'status', 'title']);
    expect(entry.status, `error entry status: ${context}`).toBe(answer.status);
    expect(
      typeof entry.code === 'string' && typeof entry.title === 'string' && typeof entry.detail === 'string',
      `error entry fields: ${context}`,
    ).toBe(true);
  }
}
