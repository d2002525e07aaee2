import type { IncomingMessage } from 'node:http';
import { RequestTimeout } from '../errors/errors.js';

/** How long a refused upload may go on being read and dropped before the connection is cut. */
const DISCARD_MS = 10_000;

/**
 * Reads and drops what the client still sends after a refusal (too large, not wanted, too slow), so
 * that it gets to read the answer; closing at once would reset the connection under it. A client
 * still sending after a while is cut off.
 */
export function discardRest(req: IncomingMessage): void {
  if (req.complete) return;
  const cutOff = setTimeout(() => req.destroy(), DISCARD_MS).unref();
  req.once('end', () => clearTimeout(cutOff));
  req.once('close', () => clearTimeout(cutOff));
  req.resume();
}

/**
 * The body's own deadline (GATEWAY_BODY_TIMEOUT): a body not read completely within `timeoutMs`
 * of the start of its reading is a 408 `request_timeout`, and what the client still sends is
 * dropped (discardRest). A client trickling bytes so holds nothing for long, whatever the
 * server's request timeout. No deadline when `timeoutMs` is undefined, nor for a body that has
 * all arrived already (`req.complete`): the deadline is for slow clients, and such a body waits on
 * nothing the client does. That is most callbacks, whose body comes with their headers.
 */
export async function withinBodyDeadline<T>(
  req: IncomingMessage,
  timeoutMs: number | undefined,
  reading: Promise<T>,
): Promise<T> {
  if (timeoutMs === undefined || req.complete) return reading;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(bodyTimedOut(timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([reading, late]);
  } catch (error) {
    if (error instanceof RequestTimeout) {
      reading.catch(() => undefined); // settles later, or never: nobody waits for it now
      discardRest(req);
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

export function bodyTimedOut(timeoutMs: number): RequestTimeout {
  return new RequestTimeout(`The request body did not arrive within ${timeoutMs} ms (GATEWAY_BODY_TIMEOUT).`);
}
