import type { ITopicConfig, Kafka } from 'kafkajs';
import pRetry from 'p-retry';

/**
 * Creates the topics that do not exist yet and waits for their partition leaders. Processes that
 * start together (the cores and workers of a cluster) create topics at once; the broker can then
 * answer a metadata request with a retriable error (the topic not hosted yet), which kafkajs' own
 * wait does not retry: the whole step is tried again, a few times, over about five seconds.
 */
export async function ensureTopics(kafka: Kafka, topics: readonly ITopicConfig[]): Promise<void> {
  await pRetry(
    async () => {
      const admin = kafka.admin();
      await admin.connect();
      try {
        const existing = new Set(await admin.listTopics());
        const missing = topics.filter((t) => !existing.has(t.topic));
        if (missing.length > 0) await admin.createTopics({ waitForLeaders: true, topics: missing });
      } finally {
        await admin.disconnect();
      }
    },
    {
      retries: 6,
      minTimeout: 200,
      maxTimeout: 1_500,
      shouldRetry: ({ error }) => (error as { retriable?: boolean }).retriable === true,
    },
  );
}
