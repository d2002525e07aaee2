import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startGateway } from '../../src/roles/server.js';
import { freePort } from '../helpers/free-port.js';
import { memoryLogger } from '../helpers/wait.js';

describe('gateway start', () => {
  it('answers requests that arrive while the pipeline is still starting, once it is up (none hangs)', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-startup-'));
    const port = await freePort();
    // Kafka mode: creating the topics keeps the pipeline starting for a while after the port is bound.
    const config = loadConfig({
      GATEWAY_PORT: String(port),
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_KAFKA_BROKERS: inject('kafkaBrokers'),
      GATEWAY_KAFKA_NAMESPACE: `startup-${Date.now()}.`,
    });
    const outcomes: string[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const outcome = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(10_000) }).then(
          (response) => String(response.status),
          (error: Error) => (error.name === 'TimeoutError' ? 'hung' : 'refused'),
        );
        outcomes.push(outcome);
        if (outcome === '200') break;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    const gateway = await startGateway(config, memoryLogger().logger);
    try {
      await poller;
      expect(outcomes).not.toContain('hung');
      expect(outcomes.at(-1)).toBe('200');
    } finally {
      polling = false;
      await gateway.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
