import { randomFillSync } from 'node:crypto';

/** Random bytes are drawn 4 KiB at a time: one system call for hundreds of ids. */
const pool = Buffer.alloc(4096);
let offset = pool.length;

function randomHex(bytes: number): string {
  if (offset + bytes > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return hex;
}

/**
 * `<prefix><12 hex digits of the unix ms><2 × randomBytes hex digits>`: as unique and as opaque as
 * a random id, but ids made close in time sort close together, so that the inserts of a busy table
 * (deliveries, attempts, events) go to the same few pages of its key's B-tree instead of one random
 * page each, which is what a commit then writes to the WAL.
 */
export function timeOrderedId(prefix: string, randomBytes: number, now = Date.now()): string {
  return prefix + now.toString(16).padStart(12, '0') + randomHex(randomBytes);
}
