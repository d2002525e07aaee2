import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRefusedLeavingNothing } from './expect-refused.js';
import { FUZZ, LIMITS, startFuzzGateway, type FuzzWorld } from './fuzz-gateway.js';
import { documentedOperations } from './operations.js';
import { send, type FuzzRequest } from './send.js';
import { snapshot } from './snapshot.js';

/**
 * Multipart uploads (POST /api/p2/companies/<id>/attachments), fuzzed: files over the limit by a
 * few bytes or many, parts missing, doubled, empty or misnamed, bodies cut short or without a
 * boundary, other media types and codings, bad tokens and companies. Each must be refused at once
 * with a documented 4xx and leave no row and no file (no `.part` either) behind.
 */

let world: FuzzWorld;
let statuses: number[];

beforeAll(async () => {
  world = await startFuzzGateway();
  const document = await send(world, { method: 'GET', target: '/openapi.json', headers: {} });
  statuses = documentedOperations(document.body as Parameters<typeof documentedOperations>[0]).find(
    (op) => op.method === 'POST' && op.path === '/api/p2/companies/{companyId}/attachments',
  )!.statuses;
});
afterAll(() => world.gw.close());

const BOUNDARY = 'fuzz-boundary-7MA4YWxkTrZu0gW';

interface Part {
  field: string;
  fileName?: string;
  type?: string;
  content: Buffer;
}

function multipart(parts: Part[], { close = true, boundary = BOUNDARY } = {}): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.field}"${part.fileName === undefined ? '' : `; filename="${part.fileName}"`}`;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.type === undefined ? '' : `Content-Type: ${part.type}\r\n`}\r\n`,
      ),
      part.content,
      Buffer.from('\r\n'),
    );
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

const fileNames = fc.constantFrom(
  'a.txt',
  'photo.jpg',
  '',
  '../../etc/passwd',
  'x\u202etxt.exe',
  '👩‍👩‍👧.png',
  'a"b.txt',
  `${'n'.repeat(400)}.bin`,
);
const bytes = (size: number, fill: number) => Buffer.alloc(size, fill);

function upload(
  body: Buffer,
  headers: Record<string, string> = {},
  company: number | string = world.own.company,
  token: string | null = world.gw.token,
): FuzzRequest {
  return {
    method: 'POST',
    target: `/api/p2/companies/${company}/attachments`,
    headers: {
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      ...(token === null ? {} : { 'x-private-api-token': token }),
      ...headers,
    },
    body,
  };
}

/** Every kind of refused upload (built once the world exists: foreign ids come from it). */
const refusedUploads = (): fc.Arbitrary<FuzzRequest> =>
  fc.oneof(
    // Over the limit: by a few bytes (the case that hung), by more, with fields before and after.
    fc
      .tuple(fc.integer({ min: 1, max: 64 }), fileNames, fc.boolean(), fc.integer({ min: 0, max: 255 }))
      .map(([over, fileName, withFields, fill]) =>
        upload(
          multipart([
            ...(withFields ? [{ field: 'note', content: Buffer.from('before') }] : []),
            {
              field: 'file',
              fileName,
              type: 'application/octet-stream',
              content: bytes(LIMITS.attachmentBytes + over, fill),
            },
            ...(withFields ? [{ field: 'after', content: Buffer.from('x') }] : []),
          ]),
        ),
      ),
    fc
      .integer({ min: 2, max: 3 })
      .map((times) =>
        upload(multipart([{ field: 'file', fileName: 'big.bin', content: bytes(LIMITS.attachmentBytes * times, 7) }])),
      ),
    // No file, an empty one, two, a misnamed part, fields only.
    fileNames.map((fileName) => upload(multipart([{ field: 'file', fileName, content: Buffer.alloc(0) }]))),
    fc.integer({ min: 1, max: 100 }).map((size) =>
      upload(
        multipart([
          { field: 'file', fileName: 'a.txt', content: bytes(size, 97) },
          { field: 'file', fileName: 'b.txt', content: bytes(size, 98) },
        ]),
      ),
    ),
    fc
      .constantFrom('File', 'files', 'file[]', 'attachment', '')
      .map((field) => upload(multipart([{ field, fileName: 'a.txt', content: Buffer.from('hello') }]))),
    fc.constant(upload(multipart([{ field: 'file', content: Buffer.from('not a file part') }]))),
    fc.constant(upload(multipart([]))),
    // Too many parts or fields.
    fc
      .integer({ min: 25, max: 40 })
      .map((count) =>
        upload(multipart(Array.from({ length: count }, (_, i) => ({ field: `f${i}`, content: Buffer.from('x') })))),
      ),
    // Cut short, no closing boundary, another boundary, none at all.
    fc
      .integer({ min: 1, max: 200 })
      .map((size) =>
        upload(multipart([{ field: 'file', fileName: 'a.txt', content: bytes(size, 97) }], { close: false })),
      ),
    fc
      .integer({ min: 1, max: 200 })
      .map((size) =>
        upload(
          multipart([{ field: 'file', fileName: 'a.txt', content: bytes(size, 97) }]).subarray(0, 60 + (size % 40)),
        ),
      ),
    fc.constant(
      upload(multipart([{ field: 'file', fileName: 'a.txt', content: Buffer.from('x') }], { boundary: 'other' })),
    ),
    fc
      .constantFrom('multipart/form-data', 'multipart/form-data; boundary=', 'multipart/mixed; boundary=x')
      .map((type) =>
        upload(multipart([{ field: 'file', fileName: 'a.txt', content: Buffer.from('x') }]), { 'content-type': type }),
      ),
    // Other media types and content codings.
    fc
      .constantFrom('application/json', 'text/plain', 'application/octet-stream', 'image/png')
      .map((type) => upload(Buffer.from('{"file":"x"}'), { 'content-type': type })),
    fc
      .constantFrom('gzip', 'deflate', 'br', 'foo')
      .map((coding) =>
        upload(
          coding === 'gzip'
            ? gzipSync(multipart([{ field: 'file', fileName: 'a.txt', content: Buffer.from('hello') }]))
            : multipart([{ field: 'file', fileName: 'a.txt', content: Buffer.from('hello') }]),
          { 'content-encoding': coding },
        ),
      ),
    // Not the caller's company, or no caller at all.
    fc
      .constantFrom<number | string>(world.foreign.company, '0', '999999', 'abc', '99999999999999999999')
      .map((company) =>
        upload(multipart([{ field: 'file', fileName: 'a.txt', content: Buffer.from('hello') }]), {}, company),
      ),
    fc
      .constantFrom<string | null>(null, 'gwk_wrong', 'x')
      .map((token) =>
        upload(
          multipart([{ field: 'file', fileName: 'a.txt', content: Buffer.from('hello') }]),
          {},
          world.own.company,
          token,
        ),
      ),
  );

describe(`fuzzing uploads (FUZZ_SEED=${FUZZ.seed} FUZZ_RUNS=${FUZZ.runs})`, () => {
  it('refuses every broken upload at once with a documented 4xx, leaving no row and no file', async () => {
    await fc.assert(
      fc.asyncProperty(refusedUploads(), async (request) => {
        const answer = await expectRefusedLeavingNothing(world, request, statuses);
        // A refused upload's connection is not kept for another request: its body may still be coming.
        if (answer.status !== 401 && answer.status !== 404)
          expect(answer.headers.connection, `${answer.status} ${answer.text}`).toBe('close');
      }),
      { seed: FUZZ.seed, numRuns: FUZZ.runs * 3 },
    );
  }, 600_000);

  it('refuses uploads over the limit sent at once, and keeps nothing of any of them', async () => {
    const before = snapshot(world);
    const body = multipart([{ field: 'file', fileName: 'big.bin', content: bytes(LIMITS.attachmentBytes + 3, 1) }]);
    const answers = await Promise.all(Array.from({ length: 6 }, () => send(world, upload(body))));
    expect(answers.map((a) => a.status)).toEqual([413, 413, 413, 413, 413, 413]);
    expect(answers.map((a) => a.headers.connection)).toEqual(['close', 'close', 'close', 'close', 'close', 'close']);
    expect(snapshot(world)).toEqual(before);
  });
});
