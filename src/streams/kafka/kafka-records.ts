import {
  Partitioners,
  type ICustomPartitioner,
  type KafkaMessage as FetchedMessage,
  type Message,
  type PartitionerArgs,
  type PartitionMetadata,
} from 'kafkajs';
import type { IncomingMessage, OutgoingMessage } from '../stream.js';

/**
 * How stream messages travel as Kafka records. A record carries either one message (its id,
 * not_before and trace context in headers, its value as the record's value) or, packed, several
 * consecutive messages of one partition: the header `packed` and a JSON array of
 * `{key, id, not_before, traceparent?, value}` as the value. Packing spares kafkajs, the broker and
 * the consumer the per-record work (encoding, headers, CRC, one handler call per record) for most
 * messages; the consumer reads both kinds, so records written by either stay readable.
 */

/** Most messages in one packed record, and most characters of their JSON together (broker default limit: 1 MB). */
export const PACK_MESSAGES = 64;
export const PACK_CHARS = 256 * 1024;

/**
 * Most bytes of one partition's records in one produce request. kafkajs writes a request's records
 * of a partition as one record batch, and the broker refuses a batch over the topic's
 * `max.message.bytes` (1 MB by default) for good: the sender would try the same batch forever.
 * A record larger than this goes alone in its request.
 */
export const REQUEST_PARTITION_BYTES = 512 * 1024;

/**
 * `max.message.bytes` of the topics the gateway creates: a single event over the broker's default
 * 1 MB, with its delivery job around it, fits in one record (room for a raised GATEWAY_BODY_LIMIT_BYTES).
 */
export const TOPIC_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** A fetched message with its place in the topic and the consumer generation that fetched it. */
export interface KafkaMessage extends IncomingMessage {
  partition: number;
  offset: number;
  generation: number;
}

/** One entry of a packed record's value. */
interface PackedEntry {
  key: string;
  id: string;
  not_before: number;
  traceparent?: string;
  value: unknown;
}

/** A message ready to be written: its fields as its record carries them and its value's JSON text. */
export interface EncodedMessage {
  key: string;
  id: string;
  notBefore: number;
  traceparent: string | undefined;
  json: string;
}

/**
 * The partition of a key as the producer's partitioner places it (kafkajs's default: murmur2 of the
 * key modulo the partition count), with the topics' partition counts learned from the producer's
 * own calls of the partitioner. A topic the producer has not written to yet has no count: its
 * messages go out one per record and the producer places them, which teaches the count.
 */
export class PartitionPlacer {
  private readonly counts = new Map<string, PartitionMetadata[]>();
  private readonly place = Partitioners.DefaultPartitioner();

  /** The producer's partitioner: the default one, noting each topic's partitions as it goes. */
  readonly partitioner: ICustomPartitioner = () => (args: PartitionerArgs) => {
    this.counts.set(args.topic, args.partitionMetadata);
    return this.place(args);
  };

  /** The key's partition in the topic, or undefined while its partition count is unknown. */
  partitionOf(topic: string, key: string): number | undefined {
    const partitionMetadata = this.counts.get(topic);
    if (partitionMetadata === undefined) return undefined;
    return this.place({ topic, partitionMetadata, message: { key, value: null } });
  }
}

/** A published message with its not_before (`now` when it has none) and trace context (the `active` one when it has none). */
export function encodeMessage(m: OutgoingMessage, now: number, active: string | undefined): EncodedMessage {
  return {
    key: m.key,
    id: m.id,
    notBefore: m.notBefore ?? now,
    traceparent: m.traceparent ?? active,
    json: m.json ?? JSON.stringify(m.value),
  };
}

/** A record and the partition it goes to (undefined while the topic's partition count is unknown). */
export interface PlacedRecord {
  partition: number | undefined;
  record: Message;
}

/**
 * The records of messages sent together to `topic`: consecutive messages of a partition packed (at
 * most PACK_MESSAGES and PACK_CHARS a record, in the order given), a message alone as a plain record.
 */
export function encodeRecords(
  topic: string,
  messages: readonly EncodedMessage[],
  placer: PartitionPlacer,
): PlacedRecord[] {
  const byPartition = new Map<number | undefined, EncodedMessage[]>();
  for (const m of messages) {
    const partition = placer.partitionOf(topic, m.key);
    const list = byPartition.get(partition);
    if (list === undefined) byPartition.set(partition, [m]);
    else list.push(m);
  }
  const records: PlacedRecord[] = [];
  for (const [partition, list] of byPartition) {
    if (partition === undefined) {
      for (const m of list) records.push({ partition, record: plainRecord(m) });
      continue;
    }
    for (let from = 0; from < list.length;) {
      let to = from + 1;
      let chars = list[from]!.json.length;
      while (to < list.length && to - from < PACK_MESSAGES && chars + list[to]!.json.length <= PACK_CHARS)
        chars += list[to++]!.json.length;
      records.push({
        partition,
        record: to - from === 1 ? plainRecord(list[from]!) : packedRecord(list.slice(from, to), partition),
      });
      from = to;
    }
  }
  return records;
}

/**
 * The records of one send split into produce requests, in order, so that no partition's records
 * in one request pass REQUEST_PARTITION_BYTES (but for a single record larger than that, alone).
 * Records whose partition is unknown yet are counted as one partition.
 */
export function splitRequests(records: readonly PlacedRecord[]): Message[][] {
  const requests: Message[][] = [];
  let current: Message[] = [];
  let bytes = new Map<number | undefined, number>();
  for (const { partition, record } of records) {
    const size = Buffer.byteLength(record.value as string);
    const before = bytes.get(partition) ?? 0;
    if (before > 0 && before + size > REQUEST_PARTITION_BYTES) {
      requests.push(current);
      current = [];
      bytes = new Map();
    }
    current.push(record);
    bytes.set(partition, (bytes.get(partition) ?? 0) + size);
  }
  if (current.length > 0) requests.push(current);
  return requests;
}

function plainRecord(m: EncodedMessage): Message {
  const headers: Record<string, string> = { 'message-id': m.id, 'not-before': String(m.notBefore) };
  if (m.traceparent !== undefined) headers.traceparent = m.traceparent;
  return { key: m.key, value: m.json, headers };
}

function packedRecord(list: readonly EncodedMessage[], partition: number): Message {
  let text = '[';
  for (const m of list) {
    if (text.length > 1) text += ',';
    text += `{"key":${JSON.stringify(m.key)},"id":${JSON.stringify(m.id)},"not_before":${m.notBefore}`;
    if (m.traceparent !== undefined) text += `,"traceparent":${JSON.stringify(m.traceparent)}`;
    text += `,"value":${m.json}}`;
  }
  return { partition, value: `${text}]`, headers: { packed: String(list.length) } };
}

/** The stream messages of a fetched record, in order (one for a plain record, its entries for a packed one). */
export function decodeRecord(
  stream: string,
  partition: number,
  message: FetchedMessage,
  generation: number,
): KafkaMessage[] {
  const offset = Number(message.offset);
  const headers = message.headers;
  const text = message.value?.toString() ?? 'null';
  if (headers?.packed === undefined) {
    return [
      {
        stream,
        key: message.key?.toString() ?? '',
        id: headers?.['message-id']?.toString() ?? `${stream}/${partition}/${offset}`,
        value: JSON.parse(text) as unknown,
        notBefore: Number(headers?.['not-before']?.toString() ?? 0),
        traceparent: headers?.traceparent?.toString(),
        partition,
        offset,
        generation,
      },
    ];
  }
  return (JSON.parse(text) as PackedEntry[]).map((entry) => ({
    stream,
    key: entry.key,
    id: entry.id,
    value: entry.value,
    notBefore: entry.not_before,
    traceparent: entry.traceparent,
    partition,
    offset,
    generation,
  }));
}
