// Bulk replay: replays every delivery matching a filter as a task of the daemon, with its
// progress live and a cancel button. The filter can come from the deliveries page's address.
import { announce, api, attempt, badge, every, field, h, isoToLocal, localToIso, show, timeEl } from '/assets/ui.js';
import { EVENT_TYPES } from './deliveries.js';

export async function replaysPage({ view, params }) {
  const value = (name) => params.get(name) ?? '';
  const number = (name) =>
    h('input', { name, type: 'number', min: '1', step: '1', inputmode: 'numeric', value: value(name) });
  const status = h(
    'select',
    { name: 'status' },
    ...['failed', 'pending', 'delivered', ''].map((s) =>
      h('option', { value: s, selected: value('status') === s }, s || 'any'),
    ),
  );
  const type = h(
    'select',
    { name: 'event_type' },
    h('option', { value: '' }, 'any'),
    ...EVENT_TYPES.map((t) => h('option', { value: t, selected: value('event_type') === t }, t)),
  );
  const form = h(
    'form',
    { class: 'filters', id: 'bulk-replay', 'aria-label': 'Deliveries to replay' },
    field('Status', status),
    field('Company', number('company_id')),
    field('Endpoint', number('endpoint_id')),
    field('Event type', type),
    field('Created from', h('input', { name: 'since', type: 'datetime-local', value: isoToLocal(value('since')) })),
    field('Created until', h('input', { name: 'until', type: 'datetime-local', value: isoToLocal(value('until')) })),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Start replay')),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const filter = {};
    for (const name of ['company_id', 'endpoint_id']) if (data.get(name)) filter[name] = Number(data.get(name));
    for (const name of ['status', 'event_type']) if (data.get(name)) filter[name] = data.get(name);
    for (const name of ['since', 'until']) if (data.get(name)) filter[name] = localToIso(data.get(name));
    const answer = await attempt(() => api('POST', '/admin/replays', filter));
    if (answer !== undefined) location.hash = `#/replays/${answer.task.id}`;
  });
  show(
    view,
    h('h1', {}, 'Bulk replay'),
    h(
      'p',
      {},
      'Replays every delivery matching the filter, oldest first; deliveries whose endpoint is disabled or gone are skipped. Name at least a status, a company or an endpoint.',
    ),
    form,
  );
}

export async function replayTaskPage({ view, id, isCurrent }) {
  const progress = h('progress', { id: 'replay-progress', max: '1', value: '0', 'aria-label': 'Replay progress' });
  const counts = h('p', { id: 'replay-counts' });
  const state = h('p', {});
  const cancel = h('button', { type: 'button', class: 'danger', id: 'cancel-replay' }, 'Cancel');
  const filterText = h('code', {});
  show(
    view,
    h('p', {}, h('a', { href: '#/replays' }, '« New bulk replay')),
    h('h1', {}, 'Bulk replay ', h('span', { class: 'mono' }, id)),
    h('p', {}, 'Filter: ', filterText),
    state,
    progress,
    counts,
    h('div', { class: 'actions' }, cancel),
  );
  let finished = false;
  const update = (task) => {
    filterText.textContent = JSON.stringify(task.filter);
    show(
      state,
      'Status: ',
      badge(task.status),
      ' · started ',
      timeEl(task.created_at),
      task.error ? ` · ${task.error}` : '',
    );
    progress.max = Math.max(task.total, 1);
    progress.value = task.status === 'completed' ? progress.max : Math.min(task.enqueued, task.total);
    counts.textContent = `${task.enqueued} of ${task.total} deliveries replayed`;
    finished = !['queued', 'running'].includes(task.status);
    cancel.disabled = finished;
    if (finished)
      announce(
        `The replay is ${task.status}: ${task.enqueued} of ${task.total} replayed.`,
        task.status === 'completed' ? 'ok' : 'info',
      );
  };
  cancel.addEventListener('click', async () => {
    const answer = await attempt(() => api('POST', `/admin/replays/${encodeURIComponent(id)}/cancel`));
    if (answer !== undefined) update(answer.task);
  });
  update((await api('GET', `/admin/replays/${encodeURIComponent(id)}`)).task);
  every(
    500,
    () => isCurrent() && !finished,
    async () => {
      const answer = await api('GET', `/admin/replays/${encodeURIComponent(id)}`).catch(() => undefined);
      if (answer !== undefined && isCurrent()) update(answer.task);
    },
  );
}
