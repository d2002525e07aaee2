// A tiny OTLP/HTTP trace receiver for the bench (cpu.mjs with BENCH_TRACING): takes every export to
// POST /v1/traces, counts its spans (http/protobuf or http/json) and answers as a collector does.
// Runs as a child process of the bench with an IPC channel: it sends {port} once listening, answers
// {type: 'status'} with {requests, bytes, spans} and exits on {type: 'stop'}.
import http from 'node:http';

let requests = 0;
let bytes = 0;
let spans = 0;

/** Reads a protobuf varint at `at`; answers [value, next offset]. */
function varint(buffer, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = buffer[at++];
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [value, at];
    shift += 7;
  }
}

/** The length-delimited fields numbered `field` of a protobuf message, as [start, end] ranges. */
function fields(buffer, start, end, field) {
  const found = [];
  for (let at = start; at < end;) {
    const [key, next] = varint(buffer, at);
    const wire = key & 7;
    at = next;
    if (wire === 0) at = varint(buffer, at)[1];
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) {
      const [length, body] = varint(buffer, at);
      if (key >>> 3 === field) found.push([body, body + length]);
      at = body + length;
    } else throw new Error(`unexpected wire type ${wire}`);
  }
  return found;
}

/** Spans of an ExportTraceServiceRequest: resource_spans (1) → scope_spans (2) → spans (2). */
function countProtobuf(buffer) {
  let n = 0;
  for (const [rs, rsEnd] of fields(buffer, 0, buffer.length, 1)) {
    for (const [ss, ssEnd] of fields(buffer, rs, rsEnd, 2)) n += fields(buffer, ss, ssEnd, 2).length;
  }
  return n;
}

function countJson(text) {
  const body = JSON.parse(text);
  return body.resourceSpans.reduce((sum, rs) => sum + rs.scopeSpans.reduce((s, ss) => s + ss.spans.length, 0), 0);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    requests += 1;
    bytes += body.length;
    const json = String(req.headers['content-type']).startsWith('application/json');
    spans += json ? countJson(body.toString('utf8')) : countProtobuf(body);
    // An empty ExportTraceServiceResponse: `{}` as JSON, no bytes as protobuf.
    res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '');
  });
});

server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (message) => {
  if (message.type === 'status') process.send({ requests, bytes, spans });
  else if (message.type === 'stop') server.close(() => process.exit(0));
});
