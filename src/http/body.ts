import type { IncomingMessage } from 'node:http';
import { bodyParser } from '@koa/bodyparser';
import type { Middleware } from 'koa';
import type { AppState } from './context.js';
import { UnsupportedMediaType } from '../errors/errors.js';

const BODY_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE', 'GET'];

/**
 * Parses JSON and form bodies (form fields with bracket nesting such as `template[id]` become
 * objects and arrays). GET accepts a JSON body too, as the contract's samples send one. A body of
 * another media type is refused rather than silently ignored.
 */
export function parseBody(limitBytes: number): Middleware<AppState> {
  const parse = bodyParser({
    enableTypes: ['json', 'form'],
    parsedMethods: BODY_METHODS,
    jsonLimit: limitBytes,
    formLimit: limitBytes,
    encoding: 'utf-8',
  });
  return async (ctx, next) => {
    if (ctx.request.body === undefined && hasBody(ctx) && !ctx.request.is('json', 'urlencoded')) {
      throw new UnsupportedMediaType(`Unsupported content type "${ctx.get('content-type')}".`);
    }
    return parse(ctx, next);
  };
}

function hasBody(ctx: { get(name: string): string }): boolean {
  const length = ctx.get('content-length');
  return (length !== '' && length !== '0') || ctx.get('transfer-encoding') !== '';
}

/** How long a refused upload may go on being read and dropped before the connection is cut. */
const DISCARD_MS = 10_000;

/**
 * Reads and drops what the client still sends after a refusal (too large, not wanted), so that it
 * gets to read the answer; closing at once would reset the connection under it. A client still
 * sending after a while is cut off.
 */
export function discardRest(req: IncomingMessage): void {
  if (req.complete) return;
  const cutOff = setTimeout(() => req.destroy(), DISCARD_MS).unref();
  req.once('end', () => clearTimeout(cutOff));
  req.once('close', () => clearTimeout(cutOff));
  req.resume();
}
