import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // Starts (or reuses) a real single-node Kafka broker: scripts/kafka/kafka.sh
    globalSetup: ['test/global-setup.ts'],
    // Records what every outbox publishes: the tests' view of the events emitted (test/helpers/events.ts).
    setupFiles: ['test/record-published.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    // The first run may fetch the Kafka jars from Maven Central.
    hookTimeout: 120_000,
  },
});
