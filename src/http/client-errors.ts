import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError, BadRequest, HeadersTooLarge, PayloadTooLarge, RequestTimeout } from '../errors/errors.js';
import { errorEntries, httpStatusOf } from './render-errors.js';

/**
 * Requests Node's HTTP parser refuses before the app sees them (a head over 16 KiB, a client slower
 * than GATEWAY_HEADERS_TIMEOUT or GATEWAY_REQUEST_TIMEOUT, bytes that are not HTTP) are answered in
 * the contract's error shape, as the app answers everything else, and their connection is closed.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const response = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    // A reset connection has no one to answer; a response under way cannot get a second head.
    if (error.code === 'ECONNRESET' || !socket.writable || response?.headersSent === true) {
      socket.destroy();
      return;
    }
    const refusal = refusalOf(error);
    const status = httpStatusOf(refusal);
    const body = JSON.stringify({ errors: errorEntries(refusal) });
    // Destroyed once written, as Node does: a request still being read (an upload) sees its end.
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
      () => socket.destroy(),
    );
  });
}

function refusalOf(error: NodeJS.ErrnoException): AppError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new HeadersTooLarge('The request line and headers are larger than 16 KiB.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new RequestTimeout('The request was not received in time.');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new PayloadTooLarge('The chunk extensions are larger than the server reads.');
    default:
      return new BadRequest('The request is not valid HTTP.');
  }
}
