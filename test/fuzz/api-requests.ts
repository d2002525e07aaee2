import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { badJson, badText, deepNesting, plausible, propertiesOf, type Schema } from './bad-values.js';
import { ADMIN_TOKEN, LIMITS, type FuzzRequest, type FuzzWorld } from './fuzz-gateway.js';
import { formText, jsonBreaks, jsonText, textBreaks } from './oracle.js';

/** One operation of /openapi.json, as the fuzz suite reads it. */
export interface DocumentedOperation {
  method: string;
  /** OpenAPI path, `{param}` segments. */
  path: string;
  /** How it authenticates: an API token, the admin token, nothing, or a web session's cookie and CSRF token. */
  security: 'api' | 'admin' | 'none' | 'console' | 'portal';
  statuses: number[];
  /** The query parameters as one object schema (GET and DELETE). */
  query?: Schema;
  /** The JSON (and form) body schema (POST, PUT, PATCH). */
  body?: Schema;
}

interface OpenApiOperation {
  security: Record<string, unknown>[];
  parameters: { name: string; in: string; required: boolean; schema: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, unknown>;
}

/** Every operation of the document, with the statuses it documents. */
export function documentedOperations(document: {
  paths: Record<string, Record<string, OpenApiOperation>>;
}): DocumentedOperation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => {
      const queryParams = op.parameters.filter((p) => p.in === 'query');
      const security = op.security.length === 0 ? 'none' : 'adminToken' in op.security[0]! ? 'admin' : 'api';
      return {
        method: method.toUpperCase(),
        path,
        security,
        statuses: Object.keys(op.responses).map(Number),
        ...(queryParams.length === 0
          ? {}
          : {
              query: {
                type: 'object',
                required: queryParams.filter((p) => p.required).map((p) => p.name),
                properties: Object.fromEntries(queryParams.map((p) => [p.name, p.schema])),
              },
            }),
        ...(op.requestBody?.content['application/json'] === undefined
          ? {}
          : { body: op.requestBody.content['application/json'].schema }),
      };
    }),
  );
}

/** The ids a path parameter takes: account A's (valid) and account B's (foreign: 404 like a missing one). */
function pathIds(world: FuzzWorld, op: DocumentedOperation, param: string): { own: string; foreign?: string } {
  const { own, foreign } = world;
  const admin = op.security === 'admin';
  const pick = (mine: number | string, theirs?: number): { own: string; foreign?: string } => ({
    own: String(mine),
    ...(theirs === undefined || admin ? {} : { foreign: String(theirs) }),
  });
  const [, storageKey, fileName] = new URL(own.attachmentUrl).pathname.split('/').slice(1);
  if (param === 'companyId' || (param === 'id' && op.path === '/p1/companies/{id}'))
    return pick(own.company, foreign.company);
  if (param === 'messageId') return pick(own.message, foreign.message);
  if (op.path.startsWith('/admin/sandbox/')) return { own: String(own.session) };
  if (param === 'channelId') return { own: String(own.cloud), foreign: String(own.chatB) }; // another provider's channel: 404 too
  if (param === 'deliveryId') return { own: 'dlv_missing' };
  if (param === 'taskId') return { own: 'rpl_missing' };
  // Never a token that exists: a request of the suite must not revoke the token it runs with.
  if (param === 'tokenId') return { own: '987654' };
  if (param === 'storageKey') return { own: storageKey! };
  if (param === 'fileName') return { own: fileName! };
  if (op.path.includes('/webhooks/')) return pick(own.webhook, foreign.webhook);
  if (op.path.startsWith('/api/p2/conversations/') || op.path.includes('/conversations/{id}'))
    return pick(own.conversation, foreign.conversation);
  return pick(own.chatB, foreign.chatB); // channels, auths, admin channels
}

const badIds = fc.constantFrom(
  '0',
  '-1',
  '999999',
  '99999999999999999999',
  '9007199254740993',
  '1e3',
  '0x10',
  '01',
  'abc',
  '%00',
  '%ED%A0%80',
  '%ZZ',
  '%20',
  '%F0%9F%99%82',
  '1.0',
  '%E2%80%AE1',
);

/** Path with one parameter broken (unknown, foreign, malformed), or all as they are. */
function pathWith(world: FuzzWorld, op: DocumentedOperation, broken?: { param: string; value: string }): string {
  return op.path.replace(/\{([A-Za-z_]+)\}/g, (_m, param: string) =>
    broken?.param === param ? broken.value : pathIds(world, op, param).own,
  );
}

function paramsOf(op: DocumentedOperation): string[] {
  return [...op.path.matchAll(/\{([A-Za-z_]+)\}/g)].map((m) => m[1]!);
}

/** Valid credentials of the operation's kind. */
function credentials(op: DocumentedOperation, world: FuzzWorld): Record<string, string> {
  if (op.security === 'admin') return { authorization: `Bearer ${ADMIN_TOKEN}` };
  if (op.security === 'api') return { 'x-private-api-token': world.gw.token };
  if (op.security === 'console' || op.security === 'portal') return sessionHeaders(world, op.security);
  return {};
}

function sessionHeaders(world: FuzzWorld, face: 'console' | 'portal'): { cookie: string; 'x-csrf-token': string } {
  const session = world.sessions?.[face];
  if (session === undefined) throw new Error(`the ${face} session was not opened before fuzzing its routes`);
  return { cookie: session.cookie, 'x-csrf-token': session.csrf };
}

/** A plausible input around the one broken field: the required fields, with the company of the path or of account A. */
function baseline(schema: Schema, world: FuzzWorld): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  const properties = propertiesOf(schema);
  for (const name of (schema.required as string[] | undefined) ?? []) {
    const property = properties.get(name);
    if (property !== undefined) input[name] = plausible(property);
  }
  if (properties.has('company_id')) input.company_id = world.own.company;
  if (properties.has('hub.mode'))
    Object.assign(input, { 'hub.mode': 'subscribe', 'hub.verify_token': 'not-the-token', 'hub.challenge': '1' });
  return input;
}

const JSON_TYPE = { 'content-type': 'application/json' };
const FORM_TYPE = { 'content-type': 'application/x-www-form-urlencoded' };

/** Requests that break the operation's input schema (one field), in the query, or as a JSON or form body. */
function brokenInput(world: FuzzWorld, op: DocumentedOperation): fc.Arbitrary<FuzzRequest>[] {
  const arbitraries: fc.Arbitrary<FuzzRequest>[] = [];
  const headers = credentials(op, world);
  const target = pathWith(world, op);
  const field = (schema: Schema) => fc.constantFrom(...propertiesOf(schema).keys());
  if (op.query !== undefined && propertiesOf(op.query).size > 0) {
    const schema = op.query;
    arbitraries.push(
      field(schema)
        .chain((name) =>
          badText(propertiesOf(schema).get(name)!).map((value) => ({ ...baseline(schema, world), [name]: value })),
        )
        .map((input) => formText(input))
        .filter((text) => textBreaks(schema, text, false))
        .map((text) => ({ method: op.method, target: `${target}?${text}`, headers })),
    );
    // API routes take a GET's parameters as a JSON body too, typed as JSON.
    if (op.method === 'GET' && op.security === 'api') {
      arbitraries.push(
        field(schema)
          .chain((name) =>
            badJson(propertiesOf(schema).get(name)!).map((value) =>
              jsonText({ ...baseline(schema, world), [name]: value }),
            ),
          )
          .filter((text) => jsonBreaks(schema, text, LIMITS.jsonDepth))
          .map((text) => ({
            method: op.method,
            target,
            headers: { ...headers, ...JSON_TYPE },
            body: Buffer.from(text),
          })),
      );
    }
  }
  if (op.body !== undefined && propertiesOf(op.body).size > 0) {
    const schema = op.body;
    const broken = field(schema).chain((name) =>
      badJson(propertiesOf(schema).get(name)!).map((value) => ({ name, value })),
    );
    arbitraries.push(
      broken
        .map(({ name, value }) => jsonText({ ...baseline(schema, world), [name]: value }))
        .filter((text) => jsonBreaks(schema, text, LIMITS.jsonDepth))
        .map((text) => ({ method: op.method, target, headers: { ...headers, ...JSON_TYPE }, body: Buffer.from(text) })),
      // A key given twice: JSON.parse keeps the last one, the broken one.
      broken
        .map(({ name, value }) => {
          const plain = jsonText({ ...baseline(schema, world), [name]: plausible(propertiesOf(schema).get(name)!) });
          return `${plain.slice(0, -1)}${plain === '{}' ? '' : ','}${JSON.stringify(name)}:${jsonText(value)}}`;
        })
        .filter((text) => jsonBreaks(schema, text, LIMITS.jsonDepth))
        .map((text) => ({ method: op.method, target, headers: { ...headers, ...JSON_TYPE }, body: Buffer.from(text) })),
      // The same broken input, gzip-compressed: decoded first, then refused for what it holds.
      broken
        .map(({ name, value }) => jsonText({ ...baseline(schema, world), [name]: value }))
        .filter((text) => jsonBreaks(schema, text, LIMITS.jsonDepth) && text.length < LIMITS.bodyBytes)
        .map((text) => ({
          method: op.method,
          target,
          headers: { ...headers, ...JSON_TYPE, 'content-encoding': 'gzip' },
          body: gzipSync(text),
        })),
      field(schema)
        .chain((name) =>
          badText(propertiesOf(schema).get(name)!).map((value) => ({ ...baseline(schema, world), [name]: value })),
        )
        .map((input) => formText(input))
        .filter((text) => textBreaks(schema, text, true))
        .map((text) => ({ method: op.method, target, headers: { ...headers, ...FORM_TYPE }, body: Buffer.from(text) })),
    );
  }
  return arbitraries;
}

/** Requests whose path names something that is not there for this account. */
function brokenPath(world: FuzzWorld, op: DocumentedOperation): fc.Arbitrary<FuzzRequest>[] {
  const params = paramsOf(op);
  if (params.length === 0) return [];
  const query = op.query === undefined ? '' : `?${formText(baseline(op.query, world))}`;
  const body = op.body === undefined ? undefined : Buffer.from(jsonText(baseline(op.body, world)));
  const headers = { ...credentials(op, world), ...(body === undefined ? {} : JSON_TYPE) };
  return [
    fc
      .constantFrom(...params)
      .chain((param) => {
        const foreign = pathIds(world, op, param).foreign;
        const numeric = !['deliveryId', 'taskId', 'storageKey', 'fileName'].includes(param);
        const values = numeric
          ? foreign === undefined
            ? badIds
            : fc.oneof(badIds, fc.constant(foreign))
          : fc.oneof(
              badIds,
              fc
                .string({ minLength: 1, maxLength: 40 })
                .map(encodeURIComponent)
                .filter((s) => s !== '.' && s !== '..'),
            );
        return values.map((value) => ({ param, value }));
      })
      .filter(({ param, value }) => value !== pathIds(world, op, param).own)
      .map((broken) => ({
        method: op.method,
        target: `${pathWith(world, op, broken)}${query}`,
        headers,
        ...(body === undefined ? {} : { body }),
      })),
  ];
}

/** Requests without valid credentials. */
function brokenAuth(world: FuzzWorld, op: DocumentedOperation): fc.Arbitrary<FuzzRequest>[] {
  if (op.security === 'console' || op.security === 'portal') return brokenSession(world, op, op.security);
  if (op.security === 'none' && !op.statuses.includes(401)) return [];
  const target = pathWith(world, op);
  const bad = fc.oneof(
    fc.constant({}),
    fc
      .constantFrom('gwk_wrong', 'x', `${world.gw.token}x`, world.gw.token.slice(0, -1), ' ', ADMIN_TOKEN)
      .map((t) => ({ 'x-private-api-token': t })),
    fc
      .constantFrom(
        'Bearer',
        'Bearer ',
        'Basic abc',
        `Bearer ${ADMIN_TOKEN}x`,
        `Bearer ${world.gw.token}`,
        `bearer  ${ADMIN_TOKEN.slice(1)}`,
      )
      .map((a) => ({ authorization: a })),
    fc
      .string({ maxLength: 30 })
      .filter((s) => /^[\x21-\x7e]*$/.test(s))
      .map((t) => ({ 'x-private-api-token': t || 'z', authorization: `Bearer ${t || 'z'}` })),
  );
  return [
    bad
      .filter(
        (headers: Record<string, string>) =>
          op.security !== 'admin' || headers.authorization !== `Bearer ${ADMIN_TOKEN}`,
      )
      .map((headers) => ({ method: op.method, target, headers })),
  ];
}

/** Requests of a web face without its session: no cookie, a wrong one, the other face's; a change without the CSRF token. */
function brokenSession(
  world: FuzzWorld,
  op: DocumentedOperation,
  face: 'console' | 'portal',
): fc.Arbitrary<FuzzRequest>[] {
  const target = pathWith(world, op);
  const { cookie: validCookie, 'x-csrf-token': validCsrf } = sessionHeaders(world, face);
  const { cookie: otherCookie, 'x-csrf-token': otherCsrf } = sessionHeaders(
    world,
    face === 'console' ? 'portal' : 'console',
  );
  const name = validCookie.slice(0, validCookie.indexOf('='));
  const value = validCookie.slice(name.length + 1);
  const cookies = fc.oneof(
    fc.constantFrom(
      '',
      `${name}=`,
      `${name}=${value}x`,
      `${name}=${value.slice(0, -1)}`,
      `${name}=${otherCookie.slice(otherCookie.indexOf('=') + 1)}`,
      otherCookie,
      `${name.toUpperCase()}=${value}`,
    ),
    fc
      .string({ maxLength: 40 })
      .filter((s) => /^[\x21-\x7e]*$/.test(s) && !s.includes(';'))
      .map((s) => `${name}=${s}`)
      .filter((cookie) => cookie !== validCookie),
  );
  const arbitraries: fc.Arbitrary<FuzzRequest>[] = [
    cookies.map((cookie) => ({
      method: op.method,
      target,
      headers: { ...(cookie === '' ? {} : { cookie }), 'x-csrf-token': validCsrf },
    })),
  ];
  if (op.method !== 'GET') {
    const csrf = fc.oneof(
      fc.constantFrom('', validCsrf.slice(1), `${validCsrf}x`, otherCsrf),
      fc.string({ maxLength: 50 }).filter((s) => /^[\x21-\x7e]+$/.test(s)),
    );
    arbitraries.push(
      csrf
        .filter((token) => token !== validCsrf)
        .map((token) => ({
          method: op.method,
          target,
          headers: { cookie: validCookie, ...(token === '' ? {} : { 'x-csrf-token': token }) },
        })),
    );
  }
  return arbitraries;
}

/** Bodies refused before their fields are read: media type, coding, syntax, size, nesting. */
function brokenBody(world: FuzzWorld, op: DocumentedOperation): fc.Arbitrary<FuzzRequest>[] {
  if (!op.statuses.includes(415)) return [];
  const target = pathWith(world, op);
  const headers = credentials(op, world);
  const valid = Buffer.from(jsonText(op.body === undefined ? {} : baseline(op.body, world)));
  const request = (extra: Record<string, string>, body: Buffer): FuzzRequest => ({
    method: op.method,
    target,
    headers: { ...headers, ...extra },
    body,
  });
  const arbitraries: fc.Arbitrary<FuzzRequest>[] = [
    fc.constant({ method: op.method, target, headers, body: valid }), // a body without a Content-Type
    fc
      .constantFrom(
        'text/plain',
        'application/xml',
        'application/octet-stream',
        'image/png',
        'application/jsonx',
        'multipart/form-data; boundary=zz',
        'text/json-seq',
      )
      .map((type) => request({ 'content-type': type }, valid)),
    fc
      .constantFrom('compress', 'foo', 'gzip, br', 'x-gzip', 'zstd', 'identity, gzip')
      .map((coding) => request({ ...JSON_TYPE, 'content-encoding': coding }, valid)),
    fc
      .tuple(fc.constantFrom('gzip', 'deflate', 'br'), fc.uint8Array({ minLength: 1, maxLength: 64 }))
      .map(([coding, bytes]) =>
        request(
          { ...JSON_TYPE, 'content-encoding': coding },
          Buffer.concat([Buffer.from('{"not":"compressed"}'), Buffer.from(bytes)]),
        ),
      ),
    fc
      .constantFrom('{', '{"a":', '[1,', "{'a':1}", 'nul', '{"a":1}}', '\u0000', '{"a":"\\x"}', '{"a":01}')
      .map((text) => request(JSON_TYPE, Buffer.from(text))),
    fc
      .uint8Array({ minLength: 1, maxLength: 40 })
      .filter((bytes) => !isJsonText(bytes))
      .map((bytes) => request(JSON_TYPE, Buffer.from(bytes))),
    // Bytes that are not UTF-8 inside a JSON string or a form value: never read as U+FFFD.
    fc
      .tuple(
        fc.constantFrom([0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf8, 0x88, 0x80, 0x80, 0x80]),
        fc.boolean(),
      )
      .map(([bytes, form]) =>
        form
          ? request(FORM_TYPE, Buffer.concat([Buffer.from('name='), Buffer.from(bytes)]))
          : request(JSON_TYPE, Buffer.concat([Buffer.from('{"name":"'), Buffer.from(bytes), Buffer.from('"}')])),
      ),
    fc
      .integer({ min: 1, max: 200 })
      .map((over) => request(JSON_TYPE, Buffer.from(JSON.stringify({ name: 'x'.repeat(LIMITS.bodyBytes + over) })))),
    fc
      .integer({ min: LIMITS.jsonDepth + 1, max: 300 })
      .map((depth) => request(JSON_TYPE, Buffer.from(JSON.stringify({ name: deepNesting(depth) })))),
  ];
  // Only where the body is the input: a GET or DELETE reads its query and drops a body that is no object.
  if (op.body !== undefined) {
    arbitraries.push(
      fc
        .constantFrom('[]', '[{"a":1}]', '"text"', '42', 'null', 'true')
        .map((text) => request(JSON_TYPE, Buffer.from(text))),
    );
  }
  return arbitraries;
}

function isJsonText(bytes: Uint8Array): boolean {
  try {
    JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    return true;
  } catch {
    return false;
  }
}

/** Query strings refused whatever the route: too long, malformed escapes; nesting beyond qs's limits where the query is read. */
function brokenQuery(world: FuzzWorld, op: DocumentedOperation): fc.Arbitrary<FuzzRequest>[] {
  const target = pathWith(world, op);
  const headers = credentials(op, world);
  const arbitraries: fc.Arbitrary<FuzzRequest>[] = [
    fc
      .integer({ min: 1, max: 2000 })
      .map((over) => ({ method: op.method, target: `${target}?pad=${'a'.repeat(LIMITS.queryBytes + over)}`, headers })),
    fc
      .constantFrom('x=%ZZ', 'x=%', 'x=%E2%82', '%ED%A0%80=1', 'x=%C0%AF', 'a=1&b=%FF')
      .map((query) => ({ method: op.method, target: `${target}?${query}`, headers })),
  ];
  if (op.query !== undefined) {
    arbitraries.push(
      fc
        .constantFrom(
          'a[b][c][d][e][f][g]=1',
          `${'a=1&'.repeat(1001)}b=2`,
          Array.from({ length: 102 }, () => 'l[]=1').join('&'),
        )
        .map((query) => ({ method: op.method, target: `${target}?${query}`, headers })),
    );
  }
  return arbitraries;
}

/** Every kind of refused request for one operation. */
export function refusedRequests(world: FuzzWorld, op: DocumentedOperation): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(
    ...brokenInput(world, op),
    ...brokenPath(world, op),
    ...brokenAuth(world, op),
    ...brokenBody(world, op),
    ...brokenQuery(world, op),
  );
}
