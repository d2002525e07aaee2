// One delivery: its facts, the event body it sends (pretty JSON, as text), every attempt with
// status code, duration, response excerpt and error, the next retry; and a replay button.
import { announce, api, attempt, badge, every, h, prettyJson, show, timeEl } from '/assets/ui.js';
import { attemptOutcome, attemptTable } from '/assets/attempts.js';

export async function deliveryPage({ view, id, isCurrent }) {
  const shown = await api('GET', `/admin/deliveries/${encodeURIComponent(id)}`);
  if (!isCurrent()) return;
  render(view, shown, isCurrent);
}

function render(view, { delivery, event, attempts }, isCurrent) {
  const replay = h('button', { type: 'button', id: 'replay' }, 'Replay now');
  replay.addEventListener('click', async () => {
    replay.disabled = true;
    const answer = await attempt(() => api('POST', `/admin/deliveries/${encodeURIComponent(delivery.id)}/replay`));
    replay.disabled = false;
    if (answer === undefined) return;
    announce(`Replay queued as attempt ${answer.replay.attempt}.`, 'ok');
    watchFor(view, delivery.id, answer.replay.attempt, isCurrent);
  });
  show(
    view,
    h('p', {}, h('a', { href: '#/deliveries' }, '« Deliveries')),
    h('h1', {}, 'Delivery ', h('span', { class: 'mono' }, delivery.id)),
    h(
      'dl',
      { class: 'facts' },
      fact(
        'Status',
        badge(delivery.status),
        delivery.held_reason === 'endpoint_disabled'
          ? ' until its endpoint is enabled'
          : delivery.held_reason === 'ordering'
            ? ' until the earlier deliveries of its endpoint ended (strict ordering)'
            : '',
      ),
      fact('Event', `${delivery.event_type} · `, h('span', { class: 'mono' }, delivery.event_id), ' (webhook-id)'),
      fact('Company', h('a', { href: `#/endpoints?company_id=${delivery.company_id}` }, String(delivery.company_id))),
      fact('Endpoint', String(delivery.endpoint_id)),
      fact('Created', timeEl(delivery.created_at)),
      fact('Attempts', String(delivery.attempt_count)),
      fact(
        'Next retry',
        delivery.next_attempt_at
          ? timeEl(delivery.next_attempt_at)
          : delivery.status === 'pending'
            ? 'on its way'
            : 'none',
      ),
      fact('Last error', delivery.last_error ?? '—'),
    ),
    h('div', { class: 'actions' }, replay),
    h('h2', {}, 'Attempts'),
    attemptTable(attempts),
    h('h2', {}, 'Event body'),
    h('pre', { id: 'event-body', tabindex: '0', 'aria-label': 'Event body' }, prettyJson(event)),
  );
}

function fact(label, ...value) {
  return [h('dt', {}, label), h('dd', {}, ...value)];
}

/** Reloads the delivery until the replayed attempt is recorded (or a minute passed). */
function watchFor(view, id, number, isCurrent) {
  const until = Date.now() + 60_000;
  let done = false;
  every(
    500,
    () => isCurrent() && !done && Date.now() < until,
    async () => {
      const shown = await api('GET', `/admin/deliveries/${encodeURIComponent(id)}`).catch(() => undefined);
      if (shown === undefined || !isCurrent()) return;
      const recorded = shown.attempts.find((a) => a.number === number);
      if (recorded === undefined) return;
      done = true;
      render(view, shown, isCurrent);
      announce(attemptOutcome(recorded), recorded.outcome === 'delivered' ? 'ok' : 'error');
    },
  );
}
