// Which shard a request goes to, without a lookup (docs/scaling.md, "The front"): routeOf reads the
// path, companyOfInput the company_id of a body or query as the cores read it, and readUpload the
// company_id of a multipart upload while the upload is still arriving.
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { companyOfInput } from './company-input.js';
import { routeOf, shardOfRoute } from './routing.js';
import { readUpload } from './upload.js';

/** The runs of each property; FUZZ_RUNS changes it. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);

const id = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });
const segment = fc.stringMatching(/^[A-Za-z0-9_.~%-]{1,12}$/);
const suffix = fc.array(segment, { maxLength: 3 }).map((parts) => parts.map((p) => `/${p}`).join(''));
const method = fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS');

describe('routeOf: the shard from the path', () => {
  it('routes a company id in a path to (id − 1) mod slots', () => {
    fc.assert(
      fc.property(
        id,
        suffix,
        method,
        fc.constantFrom('/p1/companies/', '/api/p2/companies/', '/admin/companies/'),
        fc.integer({ min: 1, max: 1024 }),
        (n, rest, m, prefix, slots) => {
          const route = routeOf(m, `${prefix}${n}${rest}`);
          expect(route).toEqual({ kind: 'id', id: n });
          const shard = shardOfRoute(n, slots, slots);
          expect(shard).toBe((n - 1) % slots);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('routes a callback by its channel id, whatever the provider and the rest of the path', () => {
    fc.assert(
      fc.property(id, segment, suffix, method, (n, provider, rest, m) => {
        expect(routeOf(m, `/callbacks/${provider}/${n}${rest}`)).toEqual({ kind: 'id', id: n });
      }),
      { numRuns: RUNS },
    );
  });

  it('reads a percent-encoded id as the cores do, and sends what is no id to any shard', () => {
    expect(routeOf('GET', '/p1/companies/%31%32/channels')).toEqual({ kind: 'id', id: 12 });
    for (const bad of ['0', '-1', '01', 'abc', '1e3', '99999999999999999', '%zz', '']) {
      expect(routeOf('GET', `/p1/companies/${bad}/channels`)).toEqual({ kind: 'any' });
    }
  });

  it('knows the lists, the inputs and the fan-outs', () => {
    expect(routeOf('GET', '/p1/companies')).toEqual({ kind: 'list', list: 'companies' });
    expect(routeOf('POST', '/p1/companies')).toEqual({ kind: 'create' });
    expect(routeOf('GET', '/api/p2/auths')).toEqual({ kind: 'list', list: 'auths' });
    expect(routeOf('GET', '/api/p2/biz_templates')).toEqual({ kind: 'list', list: 'templates' });
    expect(routeOf('GET', '/admin/deliveries')).toEqual({ kind: 'list', list: 'deliveries' });
    expect(routeOf('GET', '/api/p2/conversations/5/messages')).toEqual({ kind: 'input' });
    expect(routeOf('POST', '/api/p2/messages')).toEqual({ kind: 'input' });
    expect(routeOf('POST', '/api/p2/attachments')).toEqual({ kind: 'upload' });
    expect(routeOf('GET', '/admin/deliveries/dlv_1')).toEqual({ kind: 'first' });
    expect(routeOf('POST', '/admin/replays/rpl_1/cancel')).toEqual({ kind: 'first' });
    expect(routeOf('GET', '/files/key/name.png')).toEqual({ kind: 'first' });
    expect(routeOf('GET', '/portal/api/webhooks')).toEqual({ kind: 'first' });
    expect(routeOf('POST', '/console/session')).toEqual({ kind: 'home' });
    expect(routeOf('GET', '/healthz')).toEqual({ kind: 'healthz' });
    expect(routeOf('GET', '/openapi.json')).toEqual({ kind: 'any' });
  });

  it('answers some route for any path, never throws', () => {
    fc.assert(
      fc.property(method, fc.string({ maxLength: 80 }), (m, text) => {
        const route = routeOf(m, `/${text}`);
        expect(route.kind).toMatch(/^(id|input|upload|any|home|create|first|list|healthz|metrics)$/);
      }),
      { numRuns: RUNS },
    );
  });

  it('an id whose shard the cluster does not run has no shard', () => {
    expect(shardOfRoute(5, 64, 3)).toBeNull();
    expect(shardOfRoute(67, 64, 3)).toBe(2);
  });
});

describe('companyOfInput: the company of a request as the cores read it', () => {
  it('reads company_id from a JSON or form body, and from the query only where the cores do', () => {
    fc.assert(
      fc.property(id, id, (inBody, inQuery) => {
        const json = Buffer.from(JSON.stringify({ text: 'hi', company_id: inBody }));
        const form = Buffer.from(`text=hi&company_id=${inBody}`);
        expect(companyOfInput('POST', `company_id=${inQuery}`, json, 'application/json; charset=utf-8')).toBe(inBody);
        expect(companyOfInput('PUT', `company_id=${inQuery}`, form, 'application/x-www-form-urlencoded')).toBe(inBody);
        // POST reads the body alone; GET the query with a body over it.
        expect(companyOfInput('POST', `company_id=${inQuery}`, Buffer.alloc(0), undefined)).toBeUndefined();
        expect(companyOfInput('GET', `company_id=${inQuery}`, Buffer.alloc(0), undefined)).toBe(inQuery);
        expect(companyOfInput('GET', `company_id=${inQuery}`, json, 'application/json')).toBe(inBody);
        expect(companyOfInput('DELETE', `a=1&company_id=${inQuery}`, Buffer.alloc(0), undefined)).toBe(inQuery);
      }),
      { numRuns: RUNS },
    );
  });

  it('answers null for a value that is no id and undefined for none, never throws on a bad body', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.string(),
        fc.constantFrom('application/json', 'application/x-www-form-urlencoded', 'text/plain', undefined),
        (value, raw, type) => {
          const company = companyOfInput(
            'POST',
            '',
            Buffer.from(JSON.stringify({ company_id: value })),
            'application/json',
          );
          if (company !== null) expect(company).toBeGreaterThanOrEqual(1);
          expect(() => companyOfInput('POST', '', Buffer.from(raw), type)).not.toThrow();
        },
      ),
      { numRuns: RUNS },
    );
    expect(companyOfInput('POST', '', Buffer.from('{"company_id":"12"}'), 'application/json')).toBe(12);
    expect(companyOfInput('POST', '', Buffer.from('{"company_id":"x"}'), 'application/json')).toBeNull();
    expect(companyOfInput('POST', '', Buffer.from('{"company_id":'), 'application/json')).toBeUndefined();
  });
});

describe('readUpload: the company of a multipart upload, before the upload has arrived', () => {
  const boundary = 'front-test-boundary';
  const part = (name: string, content: string | Buffer, file?: string) =>
    Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file ? `; filename="${file}"\r\nContent-Type: application/octet-stream` : ''}\r\n\r\n`,
      ),
      Buffer.isBuffer(content) ? content : Buffer.from(content),
      Buffer.from('\r\n'),
    ]);
  const request = () =>
    Object.assign(new PassThrough(), {
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    }) as unknown as IncomingMessage & PassThrough;
  const collect = async (body: Buffer | NodeJS.ReadableStream) => {
    if (Buffer.isBuffer(body)) return body;
    const chunks: Buffer[] = [];
    for await (const chunk of body as AsyncIterable<Buffer>) chunks.push(chunk);
    return Buffer.concat(chunks);
  };

  it('resolves once company_id is read, while the file is still coming, and passes the exact bytes on', async () => {
    const file = Buffer.alloc(256 * 1024, 7);
    const head = Buffer.concat([
      part('company_id', '65'),
      part('file', file.subarray(0, 1000), 'a.bin').subarray(0, 1200),
    ]);
    const whole = Buffer.concat([
      part('company_id', '65'),
      part('file', file, 'a.bin'),
      Buffer.from(`--${boundary}--\r\n`),
    ]);
    const req = request();
    req.write(whole.subarray(0, head.length));
    // Only the first bytes were sent: the company is known without the rest.
    const upload = await readUpload(req, 1024, 1024 * 1024);
    expect(upload.company).toBe(65);
    expect(Buffer.isBuffer(upload.body)).toBe(false);
    req.end(whole.subarray(head.length));
    expect((await collect(upload.body)).equals(whole)).toBe(true);
  });

  it('holds a file that comes before company_id, within the limit, and refuses one past it', async () => {
    const whole = Buffer.concat([
      part('file', Buffer.alloc(5000, 1), 'a.bin'),
      part('company_id', '3'),
      Buffer.from(`--${boundary}--\r\n`),
    ]);
    const held = request();
    held.end(whole);
    const upload = await readUpload(held, 1024, 1024 * 1024);
    expect(upload.company).toBe(3);
    expect((await collect(upload.body)).equals(whole)).toBe(true);
    const over = request();
    over.end(whole);
    await expect(readUpload(over, 1024, 4096)).rejects.toMatchObject({ code: 'payload_too_large' });
  });

  it('answers no company for a body without one or one that is no multipart', async () => {
    const none = request();
    none.end(Buffer.concat([part('file', 'x', 'a.bin'), Buffer.from(`--${boundary}--\r\n`)]));
    expect((await readUpload(none, 1024, 4096)).company).toBeUndefined();
    const garbage = request();
    garbage.end('not multipart at all');
    expect((await readUpload(garbage, 1024, 4096)).company).toBeUndefined();
  });
});
