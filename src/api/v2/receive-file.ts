import fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { discardRest } from '../../http/body.js';
import { bodyTimedOut } from '../../http/body-deadline.js';
import { AppError, BadRequest, PayloadTooLarge, ValidationFailed } from '../../errors/errors.js';

export const FILE_FIELD = 'file';
const MAX_FILE_NAME = 255;

export interface ReceivedFile {
  path: string;
  fileName: string;
  declaredType: string;
  size: number;
}

/** A multipart body as read: its `file` part on disk (when it had one) and its text fields, in order. */
export interface ReceivedParts {
  file: ReceivedFile | undefined;
  fields: [string, string][];
}

/** Streams the one `file` part of a multipart body to `partPath` (see receiveParts); a body without one is a 422. */
export async function receiveFile(req: IncomingMessage, partPath: string, maxBytes: number): Promise<ReceivedFile> {
  const { file } = await receiveParts(req, partPath, maxBytes);
  if (file === undefined) {
    throw ValidationFailed.field(
      FILE_FIELD,
      `${FILE_FIELD} is required: send it as a file part of a multipart/form-data body`,
    );
  }
  return file;
}

/**
 * Streams the one `file` part of a multipart body to `partPath`, stopping at `maxBytes`, and keeps
 * its text fields (at most 20, of 64 KiB each; a longer one is a 400). On any failure (too large,
 * malformed, cut short) the partial file is closed and removed before the error is thrown, and the
 * rest of the body is read and dropped, so that the client gets to read the answer.
 */
export async function receiveParts(
  req: IncomingMessage,
  partPath: string,
  maxBytes: number,
  timeoutMs?: number,
): Promise<ReceivedParts> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      defParamCharset: 'utf8', // browsers send file names as raw UTF-8
      // busboy reports 'limit' on reaching the size, so a file of exactly maxBytes needs one more
      limits: { fileSize: maxBytes + 1, files: 2, fields: 20, fieldSize: 64 * 1024, parts: 24 },
    });
  } catch {
    throw new BadRequest('The multipart body has no boundary.');
  }

  let file: { fileName: string; declaredType: string; sink: FileSink } | undefined;
  const fields: [string, string][] = [];
  const parsed = new Promise<void>((resolve, reject) => {
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated || info.nameTruncated)
        reject(new BadRequest(`The multipart field "${name.slice(0, 64)}" is longer than 64 KiB.`));
      else fields.push([name, value]);
    });
    parser.on('file', (field, stream, info) => {
      if (field !== FILE_FIELD || file !== undefined) {
        stream.resume();
        if (field === FILE_FIELD) reject(oneFileOnly());
        return;
      }
      file = {
        fileName: cleanFileName(info.filename),
        declaredType: info.mimeType,
        sink: new FileSink(stream, partPath),
      };
      stream.once('limit', () =>
        reject(new PayloadTooLarge(`The file is larger than the limit of ${maxBytes} bytes.`)),
      );
      file.sink.written.catch(reject);
    });
    parser.once('filesLimit', () => reject(oneFileOnly()));
    parser.once('partsLimit', () => reject(new BadRequest('The multipart body has too many parts.')));
    parser.once('fieldsLimit', () => reject(new BadRequest('The multipart body has too many fields.')));
    parser.once('error', () => reject(new BadRequest('The multipart body could not be read.')));
    parser.once('close', resolve);
    req.once('aborted', () => reject(new BadRequest('The upload was interrupted.')));
    // The body's own deadline (GATEWAY_BODY_TIMEOUT) where one is given: a 408, cleaned up below.
    if (timeoutMs !== undefined) {
      const timer = setTimeout(() => reject(bodyTimedOut(timeoutMs)), timeoutMs);
      parser.once('close', () => clearTimeout(timer));
      req.once('close', () => clearTimeout(timer));
    }
    req.once('error', () => reject(new BadRequest('The upload was interrupted.')));
  });
  req.pipe(parser);

  try {
    await parsed;
    const size = await file?.sink.written;
    if (file === undefined || size === undefined) return { file: undefined, fields };
    if (size === 0) throw ValidationFailed.field(FILE_FIELD, `${FILE_FIELD} must not be empty`);
    return { file: { path: partPath, fileName: file.fileName, declaredType: file.declaredType, size }, fields };
  } catch (error) {
    req.unpipe(parser);
    discardRest(req);
    await file?.sink.abort();
    await fs.promises.rm(partPath, { force: true });
    throw error instanceof AppError ? error : new BadRequest('The upload could not be read.');
  }
}

/**
 * The file part piped into its file on disk. `written` settles when the file is complete (its
 * size) or failed; `abort` stops writing and resolves once the file is closed, whatever state the
 * part's stream is in (stopped at the size limit, still flowing, or waiting on the disk), so the
 * caller can remove it right after.
 */
class FileSink {
  readonly written: Promise<number>;
  private readonly out: fs.WriteStream;
  private size = 0;

  constructor(
    private readonly part: Readable,
    file: string,
  ) {
    this.out = fs.createWriteStream(file, { flags: 'wx' });
    part.on('data', (chunk: Buffer) => {
      this.size += chunk.length;
    });
    this.written = new Promise<number>((resolve, reject) => {
      // Closed, not only finished: the file is renamed and read right after.
      this.out.once('close', () =>
        this.out.writableFinished ? resolve(this.size) : reject(new Error('the file was not written completely')),
      );
      this.out.once('error', reject);
      part.once('error', reject);
    });
    this.written.catch(() => undefined); // observed by the caller; never an unhandled rejection
    part.pipe(this.out);
  }

  async abort(): Promise<void> {
    this.part.unpipe(this.out);
    this.part.resume(); // the parser waits for the part to be read before it goes on
    if (this.out.closed) return;
    const closed = new Promise<void>((resolve) => this.out.once('close', () => resolve()));
    this.out.destroy();
    await closed;
  }
}

function oneFileOnly(): ValidationFailed {
  return ValidationFailed.field(FILE_FIELD, 'send one file per request (a message carries one attachment)');
}

/** The client's name without folders or control characters; a safe default when none is left. */
export function cleanFileName(name: string | undefined): string {
  // Browsers (and fetch's FormData) send a quote in a file name as %22 (WHATWG multipart encoding).
  const base = (name ?? '').replaceAll('%22', '"').split(/[/\\]/).pop() ?? '';

  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  const short = [...clean].slice(0, MAX_FILE_NAME).join('');
  return short === '' || short === '.' || short === '..' ? 'file' : short;
}
