// The destination part of the portal's endpoint forms: a webhook's URL, or a Kafka, RabbitMQ or SQS
// endpoint's settings, as the API takes them (docs/api.md, "Destinations"). A stored credential is
// never shown: on a change its fields stay empty, and empty keeps the stored one (docs/console.md).
// The API's 422 entries are shown beside the field their pointer names.
import { ApiError, attempt, announce, field, h } from '/assets/ui.js';

export const DESTINATION_NAMES = {
  webhook: 'webhook (HTTP POST)',
  kafka: 'Kafka topic',
  rabbitmq: 'RabbitMQ exchange',
  sqs: 'Amazon SQS queue',
};

const SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'];
const KEEP = 'Leave empty to keep the stored one.';

/**
 * The fields of a new endpoint (a type choice and each type's settings) or of an existing one
 * (`webhook`: its own type only, filled with what the API answers of it). Answers the node, the
 * body part the form sends, and showErrors/clearErrors for the API's error entries.
 */
export function destinationFields(webhook = null) {
  const editing = webhook !== null;
  const errors = new ErrorSlots();
  const types = editing ? [webhook.type ?? 'webhook'] : Object.keys(DESTINATION_NAMES);
  const groups = Object.fromEntries(types.map((type) => [type, GROUPS[type](webhook, errors)]));
  const choice = editing
    ? null
    : h('select', { name: 'type' }, ...types.map((type) => h('option', { value: type }, DESTINATION_NAMES[type])));
  const chosen = () => (choice === null ? types[0] : choice.value);
  // Only the chosen type's fields are shown and checked by the browser.
  const showChosen = () => {
    for (const [type, group] of Object.entries(groups)) {
      group.node.hidden = type !== chosen();
      for (const control of group.node.querySelectorAll('input, select, textarea'))
        control.disabled = group.node.hidden || control.dataset.locked === 'true';
    }
  };
  choice?.addEventListener('change', () => {
    errors.clear();
    showChosen();
  });
  showChosen();
  const node = h(
    'div',
    { class: 'destination' },
    choice === null ? null : field('Delivers to', choice),
    errors.slot('', null),
    ...Object.values(groups).map((group) => group.node),
  );
  return {
    node,
    /** The destination part of the body: `{url}` of a webhook, `{type?, <type>: settings}` of a broker. */
    value: () => {
      const type = chosen();
      const settings = groups[type].value();
      if (type === 'webhook') return settings;
      return editing ? { [type]: settings } : { type, [type]: settings };
    },
    showErrors: (entries) => errors.show(entries),
    clearErrors: () => errors.clear(),
  };
}

/**
 * Sends a form: a 422 shows each of its entries beside its field (and its text in the status line),
 * any other failure goes to the status line. Answers the API's answer, or undefined.
 */
export async function sendWithFieldErrors(destination, call) {
  destination.clearErrors();
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 422) return attempt(() => Promise.reject(error));
    destination.showErrors(error.errors);
    announce(error.message, 'error');
    return undefined;
  }
}

/** Error slots by JSON pointer (without its leading slash); an entry goes to the nearest named one. */
class ErrorSlots {
  constructor() {
    this.slots = new Map();
  }

  /** A slot for `pointer`, shown after `control` (which it describes while it holds an error). */
  slot(pointer, control) {
    const node = h('p', { class: 'field-error', 'data-error-for': pointer, hidden: true });
    node.id = `err-${Math.random().toString(36).slice(2, 9)}`;
    this.slots.set(pointer, { node, control });
    return node;
  }

  show(entries) {
    this.clear();
    for (const entry of entries) {
      let pointer = (entry.source?.pointer ?? '').replace(/^\//, '');
      while (!this.slots.has(pointer)) pointer = pointer.includes('/') ? pointer.replace(/\/[^/]*$/, '') : '';
      const { node, control } = this.slots.get(pointer);
      node.hidden = false;
      node.append(node.textContent === '' ? '' : ' ', entry.detail);
      if (control !== null) {
        control.setAttribute('aria-invalid', 'true');
        control.setAttribute(
          'aria-describedby',
          [control.getAttribute('aria-describedby'), node.id].filter(Boolean).join(' '),
        );
      }
    }
  }

  clear() {
    for (const { node, control } of this.slots.values()) {
      node.hidden = true;
      node.replaceChildren();
      if (control === null) continue;
      control.removeAttribute('aria-invalid');
      const rest = (control.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .filter((id) => id !== '' && id !== node.id);
      if (rest.length === 0) control.removeAttribute('aria-describedby');
      else control.setAttribute('aria-describedby', rest.join(' '));
    }
  }
}

/** A labelled control with its error slot for `pointer`. */
function control(errors, pointer, label, input, hint) {
  input.name = pointer;
  const wrapper = field(label, input, hint);
  wrapper.append(errors.slot(pointer, input));
  return wrapper;
}

function group(type, errors, ...children) {
  return h(
    'fieldset',
    { 'data-destination-fields': type },
    h('legend', {}, DESTINATION_NAMES[type]),
    errors.slot(type, null),
    ...children,
  );
}

const text = (attrs) => h('input', { type: 'text', autocomplete: 'off', ...attrs });
const secret = (attrs) => h('input', { type: 'password', autocomplete: 'new-password', ...attrs });
const optional = (value) => (value === '' ? undefined : value);

const GROUPS = {
  webhook(webhook, errors) {
    const locked = webhook?.source === 'company';
    const url = h('input', {
      type: 'url',
      required: true,
      maxlength: '2048',
      placeholder: 'https://example.com/webhooks',
      value: webhook?.url,
      'data-locked': locked ? 'true' : undefined,
    });
    const node = h(
      'div',
      { 'data-destination-fields': 'webhook' },
      control(errors, 'url', 'URL', url, locked ? "The company's webhook_url: change it through the API." : undefined),
    );
    // The company's webhook_url is changed through the API: the form then sends no url.
    return { node, value: () => (locked ? {} : { url: url.value }) };
  },

  kafka(webhook, errors) {
    const shown = webhook?.kafka;
    const brokers = text({
      required: true,
      placeholder: 'kafka-1.example.com:9093, kafka-2.example.com:9093',
      value: shown?.brokers.join(', '),
    });
    const topic = text({ required: true, maxlength: '249', value: shown?.topic });
    const mechanism = h(
      'select',
      {},
      h('option', { value: '' }, 'none'),
      ...SASL_MECHANISMS.map((name) => h('option', { value: name, selected: shown?.sasl?.mechanism === name }, name)),
    );
    const username = text({ maxlength: '255' });
    const password = secret({ maxlength: '1024' });
    const tls = h('input', { type: 'checkbox', checked: shown?.tls !== undefined });
    const ca = h('textarea', { rows: '3', placeholder: '-----BEGIN CERTIFICATE-----' }, shown?.tls?.ca ?? '');
    const servername = text({ maxlength: '255', value: shown?.tls?.servername });
    const verify = h('input', { type: 'checkbox', checked: shown?.tls?.reject_unauthorized !== false });
    const keeps = shown?.sasl === undefined ? undefined : KEEP;
    const node = group(
      'kafka',
      errors,
      control(errors, 'kafka/brokers', 'Brokers', brokers, 'host:port, separated by commas.'),
      control(errors, 'kafka/topic', 'Topic', topic),
      control(errors, 'kafka/sasl/mechanism', 'SASL mechanism', mechanism),
      errors.slot('kafka/sasl', null),
      control(errors, 'kafka/sasl/username', 'SASL username', username, keeps),
      control(errors, 'kafka/sasl/password', 'SASL password', password, keeps),
      h('label', {}, tls, 'Connect with TLS'),
      errors.slot('kafka/tls', null),
      control(errors, 'kafka/tls/ca', 'CA certificates (PEM)', ca, "Empty: the system's CAs."),
      control(errors, 'kafka/tls/servername', 'Certificate name', servername, "Empty: the broker's host."),
      h('label', {}, verify, 'Verify the certificate'),
    );
    return {
      node,
      value: () => {
        const settings = { brokers: brokers.value.split(/[\s,]+/).filter(Boolean), topic: topic.value };
        if (mechanism.value !== '') {
          settings.sasl = {
            mechanism: mechanism.value,
            username: optional(username.value),
            password: optional(password.value),
          };
        }
        if (tls.checked) {
          settings.tls = {
            ca: optional(ca.value.trim()),
            servername: optional(servername.value),
            reject_unauthorized: verify.checked ? undefined : false,
          };
        }
        return settings;
      },
    };
  },

  rabbitmq(webhook, errors) {
    const shown = webhook?.rabbitmq;
    const url = text({
      required: true,
      maxlength: '2048',
      placeholder: 'amqps://user:password@mq.example.com/vhost',
      value: shown?.url,
    });
    const exchange = text({ maxlength: '255', value: shown?.exchange });
    const routingKey = text({ maxlength: '255', value: shown?.routing_key ?? '' });
    const node = group(
      'rabbitmq',
      errors,
      control(
        errors,
        'rabbitmq/url',
        'AMQP URL',
        url,
        webhook === null
          ? 'amqp:// or amqps://, with the user and password.'
          : 'Shown without its user and password: a URL without them keeps the stored ones while the host stays the same.',
      ),
      control(
        errors,
        'rabbitmq/exchange',
        'Exchange',
        exchange,
        'Empty: the default exchange, which routes by queue name.',
      ),
      control(errors, 'rabbitmq/routing_key', 'Routing key', routingKey),
    );
    return { node, value: () => ({ url: url.value, exchange: exchange.value, routing_key: routingKey.value }) };
  },

  sqs(webhook, errors) {
    const shown = webhook?.sqs;
    const queueUrl = text({
      required: true,
      maxlength: '2048',
      placeholder: 'https://sqs.eu-west-1.amazonaws.com/123456789012/events',
      value: shown?.queue_url,
    });
    const region = text({ required: true, maxlength: '64', placeholder: 'eu-west-1', value: shown?.region });
    const keyId = text({ maxlength: '128' });
    const keySecret = secret({ maxlength: '1024' });
    const keeps = shown?.signed ? `${KEEP} Both empty keep the stored key.` : 'Both empty: requests go unsigned.';
    const node = group(
      'sqs',
      errors,
      control(errors, 'sqs/queue_url', 'Queue URL', queueUrl, 'A queue whose name ends in .fifo is a FIFO queue.'),
      control(errors, 'sqs/region', 'Region', region),
      control(errors, 'sqs/access_key_id', 'Access key id', keyId, keeps),
      control(errors, 'sqs/secret_access_key', 'Secret access key', keySecret, keeps),
    );
    return {
      node,
      value: () => ({
        queue_url: queueUrl.value,
        region: region.value,
        access_key_id: optional(keyId.value),
        secret_access_key: optional(keySecret.value),
      }),
    };
  },
};
