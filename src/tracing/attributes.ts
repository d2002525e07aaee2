import {
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
  ATTR_URL_PATH,
} from '@opentelemetry/semantic-conventions';

/**
 * The attribute names of the gateway's spans (docs/tracing.md lists which span carries which).
 * HTTP names are the stable semantic conventions of @opentelemetry/semantic-conventions; the
 * messaging ones are still incubating there and are copied here, as that package advises; the
 * `gateway.*` ones are the gateway's own.
 */
export const ATTR = {
  httpMethod: ATTR_HTTP_REQUEST_METHOD,
  httpRoute: ATTR_HTTP_ROUTE,
  httpStatus: ATTR_HTTP_RESPONSE_STATUS_CODE,
  urlPath: ATTR_URL_PATH,
  urlFull: ATTR_URL_FULL,
  serverAddress: ATTR_SERVER_ADDRESS,
  serverPort: ATTR_SERVER_PORT,
  errorType: ATTR_ERROR_TYPE,
  dbSystem: ATTR_DB_SYSTEM_NAME,

  messagingSystem: 'messaging.system',
  messagingDestination: 'messaging.destination.name',
  messagingOperationType: 'messaging.operation.type',
  messagingOperationName: 'messaging.operation.name',
  messagingConsumerGroup: 'messaging.consumer.group.name',
  messagingMessageId: 'messaging.message.id',
  messagingBatchCount: 'messaging.batch.message_count',
  messagingKafkaKey: 'messaging.kafka.message.key',

  requestId: 'gateway.request_id',
  commitUnits: 'gateway.store.units',
  commitTracedUnits: 'gateway.store.traced_units',
  outboxRowId: 'gateway.outbox.row_id',
  eventId: 'gateway.event.id',
  eventName: 'gateway.event.name',
  companyId: 'gateway.company.id',
  deliveryId: 'gateway.delivery.id',
  endpointId: 'gateway.webhook.endpoint.id',
  attemptNumber: 'gateway.webhook.attempt',
  attemptStep: 'gateway.webhook.step',
  attemptTrigger: 'gateway.webhook.trigger',
  attemptOutcome: 'gateway.webhook.outcome',
  attemptDurationMs: 'gateway.webhook.duration_ms',
  provider: 'gateway.provider',
  channelId: 'gateway.channel.id',
  messageId: 'gateway.message.id',
  sendJobId: 'gateway.send.job_id',
  sendTry: 'gateway.send.try',
  sendResult: 'gateway.send.result',
  linkReason: 'gateway.link.reason',
} as const;
