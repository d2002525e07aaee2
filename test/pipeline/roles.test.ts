import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = path.resolve('bin/gateway.js');

describe('gateway serve --role', () => {
  it.each(['worker', 'core'])(
    'refuses --role %s without Kafka: embedded streams live in the one process owning the store',
    (role) => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-roles-'));
      try {
        const result = spawnSync(process.execPath, [BIN, 'serve', '--role', role], {
          env: { ...process.env, GATEWAY_DATA_DIR: dataDir, GATEWAY_PORT: '0', GATEWAY_KAFKA_BROKERS: '' },
          encoding: 'utf8',
          timeout: 20_000,
        });
        expect(result.status).toBe(2);
        expect(result.stderr).toContain(`--role ${role} needs GATEWAY_KAFKA_BROKERS`);
        expect(fs.existsSync(path.join(dataDir, 'gateway.db'))).toBe(false);
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );
});
