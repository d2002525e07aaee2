// Stream messages as Kafka records: placed where kafkajs's default partitioner places their key,
// packed per partition once the topic's partition count is known, and read back as they were
// published. The broker's side is in test/streams/kafka.test.ts and test/tracing/kafka-headers.test.ts.
import { Partitioners, type KafkaMessage as FetchedMessage, type Message, type PartitionMetadata } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import {
  decodeRecord,
  encodeMessage,
  encodeRecords,
  PACK_CHARS,
  PACK_MESSAGES,
  PartitionPlacer,
  REQUEST_PARTITION_BYTES,
  splitRequests,
  type PlacedRecord,
} from './kafka-records.js';
import type { OutgoingMessage } from '../stream.js';

const TOPIC = 'ns.gateway.events';

/** Partition metadata of a topic with `n` partitions, as kafkajs hands it to a partitioner. */
function partitions(n: number): PartitionMetadata[] {
  return Array.from({ length: n }, (_, partitionId) => ({
    partitionErrorCode: 0,
    partitionId,
    leader: 0,
    replicas: [0],
    isr: [0],
  }));
}

/** A placer that has seen the producer place one message in a topic of `n` partitions. */
function placerOf(n: number): PartitionPlacer {
  const placer = new PartitionPlacer();
  placer.partitioner()({ topic: TOPIC, partitionMetadata: partitions(n), message: { key: 'any', value: null } });
  return placer;
}

/** A written record as a consumer fetches it (kafkajs hands values and headers over as Buffers). */
function fetched(record: Message, offset: number): FetchedMessage {
  const headers = Object.fromEntries(
    Object.entries(record.headers ?? {}).map(([name, value]) => [name, Buffer.from(String(value))]),
  );
  return {
    key: record.key === undefined || record.key === null ? null : Buffer.from(record.key),
    value: Buffer.from(String(record.value)),
    headers,
    offset: String(offset),
    timestamp: '0',
    attributes: 0,
  };
}

/** The records of messages sent together, published at `now` with `active` as the trace context of the moment. */
function recordsOf(
  messages: OutgoingMessage[],
  placer: PartitionPlacer,
  now: number,
  active: string | undefined,
): Message[] {
  return encodeRecords(
    TOPIC,
    messages.map((m) => encodeMessage(m, now, active)),
    placer,
  ).map((placed) => placed.record);
}

const message = (key: string, n: number, extra: Partial<OutgoingMessage> = {}): OutgoingMessage => ({
  key,
  id: `${key}-${n}`,
  value: { key, n },
  ...extra,
});

describe('PartitionPlacer', () => {
  it('places a key where kafkajs places it, once the producer has placed one message in the topic', () => {
    const placer = new PartitionPlacer();
    expect(placer.partitionOf(TOPIC, 'k')).toBeUndefined();
    const kafkajs = Partitioners.DefaultPartitioner();
    const learn = placer.partitioner();
    expect(learn({ topic: TOPIC, partitionMetadata: partitions(6), message: { key: 'first', value: null } })).toBe(
      kafkajs({ topic: TOPIC, partitionMetadata: partitions(6), message: { key: 'first', value: null } }),
    );
    const seen = new Set<number>();
    for (let company = 1; company <= 200; company += 1) {
      const key = `${company}:${company * 7}`;
      const expected = kafkajs({ topic: TOPIC, partitionMetadata: partitions(6), message: { key, value: null } });
      expect(placer.partitionOf(TOPIC, key)).toBe(expected);
      seen.add(expected);
    }
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(placer.partitionOf('ns.other', 'k')).toBeUndefined();
  });

  it('follows a topic whose partition count grew', () => {
    const placer = placerOf(1);
    expect(placer.partitionOf(TOPIC, 'k7')).toBe(0);
    placer.partitioner()({ topic: TOPIC, partitionMetadata: partitions(12), message: { key: 'x', value: null } });
    expect(placer.partitionOf(TOPIC, 'k7')).toBe(
      Partitioners.DefaultPartitioner()({
        topic: TOPIC,
        partitionMetadata: partitions(12),
        message: { key: 'k7', value: null },
      }),
    );
  });
});

describe('encodeRecords', () => {
  it('writes one plain record per message while the partition count is unknown', () => {
    const records = recordsOf(
      [message('a', 1), message('a', 2, { traceparent: 'tp', notBefore: 5 })],
      new PartitionPlacer(),
      1_000,
      undefined,
    );
    expect(records).toEqual([
      { key: 'a', value: '{"key":"a","n":1}', headers: { 'message-id': 'a-1', 'not-before': '1000' } },
      { key: 'a', value: '{"key":"a","n":2}', headers: { 'message-id': 'a-2', 'not-before': '5', traceparent: 'tp' } },
    ]);
  });

  it('packs the messages of a partition in publish order, and writes a message alone as a plain record', () => {
    const placer = placerOf(2);
    const byPartition = new Map<number, string[]>();
    for (const key of ['a', 'b', 'c', 'd', 'e', 'f']) {
      const partition = placer.partitionOf(TOPIC, key)!;
      byPartition.set(partition, [...(byPartition.get(partition) ?? []), key]);
    }
    expect(byPartition.size).toBe(2);
    const [crowded, lonely] = [...byPartition.keys()].sort(
      (x, y) => byPartition.get(y)!.length - byPartition.get(x)!.length,
    ) as [number, number];
    const crowdedKeys = byPartition.get(crowded)!;
    const lonelyKey = byPartition.get(lonely)![0]!;
    const messages = [
      ...crowdedKeys.map((key, n) => message(key, n, { json: `{"k":"${key}"}` })),
      message(lonelyKey, 9),
    ];
    const records = recordsOf(messages, placer, 7, 'active-tp');
    expect(records).toHaveLength(2);
    expect(records[0]).toEqual({
      partition: crowded,
      value: expect.any(String),
      headers: { packed: String(crowdedKeys.length) },
    });
    expect(JSON.parse(String(records[0]!.value))).toEqual(
      crowdedKeys.map((key, n) => ({
        key,
        id: `${key}-${n}`,
        not_before: 7,
        traceparent: 'active-tp',
        value: { k: key },
      })),
    );
    expect(records[1]).toEqual({
      key: lonelyKey,
      value: `{"key":"${lonelyKey}","n":9}`,
      headers: { 'message-id': `${lonelyKey}-9`, 'not-before': '7', traceparent: 'active-tp' },
    });
    expect(lonely).not.toBe(crowded);
  });

  it(`packs at most ${PACK_MESSAGES} messages and ${PACK_CHARS} characters of them in one record`, () => {
    const placer = placerOf(1);
    const many = Array.from({ length: PACK_MESSAGES * 2 + 1 }, (_, n) => message('k', n));
    expect(recordsOf(many, placer, 0, undefined).map((r) => r.headers?.packed ?? 'plain')).toEqual([
      String(PACK_MESSAGES),
      String(PACK_MESSAGES),
      'plain',
    ]);
    const third = 'x'.repeat(Math.floor(PACK_CHARS / 3));
    const big = Array.from({ length: 5 }, (_, n) => message('k', n, { json: JSON.stringify(third) }));
    const records = recordsOf(big, placer, 0, undefined);
    expect(records.map((r) => r.headers?.packed ?? 'plain')).toEqual(['2', '2', 'plain']);
    const huge = message('k', 0, { json: JSON.stringify('y'.repeat(PACK_CHARS * 2)) });
    expect(recordsOf([huge, message('k', 1)], placer, 0, undefined).map((r) => r.headers?.packed ?? 'plain')).toEqual([
      'plain',
      'plain',
    ]);
  });
});

describe('splitRequests', () => {
  const record = (key: string, bytes: number, partition?: number): PlacedRecord => ({
    partition,
    record: { key, value: 'x'.repeat(bytes) },
  });
  const shape = (requests: Message[][]) =>
    requests.map((request) => request.map((r) => `${String(r.key)}:${String(r.value).length}`));

  it('keeps each partition of a request under the limit, in order, and a larger record alone', () => {
    const part = Math.floor(REQUEST_PARTITION_BYTES * 0.4);
    const big = REQUEST_PARTITION_BYTES * 2;
    const requests = splitRequests([
      record('a', part, 0),
      record('b', part, 1),
      record('c', part, 0),
      record('d', part, 0),
      record('e', big, 1),
      record('f', 10, 1),
    ]);
    expect(shape(requests)).toEqual([[`a:${part}`, `b:${part}`, `c:${part}`], [`d:${part}`, `e:${big}`], ['f:10']]);
  });

  it('counts bytes, not characters, and takes plain records of an unknown partition as one partition', () => {
    const wide = Math.floor(REQUEST_PARTITION_BYTES / 4);
    const euro = (key: string): PlacedRecord => ({ partition: undefined, record: { key, value: '€'.repeat(wide) } }); // 3 bytes each
    expect(shape(splitRequests([euro('x'), euro('y'), euro('z')]))).toEqual([
      [`x:${wide}`],
      [`y:${wide}`],
      [`z:${wide}`],
    ]);
    expect(splitRequests([])).toEqual([]);
  });
});

describe('decodeRecord', () => {
  it('reads back every message of plain and packed records as published, at the record offset', () => {
    const placer = placerOf(1);
    const published = [
      message('a', 1, { notBefore: 11 }),
      message('b', 2, { traceparent: 'tp-b', value: { text: 'ünïcode "quoted"' } }),
      message('a', 3),
    ];
    const packed = recordsOf(published, placer, 20, undefined);
    const plain = recordsOf([message('c', 4)], new PartitionPlacer(), 30, undefined);
    expect(decodeRecord('gateway.events', 0, fetched(packed[0]!, 41), 3)).toEqual([
      {
        stream: 'gateway.events',
        key: 'a',
        id: 'a-1',
        value: { key: 'a', n: 1 },
        notBefore: 11,
        traceparent: undefined,
        partition: 0,
        offset: 41,
        generation: 3,
      },
      {
        stream: 'gateway.events',
        key: 'b',
        id: 'b-2',
        value: { text: 'ünïcode "quoted"' },
        notBefore: 20,
        traceparent: 'tp-b',
        partition: 0,
        offset: 41,
        generation: 3,
      },
      {
        stream: 'gateway.events',
        key: 'a',
        id: 'a-3',
        value: { key: 'a', n: 3 },
        notBefore: 20,
        traceparent: undefined,
        partition: 0,
        offset: 41,
        generation: 3,
      },
    ]);
    expect(decodeRecord('gateway.events', 2, fetched(plain[0]!, 42), 3)).toEqual([
      {
        stream: 'gateway.events',
        key: 'c',
        id: 'c-4',
        value: { key: 'c', n: 4 },
        notBefore: 30,
        traceparent: undefined,
        partition: 2,
        offset: 42,
        generation: 3,
      },
    ]);
  });

  it('names a plain record without a message id by its place in the topic', () => {
    const record = fetched({ key: 'k', value: '{"a":1}' }, 9);
    expect(decodeRecord('s', 1, record, 0)).toEqual([
      {
        stream: 's',
        key: 'k',
        id: 's/1/9',
        value: { a: 1 },
        notBefore: 0,
        traceparent: undefined,
        partition: 1,
        offset: 9,
        generation: 0,
      },
    ]);
  });
});
