import http from 'node:http';
import net from 'node:net';
import { StringDecoder } from 'node:string_decoder';

/** One Server-Sent Events message with an id, as the live event stream sends them. */
export interface SseMessage {
  id: string;
  event: string;
  data: Record<string, unknown>;
}

/** An open stream: its status and headers, its messages so far, all its text, and a close. */
export interface OpenSse {
  status: number;
  headers: http.IncomingHttpHeaders;
  messages: SseMessage[];
  text: () => string;
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
  close: () => void;
}

/** Parses SSE text into messages; answers the text after the last complete message. */
export function parseSse(buffer: string, into: SseMessage[]): string {
  let end: number;
  while ((end = buffer.indexOf('\n\n')) >= 0) {
    const block = buffer.slice(0, end);
    buffer = buffer.slice(end + 2);
    const fields = new Map<string, string>();
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      fields.set(line.slice(0, colon), line.slice(colon + 2));
    }
    const id = fields.get('id');
    const event = fields.get('event');
    const data = fields.get('data');
    if (id !== undefined && event !== undefined && data !== undefined)
      into.push({ id, event, data: JSON.parse(data) as Record<string, unknown> });
  }
  return buffer;
}

/** Opens `path` on `baseUrl` as an event stream; resolves once the answer's head arrived. */
export function openSse(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<OpenSse> {
  return new Promise((resolve, reject) => {
    const req = http.get(new URL(path, baseUrl), { headers }, (res) => {
      const messages: SseMessage[] = [];
      let buffer = '';
      let all = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        all += chunk;
        buffer = parseSse(buffer + chunk, messages);
      });
      res.on('error', () => {});
      const ended = new Promise<void>((done) => res.once('end', () => done()));
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        messages,
        text: () => all,
        ended,
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}

/**
 * A stream read over a raw socket the test can stop reading (pause) and read again (resume): the
 * reader that does not keep up. Resolves once the answer's head arrived, with the socket paused.
 */
export function openPausedSse(
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<{ head: string; messages: SseMessage[]; resume: () => void; close: () => void }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const messages: SseMessage[] = [];
    let head: string | undefined;
    let raw = Buffer.alloc(0);
    let buffer = '';
    const utf8 = new StringDecoder('utf8');
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      if (head === undefined) {
        raw = Buffer.concat([raw, chunk]);
        const end = raw.indexOf('\r\n\r\n');
        if (end < 0) return;
        head = raw.subarray(0, end).toString('latin1');
        chunk = raw.subarray(end + 4);
        socket.pause();
        resolve({ head, messages, resume: () => socket.resume(), close: () => socket.destroy() });
      }
      buffer = parseSse(buffer + utf8.write(chunk), messages);
    });
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    // HTTP/1.0: the body comes as it is written, without the chunked coding's framing.
    socket.write(`GET ${path} HTTP/1.0\r\nhost: 127.0.0.1:${port}\r\n${lines.join('')}\r\n`);
  });
}
