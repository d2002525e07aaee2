import { inject } from 'vitest';
import { KafkaStreamBus } from '../../src/streams/kafka-stream.js';
import { memoryLogger } from '../pipeline/wait.js';
import { streamConformance } from './conformance.js';

// Against the real broker of test/global-setup.ts; every test uses its own topics and groups.
streamConformance(
  'Kafka',
  async (clock) => {
    const bus = new KafkaStreamBus({ brokers: inject('kafkaBrokers').split(','), clock, clientId: 'conformance' }, memoryLogger().logger);
    return { bus, close: () => bus.close() };
  },
  { leaseMs: 0 },
);
