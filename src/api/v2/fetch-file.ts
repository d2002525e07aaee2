import fs from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Agent, request } from 'undici';
import { BlockedAddressError, type SsrfGuard } from '../../net/ssrf.js';
import { AppError, PayloadTooLarge, ValidationFailed } from '../../errors/errors.js';
import { cleanFileName, type ReceivedFile } from './receive-file.js';

export const FILE_URL_FIELD = 'file_url';
/** Redirects followed, each to an address checked like the first. */
const MAX_REDIRECTS = 3;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Downloads an attachment's `file_url` to a file, as the webhooks reach their receivers: every
 * connection through the SSRF guard (src/net/ssrf.ts: private, loopback, link-local and
 * reserved addresses refused unless allow-listed by GATEWAY_WEBHOOK_ALLOW_HOSTS, checked on the
 * address connected to), at most `maxBytes` (GATEWAY_ATTACHMENT_MAX_BYTES) and `timeoutMs` as a whole
 * (GATEWAY_ATTACHMENT_FETCH_TIMEOUT), redirects included. A URL that cannot give the file is a 422 on
 * `file_url` saying why, a file over the limit a 413; the partial file is removed before either.
 */
export class FileFetcher {
  private readonly agent: Agent;

  constructor(
    private readonly guard: SsrfGuard,
    private readonly limits: { maxBytes: number; timeoutMs: number },
  ) {
    this.agent = new Agent({ connections: 8, connect: { lookup: guard.lookup } });
  }

  async fetch(url: string, partPath: string): Promise<ReceivedFile> {
    const signal = AbortSignal.timeout(this.limits.timeoutMs);
    try {
      return await this.download(new URL(url), partPath, signal);
    } catch (error) {
      await fs.promises.rm(partPath, { force: true });
      if (error instanceof AppError) throw error;
      throw unreachable(url, error, this.limits.timeoutMs);
    }
  }

  private async download(first: URL, partPath: string, signal: AbortSignal): Promise<ReceivedFile> {
    let url = first;
    for (let hop = 0; ; hop += 1) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refused(`${url.protocol} is not http or https`);
      this.guard.checkLiteral(url.hostname);
      const answer = await request(url, {
        dispatcher: this.agent,
        method: 'GET',
        signal,
        headers: { 'user-agent': 'gateway-attachments/1', accept: '*/*' },
      });
      const location = answer.headers.location;
      if (REDIRECTS.has(answer.statusCode) && typeof location === 'string') {
        await answer.body.dump();
        if (hop >= MAX_REDIRECTS) throw refused(`it redirects more than ${MAX_REDIRECTS} times`);
        url = new URL(location, url);
        continue;
      }
      if (answer.statusCode < 200 || answer.statusCode >= 300) {
        await answer.body.dump();
        throw refused(`it answered HTTP ${answer.statusCode}`);
      }
      const declared = Number(answer.headers['content-length'] ?? Number.NaN);
      if (declared > this.limits.maxBytes) {
        answer.body.destroy();
        throw tooLarge(this.limits.maxBytes);
      }
      const size = await this.save(answer.body, partPath);
      if (size === 0) throw refused('it answered an empty file');
      const type = answer.headers['content-type'];
      return { path: partPath, fileName: fileNameOf(url), declaredType: typeof type === 'string' ? type : '', size };
    }
  }

  /** Streams the answer into the file, stopping past the size limit. */
  private async save(body: NodeJS.ReadableStream, partPath: string): Promise<number> {
    let size = 0;
    const maxBytes = this.limits.maxBytes;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        done(size > maxBytes ? tooLarge(maxBytes) : null, chunk);
      },
    });
    await pipeline(body, counter, fs.createWriteStream(partPath, { flags: 'wx' }));
    return size;
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** The last segment of the URL's path, decoded, as the file's name (`file` when there is none). */
function fileNameOf(url: URL): string {
  const last = url.pathname.split('/').pop() ?? '';
  try {
    return cleanFileName(decodeURIComponent(last));
  } catch {
    return cleanFileName(last);
  }
}

function refused(why: string): ValidationFailed {
  return ValidationFailed.field(FILE_URL_FIELD, `${FILE_URL_FIELD} could not be downloaded: ${why}.`);
}

function tooLarge(maxBytes: number): PayloadTooLarge {
  return new PayloadTooLarge(`The file at ${FILE_URL_FIELD} is larger than the limit of ${maxBytes} bytes.`);
}

function unreachable(url: string, error: unknown, timeoutMs: number): ValidationFailed {
  const cause = (error as { cause?: unknown }).cause;
  const blocked = error instanceof BlockedAddressError ? error : cause instanceof BlockedAddressError ? cause : null;
  if (blocked !== null) {
    return refused(
      `${blocked.reason}, which attachments may not be fetched from: private, loopback, link-local or reserved addresses are refused`,
    );
  }
  const name = (error as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError')
    return refused(`it did not send the whole file within ${timeoutMs} ms`);
  const code = (error as { code?: string }).code ?? (cause as { code?: string } | undefined)?.code;
  return refused(`${new URL(url).host} could not be reached${code ? ` (${code})` : ''}`);
}
