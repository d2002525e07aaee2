// The delivery list: filters (company, endpoint, status, event type, time), search by event id
// (the webhook-id header) or delivery id, and keyset pages newest first.
import { api, badge, field, h, isoToLocal, localToIso, show, timeEl } from '/assets/ui.js';

export const EVENT_TYPES = [
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
  'webhook.test',
];
const FILTERS = ['company_id', 'endpoint_id', 'status', 'event_type', 'event_id', 'since', 'until'];

/** The #/deliveries address of a filter (and cursor). */
export function deliveriesHash(filter) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(filter))
    if (value !== undefined && value !== '') query.set(key, String(value));
  const text = query.toString();
  return text === '' ? '#/deliveries' : `#/deliveries?${text}`;
}

export async function deliveriesPage({ view, params, isCurrent }) {
  const filter = Object.fromEntries(FILTERS.filter((k) => params.get(k)).map((k) => [k, params.get(k)]));
  const query = new URLSearchParams({ ...filter, limit: '25' });
  if (params.get('cursor')) query.set('cursor', params.get('cursor'));
  const heading = h('h1', {}, 'Deliveries');
  show(view, heading, searchForm(), filterForm(filter), h('p', {}, 'Loading…'));
  const page = await api('GET', `/admin/deliveries?${query}`);
  if (!isCurrent()) return;
  show(
    view,
    heading,
    searchForm(),
    filterForm(filter),
    deliveryTable(page.deliveries),
    pager(filter, params.get('cursor'), page.next_cursor),
  );
}

function searchForm() {
  const input = h('input', { name: 'q', type: 'search', placeholder: 'evt_… or dlv_…', autocomplete: 'off' });
  return h(
    'form',
    {
      class: 'filters search',
      role: 'search',
      onsubmit: (event) => {
        event.preventDefault();
        const text = input.value.trim();
        if (text === '') return;
        location.hash = text.startsWith('dlv_')
          ? `#/deliveries/${encodeURIComponent(text)}`
          : deliveriesHash({ event_id: text });
      },
    },
    field('Find by event id (webhook-id) or delivery id', input),
    h('button', { type: 'submit' }, 'Find'),
  );
}

function filterForm(filter) {
  const number = (name) =>
    h('input', { name, type: 'number', min: '1', step: '1', inputmode: 'numeric', value: filter[name] ?? '' });
  const status = h(
    'select',
    { name: 'status' },
    ...['', 'pending', 'held', 'delivered', 'failed'].map((s) =>
      h('option', { value: s, selected: filter.status === s }, s || 'any'),
    ),
  );
  const type = h(
    'select',
    { name: 'event_type' },
    h('option', { value: '' }, 'any'),
    ...EVENT_TYPES.map((t) => h('option', { value: t, selected: filter.event_type === t }, t)),
  );
  const since = h('input', { name: 'since', type: 'datetime-local', value: isoToLocal(filter.since) });
  const until = h('input', { name: 'until', type: 'datetime-local', value: isoToLocal(filter.until) });
  const form = h(
    'form',
    {
      class: 'filters',
      'aria-label': 'Filter deliveries',
      onsubmit: (event) => {
        event.preventDefault();
        const data = new FormData(form);
        location.hash = deliveriesHash({
          company_id: data.get('company_id'),
          endpoint_id: data.get('endpoint_id'),
          status: data.get('status'),
          event_type: data.get('event_type'),
          event_id: filter.event_id,
          since: localToIso(data.get('since')),
          until: localToIso(data.get('until')),
        });
      },
    },
    field('Company', number('company_id')),
    field('Endpoint', number('endpoint_id')),
    field('Status', status),
    field('Event type', type),
    field('Created from', since),
    field('Created until', until),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit' }, 'Filter'),
      h('a', { href: '#/deliveries' }, 'Clear'),
    ),
  );
  return form;
}

function deliveryTable(deliveries) {
  if (deliveries.length === 0) return h('p', { id: 'no-deliveries' }, 'No delivery matches.');
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { id: 'deliveries' },
      h('caption', { class: 'skip' }, 'Deliveries, newest first'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...[
            'Delivery',
            'Created',
            'Company',
            'Endpoint',
            'Event',
            'Status',
            'Attempts',
            'Last answer',
            'Next retry',
          ].map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      h(
        'tbody',
        {},
        ...deliveries.map((d) =>
          h(
            'tr',
            { 'data-delivery': d.id },
            h('td', {}, h('a', { href: `#/deliveries/${encodeURIComponent(d.id)}`, class: 'mono' }, d.id)),
            h('td', {}, timeEl(d.created_at)),
            h('td', { class: 'num' }, h('a', { href: `#/endpoints?company_id=${d.company_id}` }, String(d.company_id))),
            h('td', { class: 'num' }, String(d.endpoint_id)),
            h('td', {}, d.event_type),
            h('td', {}, badge(d.status)),
            h('td', { class: 'num' }, String(d.attempt_count)),
            h('td', {}, d.last_status_code ?? d.last_error ?? '—'),
            h('td', {}, timeEl(d.next_attempt_at)),
          ),
        ),
      ),
    ),
  );
}

function pager(filter, cursor, nextCursor) {
  return h(
    'nav',
    { class: 'actions', 'aria-label': 'Pages' },
    cursor ? h('a', { href: deliveriesHash(filter) }, '« Newest') : null,
    nextCursor
      ? h('a', { href: deliveriesHash({ ...filter, cursor: nextCursor }), rel: 'next', id: 'older' }, 'Older »')
      : null,
    h('a', { href: `#/replays?${new URLSearchParams(filter)}` }, 'Replay everything matching…'),
  );
}
