import type { IncomingMessage } from 'node:http';
import getRawBody from 'raw-body';
import { discardRest } from '../http/body.js';
import { BadRequest, PayloadTooLarge } from '../http/errors.js';


/**
 * Reads the request body as bytes, at most `limit` of them, without parsing it: callbacks are
 * verified over exactly what the provider sent. Too large: 413, after reading and dropping the rest
 * for a while so that the sender gets to read the answer.
 */
export async function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const length = req.headers['content-length'];
  try {
    return await getRawBody(req, { limit, length: length === undefined ? undefined : Number(length) });
  } catch (error) {
    const { type } = error as { type?: string };
    if (type === 'entity.too.large') {
      discardRest(req);
      throw new PayloadTooLarge(`The callback body is larger than ${limit} bytes.`);
    }
    throw new BadRequest('The callback body could not be read completely.');
  }
}

