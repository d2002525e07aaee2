import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** Runs `body` in a child process with `createLogger` and `stdoutDestination` of the built log module in scope. */
function runLogging(body: string): { status: number | null; lines: { msg: string; n?: number }[] } {
  const log = path.resolve('dist/src/log.js');
  const script = `const { createLogger, stdoutDestination } = await import(${JSON.stringify(log)}); const logger = createLogger('info', stdoutDestination()); ${body}`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(child.stderr).toBe('');
  return {
    status: child.status,
    lines: child.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { msg: string; n?: number }),
  };
}

describe('stdoutDestination', () => {
  it('writes every line, in order, across turns of the event loop', () => {
    const { status, lines } = runLogging(`
      for (let n = 0; n < 500; n += 1) logger.info({ n }, 'first turn');
      setImmediate(() => { for (let n = 500; n < 1000; n += 1) logger.info({ n }, 'second turn'); });
    `);
    expect(status).toBe(0);
    expect(lines.map((line) => line.n)).toEqual(Array.from({ length: 1000 }, (_, n) => n));
    expect(lines[499]!.msg).toBe('first turn');
    expect(lines[500]!.msg).toBe('second turn');
  });

  it('writes the lines still held when the process exits at once', () => {
    const { status, lines } = runLogging(`
      logger.info({ n: 1 }, 'written');
      setImmediate(() => {
        logger.info({ n: 2 }, 'held');
        logger.info({ n: 3 }, 'held');
        process.exit(3);
      });
    `);
    expect(status).toBe(3);
    expect(lines.map((line) => [line.n, line.msg])).toEqual([
      [1, 'written'],
      [2, 'held'],
      [3, 'held'],
    ]);
  });

  it('redacts secrets as the logger always did', () => {
    const { lines } = runLogging(
      `logger.info({ channel: { id: 7, credentials: { token: 'bot-secret' } } }, 'channel');`,
    );
    expect(lines).toHaveLength(1);
    expect(JSON.stringify(lines[0])).not.toContain('bot-secret');
    expect((lines[0] as unknown as { channel: { credentials: string } }).channel.credentials).toBe('[redacted]');
  });
});
