// The company's event log: every delivery of its events to its endpoints, newest first; one
// event with its attempts and body; replaying one, or all failed ones with the progress.
import { announce, api, attempt, badge, every, field, h, prettyJson, show, timeEl } from '/assets/ui.js';
import { attemptOutcome, attemptTable } from '/assets/attempts.js';

export async function eventsPage({ view, params, isCurrent }) {
  const query = new URLSearchParams();
  for (const name of ['status', 'endpoint_id', 'cursor']) if (params.get(name)) query.set(name, params.get(name));
  const page = await api('GET', `/portal/api/deliveries?${query}`);
  if (!isCurrent()) return;
  const status = h(
    'select',
    { name: 'status' },
    ...['', 'failed', 'pending', 'delivered'].map((s) =>
      h('option', { value: s, selected: (params.get('status') ?? '') === s }, s || 'any'),
    ),
  );
  const filters = h(
    'form',
    { class: 'filters', 'aria-label': 'Filter events' },
    field('Status', status),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Filter')),
  );
  filters.addEventListener('submit', (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    if (status.value) next.set('status', status.value);
    if (params.get('endpoint_id')) next.set('endpoint_id', params.get('endpoint_id'));
    location.hash = `#/events?${next}`;
  });
  const replayAll = h(
    'button',
    { type: 'button', id: 'replay-failed' },
    params.get('endpoint_id') ? 'Replay failed events of this endpoint' : 'Replay all failed events',
  );
  replayAll.addEventListener('click', async () => {
    const body = params.get('endpoint_id') ? { endpoint_id: Number(params.get('endpoint_id')) } : {};
    const answer = await attempt(() => api('POST', '/portal/api/replays', body));
    if (answer !== undefined) location.hash = `#/replays/${answer.task.id}`;
  });
  const older = new URLSearchParams(query);
  older.set('cursor', page.next_cursor ?? '');
  show(
    view,
    h('h1', {}, params.get('endpoint_id') ? `Event log of endpoint ${params.get('endpoint_id')}` : 'Event log'),
    filters,
    h('div', { class: 'actions' }, replayAll),
    page.deliveries.length === 0
      ? h('p', { id: 'no-events' }, 'No event matches.')
      : h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { id: 'events' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ...['Event', 'Type', 'Created', 'Endpoint', 'Status', 'Attempts', 'Last answer'].map((c) =>
                  h('th', { scope: 'col' }, c),
                ),
              ),
            ),
            h(
              'tbody',
              {},
              ...page.deliveries.map((d) =>
                h(
                  'tr',
                  { 'data-delivery': d.id },
                  h('td', {}, h('a', { href: `#/events/${encodeURIComponent(d.id)}`, class: 'mono' }, d.event_id)),
                  h('td', {}, d.event_type),
                  h('td', {}, timeEl(d.created_at)),
                  h('td', { class: 'num' }, String(d.endpoint_id)),
                  h('td', {}, badge(d.status)),
                  h('td', { class: 'num' }, String(d.attempt_count)),
                  h('td', {}, d.last_status_code ?? d.last_error ?? '—'),
                ),
              ),
            ),
          ),
        ),
    page.next_cursor
      ? h(
          'nav',
          { class: 'actions', 'aria-label': 'Pages' },
          h('a', { href: `#/events?${older}`, rel: 'next' }, 'Older »'),
        )
      : null,
  );
}

export async function eventPage({ view, id, isCurrent }) {
  const shown = await api('GET', `/portal/api/deliveries/${encodeURIComponent(id)}`);
  if (!isCurrent()) return;
  const { delivery, event, attempts } = shown;
  const replay = h('button', { type: 'button', id: 'replay' }, 'Replay now');
  replay.addEventListener('click', async () => {
    const answer = await attempt(() => api('POST', `/portal/api/deliveries/${encodeURIComponent(id)}/replay`));
    if (answer === undefined) return;
    announce(`Replay queued as attempt ${answer.replay.attempt}.`, 'ok');
    let done = false;
    every(
      500,
      () => isCurrent() && !done,
      async () => {
        const again = await api('GET', `/portal/api/deliveries/${encodeURIComponent(id)}`).catch(() => undefined);
        const recorded = again?.attempts.find((a) => a.number === answer.replay.attempt);
        if (recorded === undefined) return;
        done = true;
        await eventPage({ view, id, isCurrent });
        announce(attemptOutcome(recorded), recorded.outcome === 'delivered' ? 'ok' : 'error');
      },
    );
  });
  show(
    view,
    h('p', {}, h('a', { href: '#/events' }, '« Event log')),
    h('h1', {}, `${delivery.event_type} `, h('span', { class: 'mono' }, delivery.event_id)),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Status'),
      h('dd', {}, badge(delivery.status)),
      h('dt', {}, 'Endpoint'),
      h('dd', {}, String(delivery.endpoint_id)),
      h('dt', {}, 'Created'),
      h('dd', {}, timeEl(delivery.created_at)),
      h('dt', {}, 'Next retry'),
      h('dd', {}, delivery.next_attempt_at ? timeEl(delivery.next_attempt_at) : 'none'),
    ),
    h('div', { class: 'actions' }, replay),
    h('h2', {}, 'Attempts'),
    attemptTable(attempts),
    h('h2', {}, 'Body'),
    h('pre', { id: 'event-body', tabindex: '0', 'aria-label': 'Event body' }, prettyJson(event)),
  );
}

export async function replayPage({ view, id, isCurrent }) {
  const progress = h('progress', { id: 'replay-progress', max: '1', value: '0', 'aria-label': 'Replay progress' });
  const counts = h('p', { id: 'replay-counts' });
  show(
    view,
    h('p', {}, h('a', { href: '#/events' }, '« Event log')),
    h('h1', {}, 'Replaying failed events'),
    progress,
    counts,
  );
  let finished = false;
  const update = (task) => {
    progress.max = Math.max(task.total, 1);
    progress.value = task.status === 'completed' ? progress.max : Math.min(task.enqueued, task.total);
    counts.textContent = `${task.enqueued} of ${task.total} events replayed`;
    finished = !['queued', 'running'].includes(task.status);
    if (finished)
      announce(
        `The replay is ${task.status}: ${task.enqueued} of ${task.total} replayed.`,
        task.status === 'completed' ? 'ok' : 'info',
      );
  };
  update((await api('GET', `/portal/api/replays/${encodeURIComponent(id)}`)).task);
  every(
    500,
    () => isCurrent() && !finished,
    async () => {
      const answer = await api('GET', `/portal/api/replays/${encodeURIComponent(id)}`).catch(() => undefined);
      if (answer !== undefined && isCurrent()) update(answer.task);
    },
  );
}
