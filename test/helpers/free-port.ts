import net from 'node:net';

/**
 * A loopback port nothing listens on now, for a process that must know its address before it
 * starts (a cluster's front, a core that keeps its port across restarts, a private broker).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
