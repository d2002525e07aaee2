import { errorBody } from '../../schemas/objects/error.js';
import type { EventTypeEntry } from '../../schemas/events/catalog.js';

/** One route as the OpenAPI document describes it. */
export interface Operation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** The router's path, with `:param` segments. */
  path: string;
  summary: string;
  tag: string;
  /** Request parameters: a JSON body (POST/PUT/PATCH) or the query (GET/DELETE; GET also takes them as a JSON body). */
  input?: object;
  /** The file field of a multipart upload; `optional` when the file may come another way (then `input` describes the other fields). */
  multipart?: { field: string; optional?: boolean };
  /** Success status and body schema. */
  success: { status: number; schema?: object; description?: string };
  /** Answers without the private API token (health, documents, files by capability URL, admin token routes). */
  auth?: 'api' | 'none' | 'admin';
  /** Whether the route reads a request body (every API-token route does: the token may be in it). */
  readsBody?: boolean;
  /** Error statuses of this operation beyond the ones every operation of its kind has (errorStatuses). */
  errors?: number[];
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed query string or body',
  401: 'Missing or invalid token or signature',
  403: 'Forbidden',
  404: 'Unknown id, or an id of another account',
  408: 'The request was not received within the server timeouts',
  409: 'Conflict with the current state',
  413: 'Body over the limit',
  414: 'Query string over the limit',
  415: 'Unsupported content type or content encoding',
  422: 'Validation failed: one entry per field',
  429: 'A rate limit was reached: Retry-After says when to try again',
  431: 'Request line and headers over 16 KiB',
  502: 'The provider failed or could not be reached',
  503: 'Unavailable now: the provider connectors are not configured, or the limit of uploads at once is reached',
};

/**
 * Every error status an operation can answer, each in the error shape: those of every request
 * (a malformed or too long query, an unknown id, a client slower than the timeouts, a head over
 * 16 KiB), 401 behind a token, 413 and 415 where a body is read, 422 where input is validated,
 * and the operation's own.
 */
export function errorStatuses(op: Operation): number[] {
  const statuses = new Set([400, 404, 408, 414, 431, ...(op.errors ?? [])]);
  if (op.auth !== 'none') statuses.add(401);
  if (op.auth === undefined || op.auth === 'api' || op.readsBody === true) [413, 415].forEach((s) => statuses.add(s));
  if (op.input !== undefined || op.multipart !== undefined) statuses.add(422);
  return [...statuses].sort((a, b) => a - b);
}

const INTEGER_PARAMS = new Set(['id', 'companyId', 'channelId', 'messageId', 'endpointId']);

/** The router's `:param` path in OpenAPI's `{param}` form. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, '{$1}');
}

/**
 * Builds the OpenAPI 3.1 document from the operations and the schemas they name; `events` (the event
 * catalog) becomes its `webhooks`: what the gateway POSTs to company endpoints.
 */
export function buildOpenApi(
  operations: readonly Operation[],
  info: { version: string; serverUrl: string },
  events: readonly EventTypeEntry[] = [],
) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const item = (paths[openApiPath(op.path)] ??= {});
    item[op.method] = describe(op);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Messaging gateway API',
      version: info.version,
      description:
        'v1 under /p1 (companies, channels) and v2 under /api/p2. Every API route takes the private API token in the ' +
        'X-Private-Api-Token header, the private_api_token query parameter or the private_api_token body field.',
    },
    servers: [{ url: info.serverUrl }],
    components: {
      securitySchemes: {
        privateApiToken: { type: 'apiKey', in: 'header', name: 'X-Private-Api-Token' },
        adminToken: { type: 'http', scheme: 'bearer' },
      },
      schemas: { Errors: clean(errorBody) },
    },
    paths,
    webhooks: Object.fromEntries(events.map((entry) => [entry.name, { post: describeWebhook(entry) }])),
  };
}

/** The Standard Webhooks headers every delivery carries. */
const WEBHOOK_HEADERS = [
  { name: 'webhook-id', description: "The event id (the body's `id`), the same on every retry: deduplicate on it." },
  { name: 'webhook-timestamp', description: 'Unix seconds when this attempt was signed.' },
  {
    name: 'webhook-signature',
    description:
      'Space-separated `v1,<base64 HMAC-SHA256>` over `<webhook-id>.<webhook-timestamp>.<raw body>`, one per valid secret of the endpoint; for an endpoint with `signing_algorithm: ed25519`, `v1a,<base64 ed25519 signature>` over the same text, verified with its `whpk_` public key.',
  },
].map(({ name, description }) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } }));

/** One event type as a webhook of the document: the POST the gateway makes to an endpoint. */
function describeWebhook(entry: EventTypeEntry) {
  return {
    summary: entry.name,
    description: `${entry.description}${entry.filterable ? '' : " Not filterable: sent whatever the endpoint's event_types."}`,
    operationId: `event${entry.name.replace(/(^|[._])(.)/g, (_m, _sep: string, c: string) => c.toUpperCase())}`,
    tags: ['events'],
    parameters: WEBHOOK_HEADERS,
    requestBody: {
      required: true,
      content: { 'application/json': { schema: entry.schema, examples: { [entry.name]: { value: entry.example } } } },
    },
    responses: {
      '2XX': { description: 'Delivered. Any other answer is retried on the schedule; 410 Gone disables the endpoint.' },
    },
  };
}

function describe(op: Operation) {
  const pathParams = [...op.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    // Row ids are positive integers; other segments (delivery and task ids, storage keys, file names) are text.
    schema: INTEGER_PARAMS.has(m[1]!) ? { type: 'integer', minimum: 1 } : { type: 'string' },
  }));
  const bodyMethod = op.method === 'post' || op.method === 'put' || op.method === 'patch';
  const queryParams = !bodyMethod && op.input !== undefined ? queryParameters(op.input) : [];
  const responses: Record<string, unknown> = {
    [String(op.success.status)]: {
      description: op.success.description ?? 'Success',
      ...(op.success.schema === undefined
        ? {}
        : { content: { 'application/json': { schema: clean(op.success.schema) } } }),
    },
  };
  for (const status of errorStatuses(op)) {
    responses[String(status)] = {
      description: ERROR_DESCRIPTIONS[status],
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Errors' } } },
    };
  }
  return {
    tags: [op.tag],
    summary: op.summary,
    operationId: `${op.method}${openApiPath(op.path)
      .replace(/[{}]/g, '')
      .replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
    security: op.auth === 'none' ? [] : op.auth === 'admin' ? [{ adminToken: [] }] : [{ privateApiToken: [] }],
    parameters: [...pathParams, ...queryParams],
    ...(bodyMethod && (op.input !== undefined || op.multipart !== undefined)
      ? { requestBody: { required: true, content: bodyContent(op) } }
      : {}),
    responses,
  };
}

/** JSON and form bodies from `input`; a multipart body with the file field (and `input`'s fields beside an optional file). */
function bodyContent(op: Operation): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  if (op.input !== undefined) {
    content['application/json'] = { schema: clean(op.input) };
    content['application/x-www-form-urlencoded'] = { schema: clean(op.input) };
  }
  if (op.multipart !== undefined) {
    const file = { [op.multipart.field]: { type: 'string', format: 'binary' } };
    const others =
      op.multipart.optional === true && op.input !== undefined
        ? (clean(op.input) as { properties?: object; required?: string[] })
        : {};
    content['multipart/form-data'] = {
      schema: {
        type: 'object',
        required: op.multipart.optional === true ? (others.required ?? []) : [op.multipart.field],
        properties: { ...others.properties, ...file },
      },
    };
  }
  return content;
}

function queryParameters(schema: object) {
  const { properties = {}, required = [] } = schema as { properties?: Record<string, object>; required?: string[] };
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.includes(name),
    ...(isObjectOrArray(property) ? { style: 'deepObject', explode: true } : {}),
    schema: clean(property),
  }));
}

function isObjectOrArray(schema: object): boolean {
  const type = (schema as { type?: unknown }).type;
  return type === 'object' || type === 'array';
}

/** Our schemas as OpenAPI 3.1 wants them: without `$id` (they are inlined); `x-message` stays as an extension. */
function clean(schema: object): object {
  return JSON.parse(JSON.stringify(schema, (key, value: unknown) => (key === '$id' ? undefined : value))) as object;
}
