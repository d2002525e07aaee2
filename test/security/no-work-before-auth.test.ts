// No work before authentication (issue 51 item 2): upload slots are held per account (and, for a
// body whose token is among its fields, per client address), so requests without a valid token
// never hold a slot an account's uploads need; and a slow body is cut by its own deadline
// (GATEWAY_BODY_TIMEOUT), a 408 in the error shape.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

const BODY_TIMEOUT_MS = 1_500;
let gw: TestGateway;
let companyId: number;

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_UPLOAD_CONCURRENCY: '2', GATEWAY_BODY_TIMEOUT: `${BODY_TIMEOUT_MS}ms` });
  companyId = (await gw.request('POST', '/p1/companies', { json: { name: 'Slots Co' } })).body.data
    .external_id as number;
});
afterAll(() => gw?.close());

interface Trickle {
  /** The answer as received (status line, headers, body), once the server answered and closed. */
  answer: Promise<{ status: number; body: unknown; headers: string; elapsedMs: number }>;
  stop(): void;
}

/** A request whose head is sent at once and whose body trickles, one byte every 100 ms, never ending. */
function trickle(head: string, firstBytes: string): Trickle {
  const began = Date.now();
  const socket = net.connect(gw.gateway.port, '127.0.0.1');
  socket.write(`${head}\r\n`);
  socket.write(firstBytes);
  const timer = setInterval(() => socket.writable && socket.write('x'), 100);
  const chunks: Buffer[] = [];
  socket.on('error', () => undefined); // the server may reset the connection once it answered
  const answer = new Promise<{ status: number; body: unknown; headers: string; elapsedMs: number }>((resolve) => {
    // Done once the whole answer arrived (its Content-Length), whether or not the server closes.
    const complete = () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return false;
      const headers = text.slice(0, end);
      const length = Number(/^content-length: (\d+)$/im.exec(headers)?.[1] ?? 0);
      const body = text.slice(end + 4);
      if (Buffer.byteLength(body) < length) return false;
      clearInterval(timer);
      resolve({
        status: Number(/^HTTP\/1\.1 (\d+)/.exec(headers)?.[1] ?? 0),
        body: body === '' ? undefined : JSON.parse(body),
        headers,
        elapsedMs: Date.now() - began,
      });
      return true;
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      complete();
    });
  });
  return {
    answer,
    stop: () => {
      clearInterval(timer);
      socket.destroy();
    },
  };
}

const BOUNDARY = 'trickle-boundary';
const multipartHead = (target: string, extra = '') =>
  `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: 100000000\r\n${extra}`;
const filePartStart = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="slow.txt"\r\nContent-Type: text/plain\r\n\r\n`;

async function validUpload(target: string): Promise<{ status: number; text: string }> {
  const form = new FormData();
  form.append('file', new Blob(['hello'], { type: 'text/plain' }), 'hello.txt');
  form.append('company_id', String(companyId));
  const res = await fetch(`${gw.baseUrl}${target}`, {
    method: 'POST',
    body: form,
    headers: { 'x-private-api-token': gw.token },
  });
  return { status: res.status, text: await res.text() };
}

const partFiles = () => fs.readdirSync(path.join(gw.dataDir, 'attachments')).filter((name) => name.endsWith('.part'));

describe('uploads without a token', () => {
  it('a dozen trickling tokenless uploads leave valid uploads of an account unaffected', async () => {
    const slow = Array.from({ length: 12 }, () => trickle(multipartHead('/api/p2/attachments'), filePartStart));
    try {
      // The first two take the slots of their address; the other ten are refused at once.
      const refused = await Promise.all(slow.slice(2).map((t) => t.answer));
      for (const answer of refused) {
        expect(answer.status).toBe(503);
        expect(answer.body).toEqual({
          errors: [
            {
              status: 503,
              code: 'service_unavailable',
              title: 'Service unavailable',
              detail:
                'As many uploads as this gateway receives at once from one address before their token is read are under way; try again shortly, or send the token in the X-Private-Api-Token header.',
            },
          ],
        });
      }
      // Meanwhile the account's uploads, at both paths, find their slots free.
      for (const target of [
        '/api/p2/attachments',
        `/api/p2/companies/${companyId}/attachments`,
        '/api/p2/attachments',
      ]) {
        const upload = await validUpload(target);
        expect(upload.status, upload.text).toBe(201);
      }
      // The two still trickling are cut by the body's deadline: 408, their partial files removed.
      for (const answer of await Promise.all(slow.slice(0, 2).map((t) => t.answer))) {
        expect(answer.status).toBe(408);
        expect(answer.body).toEqual({
          errors: [
            {
              status: 408,
              code: 'request_timeout',
              title: 'Request timeout',
              detail: `The request body did not arrive within ${BODY_TIMEOUT_MS} ms (GATEWAY_BODY_TIMEOUT).`,
            },
          ],
        });
        expect(answer.headers).toMatch(/^connection: close$/im);
        expect(answer.elapsedMs).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS);
        expect(answer.elapsedMs).toBeLessThan(BODY_TIMEOUT_MS + 5_000);
      }
      expect(partFiles()).toEqual([]);
    } finally {
      for (const t of slow) t.stop();
    }
  });

  it('an upload with a wrong token in the header is refused before a byte of its body is read', async () => {
    const slow = trickle(
      multipartHead(`/api/p2/companies/${companyId}/attachments`, 'X-Private-Api-Token: gwk_wrong\r\n'),
      filePartStart,
    );
    try {
      const answer = await slow.answer;
      expect(answer.status).toBe(401);
      expect(answer.elapsedMs).toBeLessThan(BODY_TIMEOUT_MS);
    } finally {
      slow.stop();
    }
  });
});

describe('slow JSON and form bodies', () => {
  it.each([
    ['with the token in the header', 'X-Private-Api-Token: TOKEN\r\n'],
    ['with the token only in the body', ''],
  ])('are cut by GATEWAY_BODY_TIMEOUT, %s: 408 in the error shape', async (_name, tokenHeader) => {
    const head = `POST /p1/companies HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n${tokenHeader.replace('TOKEN', gw.token)}`;
    const slow = trickle(head, `{"private_api_token": "${gw.token}", "name": "`);
    try {
      const answer = await slow.answer;
      expect(answer.status).toBe(408);
      expect(answer.body).toEqual({
        errors: [
          {
            status: 408,
            code: 'request_timeout',
            title: 'Request timeout',
            detail: `The request body did not arrive within ${BODY_TIMEOUT_MS} ms (GATEWAY_BODY_TIMEOUT).`,
          },
        ],
      });
      expect(answer.elapsedMs).toBeLessThan(BODY_TIMEOUT_MS + 5_000);
    } finally {
      slow.stop();
    }
    expect((await gw.request('GET', '/p1/companies')).body.data.companies).toHaveLength(1);
  });
});
