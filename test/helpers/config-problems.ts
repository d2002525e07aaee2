import { expect } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';

/** The problems loadConfig refuses `env` with; fails the test when it accepts it. */
export function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}
