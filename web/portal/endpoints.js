// The company's webhook endpoints: add one, change its URL and event filter, disable or enable it,
// rotate its secret (the new one is shown once; the previous one keeps signing for a while), and
// send it a test event.
import { announce, api, attempt, badge, every, h, show, timeEl, when } from '/assets/ui.js';
import { attemptOutcome } from '/assets/attempts.js';
import { describeDestination, describeFilter, describeSchedule } from '/assets/endpoint-options.js';
import { DESTINATION_NAMES, destinationFields, sendWithFieldErrors } from './destination-form.js';

const EVENT_TYPES = [
  'message.create',
  'message.update',
  'conversation.create',
  'conversation.update',
  'auth.create',
  'auth.update',
  'auth.delete',
  'channel.qr_code',
  'channel.code',
  'channel.state',
  'channel.pages',
  'job.executed',
];

export async function endpointsPage({ view, isCurrent }) {
  const { webhooks } = await api('GET', '/portal/api/webhooks');
  if (!isCurrent()) return;
  const reload = () => endpointsPage({ view, isCurrent });
  const secretSlot = h('div', { id: 'secret-slot' });
  show(
    view,
    h('h1', {}, 'Webhook endpoints'),
    secretSlot,
    webhooks.length === 0 ? h('p', {}, 'No endpoint yet: add one below.') : null,
    ...webhooks.map((webhook) => endpointPanel(webhook, { reload, isCurrent })),
    addForm({ reload }),
  );
}

/** A fieldset of event checkboxes; no box ticked means every event. */
function eventFilter(selected, legend) {
  const boxes = EVENT_TYPES.map((name) =>
    h('input', {
      type: 'checkbox',
      name: 'event_types',
      value: name,
      checked: selected !== null && selected.includes(name),
    }),
  );
  const node = h(
    'fieldset',
    {},
    h('legend', {}, legend),
    ...boxes.map((box) => h('label', {}, box, box.value)),
    h('small', {}, 'Tick none to receive every event.'),
  );
  return {
    node,
    value: () => {
      const picked = boxes.filter((b) => b.checked).map((b) => b.value);
      return picked.length === 0 ? null : picked;
    },
  };
}

function showSecret(slot, webhook, rotated) {
  show(
    slot,
    h(
      'div',
      { class: 'secret', role: 'status', id: 'new-secret' },
      // An ed25519 endpoint's receivers verify with its public key: its private key stays unshown here.
      webhook.public_key
        ? h(
            'p',
            {},
            h('strong', {}, `Public key of endpoint ${webhook.id}: `),
            h('code', { id: 'public-key-value' }, webhook.public_key),
          )
        : h(
            'p',
            {},
            h('strong', {}, `Signing secret of endpoint ${webhook.id}: `),
            h('code', { id: 'secret-value' }, webhook.secret),
          ),
      webhook.public_key
        ? h('p', {}, 'Your receiver verifies the ed25519 (v1a) signatures with it.')
        : h('p', {}, 'It is shown this once: store it where your receiver verifies signatures.'),
      rotated && webhook.previous_secret_expires_at
        ? h(
            'p',
            { id: 'secret-overlap' },
            `The previous secret keeps signing too until ${when(webhook.previous_secret_expires_at)}: switch your receiver over before then.`,
          )
        : null,
    ),
  );
  slot.scrollIntoView({ block: 'nearest' });
}

function endpointPanel(webhook, { reload, isCurrent }) {
  const base = `/portal/api/webhooks/${webhook.id}`;
  const broker = webhook.type === 'kafka' || webhook.type === 'rabbitmq' || webhook.type === 'sqs';
  const destination = destinationFields(webhook);
  const filter = eventFilter(webhook.event_types, 'Events to receive');
  const edit = h(
    'form',
    { 'aria-label': `Change endpoint ${webhook.id}` },
    destination.node,
    filter.node,
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Save')),
  );
  edit.addEventListener('submit', async (event) => {
    event.preventDefault();
    const changes = { ...destination.value(), event_types: filter.value() };
    if (await sendWithFieldErrors(destination, () => api('PATCH', base, changes))) {
      await reload();
      announce(`Endpoint ${webhook.id} saved.`, 'ok');
    }
  });
  const toggle = h(
    'button',
    { type: 'button', class: webhook.active ? 'danger' : '' },
    webhook.active ? 'Disable' : 'Enable',
  );
  toggle.addEventListener('click', async () => {
    if (await attempt(() => api('PATCH', base, { active: !webhook.active }))) {
      await reload();
      announce(`Endpoint ${webhook.id} is ${webhook.active ? 'disabled' : 'enabled'}.`, 'ok');
    }
  });
  const rotate = h('button', { type: 'button', class: 'secondary' }, 'Rotate secret');
  rotate.addEventListener('click', async () => {
    const answer = await attempt(() => api('POST', `${base}/rotate_secret`));
    if (answer === undefined) return;
    await reload();
    showSecret(document.getElementById('secret-slot'), answer.webhook, true);
  });
  const test = h('button', { type: 'button', class: 'secondary', disabled: !webhook.active }, 'Send test event');
  test.addEventListener('click', async () => {
    const answer = await attempt(() => api('POST', `${base}/test`));
    if (answer === undefined) return;
    announce('Test event sent; waiting for the answer of your endpoint…');
    let done = false;
    const until = Date.now() + 60_000;
    every(
      500,
      () => isCurrent() && !done && Date.now() < until,
      async () => {
        const shown = await api('GET', `/portal/api/deliveries/${answer.delivery.id}`).catch(() => undefined);
        const first = shown?.attempts[0];
        if (first === undefined) return;
        done = true;
        announce(`Test event: ${attemptOutcome(first)}`, first.outcome === 'delivered' ? 'ok' : 'error');
      },
    );
  });
  const health = webhook.health;
  return h(
    'section',
    { class: 'panel', 'data-endpoint': webhook.id, 'aria-labelledby': `endpoint-${webhook.id}` },
    h('h2', { id: `endpoint-${webhook.id}` }, `Endpoint ${webhook.id} `, badge(webhook.active ? 'active' : 'disabled')),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Delivers to'),
      h('dd', { 'data-destination': webhook.type ?? 'webhook' }, DESTINATION_NAMES[webhook.type ?? 'webhook']),
      h('dt', {}, broker ? 'Target' : 'URL'),
      h('dd', { class: 'mono' }, webhook.url),
      describeDestination(webhook).flatMap(([term, value]) => [h('dt', {}, term), h('dd', { class: 'mono' }, value)]),
      h('dt', {}, 'Events'),
      h('dd', {}, webhook.event_types === null ? 'every event' : webhook.event_types.join(', ')),
      webhook.public_key
        ? [
            h('dt', {}, 'Signed with'),
            h('dd', {}, 'ed25519 (Standard Webhooks v1a)'),
            h('dt', {}, 'Public key'),
            h('dd', { class: 'mono', 'data-public-key': '' }, webhook.public_key),
          ]
        : null,
      webhook.retry_schedule
        ? [h('dt', {}, 'Retry schedule'), h('dd', {}, describeSchedule(webhook.retry_schedule))]
        : null,
      webhook.filter
        ? [h('dt', {}, 'Payload filter'), h('dd', { class: 'mono' }, describeFilter(webhook.filter))]
        : null,
      h('dt', {}, 'Last success'),
      h('dd', {}, timeEl(health?.last_success_at)),
      h('dt', {}, 'Failing since'),
      h('dd', {}, timeEl(health?.failing_since)),
      h('dt', {}, 'Failures in a row'),
      h('dd', {}, String(health?.consecutive_failures ?? 0)),
      webhook.active ? null : [h('dt', {}, 'Disabled because'), h('dd', {}, webhook.disabled_reason ?? '—')],
      webhook.previous_secret_expires_at
        ? [h('dt', {}, 'Previous secret signs until'), h('dd', {}, timeEl(webhook.previous_secret_expires_at))]
        : null,
    ),
    h(
      'div',
      { class: 'actions' },
      toggle,
      rotate,
      test,
      h('a', { href: `#/events?endpoint_id=${webhook.id}` }, 'Its events'),
    ),
    h('details', {}, h('summary', {}, broker ? 'Change target and events' : 'Change URL and events'), edit),
  );
}

function addForm({ reload }) {
  const destination = destinationFields();
  const filter = eventFilter(null, 'Events to receive');
  const form = h(
    'form',
    { class: 'panel', id: 'add-endpoint', 'aria-labelledby': 'add-heading' },
    h('h2', { id: 'add-heading' }, 'Add an endpoint'),
    destination.node,
    filter.node,
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Add endpoint')),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = { ...destination.value(), event_types: filter.value() };
    const answer = await sendWithFieldErrors(destination, () => api('POST', '/portal/api/webhooks', body));
    if (answer === undefined) return;
    await reload();
    showSecret(document.getElementById('secret-slot'), answer.webhook, false);
    announce(`Endpoint ${answer.webhook.id} added.`, 'ok');
  });
  return form;
}
