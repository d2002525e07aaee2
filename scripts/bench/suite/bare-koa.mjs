// The baseline of the benchmark: a bare Koa handler that reads and JSON-parses the same body,
// started the same way as the daemon (its own Node process, loopback). Usage: node bare-koa.mjs <port>
import http from 'node:http';
import Koa from 'koa';
import getRawBody from 'raw-body';

const app = new Koa();
app.use(async (ctx) => {
  // The load generator opens its connections with GET /healthz, as on the daemon.
  if (ctx.method === 'GET') {
    ctx.body = { status: 'ok' };
    return;
  }
  const raw = await getRawBody(ctx.req, { limit: 1024 * 1024 });
  JSON.parse(raw.toString('utf8'));
  ctx.body = { status: 'ok' };
});
const server = http.createServer(app.callback());
server.keepAliveTimeout = 5_000;
server.listen(Number(process.argv[2]), '127.0.0.1', () => process.stdout.write('listening\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
