import fs from 'node:fs';
import net from 'node:net';

/** Where the kernel picks the local ports of outgoing connections (Linux's default when unreadable). */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    return [Number(low), Number(high)];
  } catch {
    return [32768, 60999];
  }
}

/** Ports below the ephemeral range that freePort draws from. */
const LOWEST = 10_000;

/** Whether a loopback listen on `port` works now. */
function listens(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A loopback port nothing listens on now, for a process that must know its address before it
 * starts (a cluster's front, a core that keeps its port across restarts, a private broker). It is
 * drawn below the kernel's ephemeral range: a port from that range can be taken by any outgoing
 * connection (a Kafka client's, say) between this answer and the process's listen.
 */
export async function freePort(): Promise<number> {
  const [ephemeralLow] = ephemeralRange();
  const high = Math.max(LOWEST + 1_000, ephemeralLow) - 1;
  for (let tries = 0; tries < 100; tries += 1) {
    const port = LOWEST + Math.floor(Math.random() * (high - LOWEST + 1));
    if (await listens(port)) return port;
  }
  throw new Error(`no free loopback port found between ${LOWEST} and ${high}`);
}
