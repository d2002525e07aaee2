import { createHmac, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { botUpdate } from '../../schemas/callbacks/bot.js';
import { cloudCallback } from '../../schemas/callbacks/cloud.js';
import { connectorEvents, connectorEventType } from '../../schemas/callbacks/connector.js';
import { deepNesting, oddStrings, RawJson, type Schema } from './bad-values.js';
import { expectRefusedLeavingNothing } from './expect-refused.js';
import { ADMIN_TOKEN, FUZZ, LIMITS, startFuzzGateway, type FuzzWorld } from './fuzz-gateway.js';
import { documentedOperations } from './operations.js';
import { jsonBreaks, jsonText } from './oracle.js';
import { send, type FuzzRequest } from './send.js';

/**
 * Provider callbacks of the three families (cloud, bot, connector), fuzzed from their recorded
 * payloads and schemas: validly signed bodies with one value broken, bad or missing signatures,
 * unknown and other providers' channels, content codings, bodies over the limit, bytes that are not
 * UTF-8 or not JSON, deep nesting. Each must be refused with a documented 4xx, storing nothing.
 */

interface Family {
  name: 'cloud' | 'bot' | 'connector';
  provider: string;
  channel: () => number;
  fixtures: string[];
  /** The schema a body is judged by (the connector's by its event type). */
  schemaOf: (body: unknown) => Schema;
  sign: (body: Buffer) => Record<string, string>;
}

let world: FuzzWorld;
let statuses: number[];
let families: Family[];

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'callbacks');
const fixturesOf = (family: string): string[] =>
  fs.readdirSync(path.join(FIXTURES, family)).map((file) => fs.readFileSync(path.join(FIXTURES, family, file), 'utf8'));

async function secretsOf(channel: number): Promise<Record<string, string>> {
  const info = await send(world, {
    method: 'GET',
    target: `/admin/channels/${channel}/callback`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  return (info.body as { secrets: Record<string, string> }).secrets;
}

beforeAll(async () => {
  world = await startFuzzGateway();
  const document = await send(world, { method: 'GET', target: '/openapi.json', headers: {} });
  statuses = documentedOperations(document.body as Parameters<typeof documentedOperations>[0]).find(
    (op) => op.method === 'POST' && op.path === '/callbacks/{provider}/{channelId}',
  )!.statuses;
  const cloud = await secretsOf(world.own.cloud);
  const bot = await secretsOf(world.own.chatB);
  const connector = await secretsOf(world.own.session);
  families = [
    {
      name: 'cloud',
      provider: 'chat_a_business',
      channel: () => world.own.cloud,
      fixtures: fixturesOf('cloud'),
      schemaOf: () => cloudCallback,
      sign: (body) => ({
        'x-hub-signature-256': `sha256=${createHmac('sha256', cloud.app_secret!).update(body).digest('hex')}`,
      }),
    },
    {
      name: 'bot',
      provider: 'chat_b',
      channel: () => world.own.chatB,
      fixtures: fixturesOf('bot'),
      schemaOf: () => botUpdate,
      sign: () => ({ 'x-bot-api-secret-token': bot.secret_token! }),
    },
    {
      name: 'connector',
      provider: 'chat_a',
      channel: () => world.own.session,
      fixtures: fixturesOf('connector'),
      schemaOf: (body) => {
        const type = (body as { type?: unknown }).type;
        const schema = typeof type === 'string' ? (connectorEvents as Record<string, Schema>)[type] : undefined;
        return schema === undefined ? connectorEventType : { allOf: [connectorEventType, schema] };
      },
      sign: (body) => {
        const id = `msg_${randomUUID()}`;
        const at = new Date();
        return {
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': new Webhook(connector.signing_secret!).sign(id, at, body.toString('utf8')),
        };
      },
    },
  ];
});
afterAll(() => world.gw.close());

const JSON_TYPE = { 'content-type': 'application/json' };

function post(
  family: Family,
  body: Buffer,
  headers: Record<string, string>,
  channel: number | string = family.channel(),
  provider = family.provider,
): FuzzRequest {
  return { method: 'POST', target: `/callbacks/${provider}/${channel}`, headers: { ...JSON_TYPE, ...headers }, body };
}

/** Every path into a JSON value (object keys and array indexes), the root included. */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const here = [prefix];
  if (Array.isArray(value)) return here.concat(value.flatMap((item, i) => pathsOf(item, [...prefix, i])));
  if (typeof value === 'object' && value !== null)
    return here.concat(Object.entries(value).flatMap(([k, v]) => pathsOf(v, [...prefix, k])));
  return here;
}

function replaced(value: unknown, at: (string | number)[], by: unknown): unknown {
  if (at.length === 0) return by;
  const [head, ...rest] = at;
  if (Array.isArray(value)) return value.map((item, i) => (i === head ? replaced(item, rest, by) : item));
  return {
    ...(value as Record<string, unknown>),
    [head!]: replaced((value as Record<string, unknown>)[head!], rest, by),
  };
}

const badValue = fc.oneof(
  fc.constantFrom(null, true, 0, -1, 1.5, 2 ** 53 + 2, '', [], {}, [[[]]], { a: { b: 1 } }),
  fc.constantFrom(new RawJson('1e400'), new RawJson('-1e400'), new RawJson('18446744073709551616')),
  oddStrings,
  fc.constantFrom('x\u0000y', '\ud800', 'a\udc00'),
  fc.constantFrom('x'.repeat(5000), '9'.repeat(300)),
  fc.integer({ min: 2, max: 20 }).map(deepNesting),
);

/** A validly signed body with one value of a recorded payload broken (judged broken by the oracle). */
function brokenPayload(family: Family): fc.Arbitrary<FuzzRequest> {
  return fc
    .constantFrom(...family.fixtures)
    .chain((text) => {
      const payload = JSON.parse(text) as unknown;
      return fc
        .tuple(fc.constantFrom(...pathsOf(payload)), badValue)
        .map(([at, value]) => jsonText(replaced(payload, at, value)));
    })
    .filter((text) => text.length <= LIMITS.bodyBytes && judgedBroken(family, text))
    .map((text) => {
      const body = Buffer.from(text);
      return post(family, body, family.sign(body));
    });
}

function judgedBroken(family: Family, text: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return true;
  }
  return (
    typeof parsed !== 'object' ||
    parsed === null ||
    Array.isArray(parsed) ||
    jsonBreaks(family.schemaOf(parsed), text, LIMITS.jsonDepth)
  );
}

/** A recorded payload (which would be accepted) with its signature missing, wrong or for other bytes. */
function badSignature(family: Family): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(fc.constantFrom(...family.fixtures), fc.constantFrom('none', 'tampered', 'garbage', 'other-family', 'stale'))
    .map(([text, how]) => {
      const body = Buffer.from(text);
      const signed = family.sign(body);
      const headers: Record<string, string> =
        how === 'none'
          ? {}
          : how === 'tampered'
            ? family.name === 'bot'
              ? { 'x-bot-api-secret-token': `${signed['x-bot-api-secret-token']!.slice(0, -1)}#` } // the bot secret signs no bytes: a wrong secret instead
              : family.sign(Buffer.from(`${text} `))
            : how === 'garbage'
              ? Object.fromEntries(
                  Object.keys(signed).map((k) => [
                    k,
                    k === 'webhook-timestamp' ? signed[k]! : 'v1,AAAA sha256=00 wrong',
                  ]),
                )
              : how === 'other-family'
                ? families.find((f) => f.name !== family.name)!.sign(body)
                : {
                    ...signed,
                    'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3600),
                    'x-hub-signature-256': 'sha256=',
                    'x-bot-api-secret-token': '',
                  };
      return post(family, body, headers);
    });
}

/** Channels that are not this family's live channel: unknown, malformed, another provider's. */
function wrongChannel(family: Family): fc.Arbitrary<FuzzRequest> {
  const other = families.find((f) => f.name !== family.name)!;
  return fc
    .tuple(
      fc.constantFrom(...family.fixtures),
      fc.constantFrom<number | string>(
        '0',
        '-1',
        '999999',
        '99999999999999999999',
        'abc',
        '%00',
        '%ED%A0%80',
        '1e3',
        other.channel(),
        world.foreign.chatB,
      ),
      fc.boolean(),
    )
    .map(([text, channel, otherProvider]) => {
      const body = Buffer.from(text);
      return otherProvider
        ? post(family, body, family.sign(body), family.channel(), other.provider)
        : post(family, body, family.sign(body), channel);
    });
}

/** Bodies refused before they are verified or read as JSON. */
function brokenBody(family: Family): fc.Arbitrary<FuzzRequest> {
  const signed = (body: Buffer, extra: Record<string, string> = {}): FuzzRequest =>
    post(family, body, { ...family.sign(body), ...extra });
  return fc.oneof(
    fc
      .tuple(fc.constantFrom(...family.fixtures), fc.constantFrom('gzip', 'deflate', 'br', 'foo', 'identity, gzip'))
      .map(([text, coding]) => signed(Buffer.from(text), { 'content-encoding': coding })),
    fc
      .integer({ min: 1, max: 300 })
      .map((over) => signed(Buffer.from(JSON.stringify({ pad: 'x'.repeat(LIMITS.bodyBytes + over) })))),
    fc
      .uint8Array({ minLength: 1, maxLength: 32 })
      .map((bytes) =>
        signed(
          Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff, 0xfe]), Buffer.from(bytes), Buffer.from('"}')]),
        ),
      ),
    fc
      .constantFrom('', '{', 'not json', '{"a":1}}', '\ufeff{}', '[', "{'a':1}")
      .map((text) => signed(Buffer.from(text))),
    fc.constantFrom('[]', '"text"', '42', 'null', 'true', '[{"update_id":1}]').map((text) => signed(Buffer.from(text))),
    fc
      .integer({ min: LIMITS.jsonDepth + 1, max: 400 })
      .map((depth) => signed(Buffer.from(JSON.stringify({ entry: deepNesting(depth) })))),
  );
}

describe(`fuzzing provider callbacks (FUZZ_SEED=${FUZZ.seed} FUZZ_RUNS=${FUZZ.runs})`, () => {
  it.each(['cloud', 'bot', 'connector'])(
    'refuses every broken %s callback with a documented 4xx, storing nothing',
    async (name) => {
      const family = families.find((f) => f.name === name)!;
      const requests = fc.oneof(brokenPayload(family), badSignature(family), wrongChannel(family), brokenBody(family));
      await fc.assert(
        fc.asyncProperty(requests, (request) =>
          expectRefusedLeavingNothing(world, request, statuses).then(() => undefined),
        ),
        { seed: FUZZ.seed, numRuns: FUZZ.runs * 5 },
      );
    },
    600_000,
  );
});
