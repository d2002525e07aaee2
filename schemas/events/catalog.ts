import { WEBHOOK_EVENT_TYPES, WEBHOOK_URL_TEST_EVENT, type WebhookEventType } from '../objects/webhook.js';
import { authEvent } from './auth.js';
import { channelV1Event } from './channel-v1.js';
import { contactEvent } from './contact.js';
import { conversationEvent } from './conversation.js';
import { deliveryEvent } from './delivery.js';
import { EVENT_EXAMPLES } from './examples.js';
import { jobV1Event } from './job-v1.js';
import { groupConversationContactV1Event } from './messaging-v1.js';
import { messageEvent } from './message.js';
import { webhookUrlTestEvent } from './webhook-url-test.js';
import { webhookEvent, webhookTestEvent } from './webhook.js';

/** One event type as the catalog describes it (GET /api/p2/event_types, the `webhooks` of /openapi.json). */
export interface EventTypeEntry {
  /** `<type>.<event>`: the name endpoint filters match and the admin API's `event_type`. */
  name: string;
  description: string;
  /** Whether an endpoint's `event_types` may name it; the test events go to the endpoint asked for whatever its filter. */
  filterable: boolean;
  /** The JSON Schema of the body an endpoint receives (draft 2020-12, no `$id`). */
  schema: object;
  example: object;
}

/** The events sent to one endpoint whatever its filter. */
const TEST_EVENTS = ['webhook.test', WEBHOOK_URL_TEST_EVENT] as const;

const DESCRIPTIONS: Record<WebhookEventType | (typeof TEST_EVENTS)[number], string> = {
  'message.create':
    "A message was received, or an outgoing one was accepted (not for sends with send_to_crm false). The company's v1 webhook_url receives it in its v1 shape, a group's as the group chat payload (schemas/events/messaging-v1.ts).",
  'message.update':
    "An outgoing message moved on at the provider: external_id set, status sent, delivered or read, or error with the reason in details. The company's v1 webhook_url receives it in its v1 shape, a group's as the group chat payload (schemas/events/messaging-v1.ts).",
  'conversation.create':
    "A new conversation was opened by a new sender. The company's v1 webhook_url receives it in its v1 shape, a group's as the group chat payload (schemas/events/messaging-v1.ts).",
  'conversation.update':
    "A conversation changed its operational state, replied state, assignee, note or sender, or a group conversation got a new participant. The company's v1 webhook_url receives it in its v1 shape (schemas/events/messaging-v1.ts), a group's not at all.",
  'auth.create': 'An auth (a channel) was created.',
  'auth.update':
    'An auth changed state (enabled, disabled), or carries a QR code, pairing code, pages or an OAuth URL to show.',
  'auth.delete': 'An auth was deleted; the object is the auth as it was removed (disabled).',
  'contact.delete':
    'A contact was erased (DELETE /api/p2/companies/<id>/contacts/<id>): its conversations, messages and files are gone, and its data is scrubbed from kept events and deliveries. The object names only ids.',
  'channel.qr_code': 'v1 channels: a QR code to scan, as a base64 PNG (`type: qr_code`, `event: new`).',
  'channel.code': 'v1 channels: a pairing code to enter (`type: code`, `event: new`).',
  'channel.state':
    'v1 channels: a `type: system` notice about the session, with its severity: authorized, disabled, phone offline, phone online, unavailable, trying_resume_work, synchronized.',
  'channel.pages': 'v1 channels: the business pages to choose from (`type: pages`, `event: new`).',
  'job.executed':
    'v1 write first: the job finished, DELIVERED or NOT DELIVERED with the reason; integer ids, `date` in unix seconds.',
  'group_conversation_contact.new':
    "v1 group chats: a member wrote in a group conversation for the first time (`type: group_conversation_contact`, `event: new`); v2 shows them in the conversation's `participants`.",
  'webhook.disabled':
    'A webhook endpoint of the company was disabled: by the gateway (410 Gone, no success for GATEWAY_WEBHOOK_DISABLE_AFTER), through the API, the admin API or the portal. The endpoint itself never receives it. Also sent to the operator webhook.',
  'webhook.enabled': 'A disabled webhook endpoint of the company was enabled again. Also sent to the operator webhook.',
  'delivery.failed':
    "A delivery of an event to one of the company's endpoints failed for good; it stays replayable. The endpoint that failed does not receive it; never written for deliveries of operational events. Also sent to the operator webhook.",
  'webhook.test': "A test event the company sent to one endpoint from the portal, whatever the endpoint's filter.",
  'webhook_url.test':
    "v1: the test POST a company's webhook_url gets when it is set or changed, `{source, operation: test}`.",
};

/**
 * A family's schema for one of its names: `field` (the envelope's `event`, the v1 payload's `type`)
 * fixed to `value`. Without any `$id`, nested ones included: each entry stands alone, and one id may
 * name only one schema where several entries are compiled together.
 */
function narrowed(schema: { properties: object }, field: string, value: string): object {
  const rest = withoutIds(schema) as { properties: Record<string, object> };
  return { ...rest, properties: { ...rest.properties, [field]: { type: 'string', const: value } } };
}

function withoutIds(schema: object): object {
  return JSON.parse(JSON.stringify(schema, (key, inner: unknown) => (key === '$id' ? undefined : inner))) as object;
}

function schemaOf(name: string): object {
  const [type, event] = name.split('.') as [string, string];
  switch (type) {
    case 'message':
      return narrowed(messageEvent, 'event', event);
    case 'conversation':
      return narrowed(conversationEvent, 'event', event);
    case 'auth':
      return narrowed(authEvent, 'event', event);
    case 'contact':
      return narrowed(contactEvent, 'event', event);
    case 'channel':
      // The v1 payload's `type` is the name's second part, but `system` for channel.state.
      return narrowed(channelV1Event, 'type', event === 'state' ? 'system' : event);
    case 'job':
      return narrowed(jobV1Event, 'event', event);
    case 'group_conversation_contact':
      return withoutIds(groupConversationContactV1Event);
    case 'webhook':
      return event === 'test' ? narrowed(webhookTestEvent, 'event', event) : narrowed(webhookEvent, 'event', event);
    case 'delivery':
      return narrowed(deliveryEvent, 'event', event);
    case 'webhook_url':
      return withoutIds(webhookUrlTestEvent);
    default:
      throw new Error(`no schema for the event type ${name}`);
  }
}

/**
 * Every event type the gateway sends to webhook endpoints, in the order of WEBHOOK_EVENT_TYPES, then
 * the test events. The source of the catalog route and the OpenAPI `webhooks`; a test holds it, the
 * schemas and the events the pipeline emits in agreement.
 */
export const EVENT_CATALOG: readonly EventTypeEntry[] = [...WEBHOOK_EVENT_TYPES, ...TEST_EVENTS].map((name) => ({
  name,
  description: DESCRIPTIONS[name],
  filterable: !(TEST_EVENTS as readonly string[]).includes(name),
  schema: schemaOf(name),
  example: EVENT_EXAMPLES[name]!,
}));
