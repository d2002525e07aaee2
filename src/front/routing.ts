/**
 * Where the front sends a request, from its method and path alone (docs/scaling.md, "The front").
 * Integer company and channel ids carry their shard (src/lib/shards.ts), so a path that names one is
 * routed by arithmetic; the other routes say how the front finds the owner (the company in the
 * request's input, a fan-out, a merge of every shard's list) without a lookup table.
 */
import { shardOfId } from '../lib/shards.js';

/** The account-wide lists the front merges from every shard's answer (src/front/merge.ts). */
export type MergedList = 'companies' | 'auths' | 'templates' | 'deliveries';

/** The admin answers the front builds from every shard's: the pipeline's processes, the API tokens' last use. */
export type ClusterView = 'pipeline' | 'tokens';

export type Route =
  /** The shard of an integer company or channel id in the path. */
  | { kind: 'id'; id: number }
  /** The shard of `company_id` in the request's input: the body for POST/PUT/PATCH, else the query with a JSON body over it. */
  | { kind: 'input'; required?: string }
  /** POST /api/p2/attachments: `company_id` in the body, read from a multipart upload as it streams. */
  | { kind: 'upload' }
  /** Any live shard: the answer is the same everywhere (pages, the OpenAPI document, an unknown path). */
  | { kind: 'any' }
  /** The lowest-numbered live shard, always the same one while it lives (console sessions). */
  | { kind: 'home' }
  /** POST /p1/companies: a live shard in turn, so new companies spread over the live shards. */
  | { kind: 'create' }
  /** Every shard; the first answer in shard order that is not "not here" (404, 401, a redirect to a login). */
  | { kind: 'first' }
  /** Every shard's page of an account-wide list, merged. */
  | { kind: 'list'; list: MergedList }
  /** A view of the whole cluster: every live shard's answer combined (src/front/pipeline-view.ts, token-view.ts). */
  | { kind: 'view'; view: ClusterView }
  /** The front's own answers. */
  | { kind: 'healthz' }
  | { kind: 'metrics' };

const ID_SEGMENT = /^[1-9][0-9]{0,15}$/;

/** A path segment that is an integer id (after percent-decoding, as the cores' router decodes it), else null. */
export function idOfSegment(segment: string | undefined): number | null {
  if (segment === undefined) return null;
  let text: string;
  try {
    text = decodeURIComponent(segment);
  } catch {
    return null;
  }
  if (!ID_SEGMENT.test(text)) return null;
  const id = Number(text);
  return Number.isSafeInteger(id) ? id : null;
}

/** An id-owned route, or `any` (the shard that gets it answers the contract's 404 or 422) when the segment is no id. */
function byId(segment: string | undefined): Route {
  const id = idOfSegment(segment);
  return id === null ? { kind: 'any' } : { kind: 'id', id };
}

/** How the front routes `method` `pathname` (the path without its query). */
export function routeOf(method: string, pathname: string): Route {
  const m = method.toUpperCase();
  const read = m === 'GET' || m === 'HEAD';
  const parts = pathname.split('/').slice(1);
  const [first, second, third, fourth] = parts;
  switch (first) {
    case 'healthz':
      return parts.length === 1 ? { kind: 'healthz' } : { kind: 'any' };
    case 'metrics':
      return parts.length === 1 ? { kind: 'metrics' } : { kind: 'any' };
    case 'callbacks':
      // /callbacks/:provider/:channelId, …/oauth: the channel id carries the shard.
      return byId(third);
    case 'p1':
      if (second !== 'companies') return { kind: 'any' };
      if (parts.length === 2)
        return read ? { kind: 'list', list: 'companies' } : m === 'POST' ? { kind: 'create' } : { kind: 'any' };
      return byId(third);
    case 'api':
      if (second !== 'p2') return { kind: 'any' };
      switch (third) {
        case 'companies':
          return byId(fourth);
        case 'auths':
          return parts.length === 3 && read ? { kind: 'list', list: 'auths' } : { kind: 'any' };
        case 'biz_templates':
          return parts.length === 3 && read ? { kind: 'list', list: 'templates' } : { kind: 'any' };
        case 'attachments':
          return parts.length === 3 && m === 'POST' ? { kind: 'upload' } : { kind: 'input' };
        case 'conversations':
        case 'messages':
          return { kind: 'input' };
        default:
          return { kind: 'any' };
      }
    case 'admin':
      switch (second) {
        case 'companies':
        case 'channels':
          return byId(third);
        case 'sandbox':
          return third === 'channels' ? byId(fourth) : { kind: 'any' };
        case 'deliveries':
          // The list merges (or goes to the shard of its company_id); one delivery is found by asking every shard.
          return parts.length === 2 && read ? { kind: 'list', list: 'deliveries' } : { kind: 'first' };
        case 'replays':
          // A bulk replay runs on the shard of its company; a task is found by asking every shard.
          return parts.length === 2 && m === 'POST'
            ? { kind: 'input', required: 'a bulk replay through the front names its company_id' }
            : { kind: 'first' };
        case 'pipeline':
        case 'tokens':
          return parts.length === 2 && read ? { kind: 'view', view: second } : { kind: 'any' };
        default:
          return { kind: 'any' };
      }
    case 'files':
      // /files/:storageKey/:fileName: the key carries no shard, the shard that stored it answers.
      return { kind: 'first' };
    case 'console':
      // The console's session lives in the store of the shard that opened it: always the same one.
      return second === 'assets' || second === 'login' ? { kind: 'any' } : { kind: 'home' };
    case 'portal':
      // A portal link and its session live on the company's shard, which their tokens do not name.
      return second === 'assets' || second === 'enter' ? { kind: 'any' } : { kind: 'first' };
    default:
      return { kind: 'any' };
  }
}

/** The shard of an id route, or null when the id's shard is not one the cluster runs (the id exists nowhere). */
export function shardOfRoute(id: number, slots: number, shards: number): number | null {
  const shard = shardOfId(id, slots);
  return shard < shards ? shard : null;
}

/** Answers a shard gives that mean "not mine" when every shard is asked (a fan-out): not found, no such session, a redirect to a login. */
export function notHere(status: number): boolean {
  return status === 404 || status === 401 || (status >= 300 && status < 400);
}

/**
 * A live event stream (GET /api/p2/companies/:id/events/stream, GET /portal/api/events/stream): an
 * answer that lasts as long as its client, sent on as it comes on a connection of its own.
 */
export function isEventStream(method: string, pathname: string): boolean {
  return (
    method.toUpperCase() === 'GET' && /^\/(?:api\/p2\/companies\/[^/]+|portal\/api)\/events\/stream$/.test(pathname)
  );
}
