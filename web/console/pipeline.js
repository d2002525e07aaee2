// The pipeline, live: the relay's outbox lag, each stream's lag, webhook deliveries per second
// and the error rate over the last hour, from the daemon's own metrics; through the front of a
// cluster, summed over the shards, with every process of the cluster (role, shard, health, lag).
// Refreshes every 2 s.
import { api, badge, every, h, show, svg } from '/assets/ui.js';

export async function pipelinePage({ view, isCurrent }) {
  const body = h('div', {});
  show(view, h('h1', {}, 'Pipeline'), body);
  const refresh = async () => {
    const pipeline = await api('GET', '/admin/pipeline');
    if (isCurrent()) render(body, pipeline);
  };
  await refresh();
  every(2000, isCurrent, () => refresh().catch(() => undefined));
}

function render(body, { outbox, streams, attempts, processes }) {
  const minutes = attempts.per_minute;
  const total = minutes.reduce((sum, m) => sum + m.delivered + m.failed, 0);
  show(
    body,
    h(
      'div',
      { class: 'cards' },
      card('Outbox rows waiting', String(outbox.pending), 'outbox-pending'),
      card('Outbox lag', `${(outbox.lag_ms / 1000).toFixed(1)} s`, 'outbox-lag'),
      card(
        'Delivered per second',
        attempts.delivered_per_second.toFixed(2),
        'delivered-rate',
        'over the last whole minute',
      ),
      card(
        'Error rate',
        attempts.error_rate === null ? '—' : `${(attempts.error_rate * 100).toFixed(1)} %`,
        'error-rate',
        `of ${total} attempts in the last hour`,
      ),
    ),
    h('h2', {}, 'Attempts per minute, last hour'),
    chart(minutes),
    h(
      'p',
      { class: 'axis', 'aria-hidden': 'true' },
      h('span', {}, '60 min ago'),
      h('span', {}, `peak ${Math.max(0, ...minutes.map((m) => m.delivered + m.failed))} per minute`),
      h('span', {}, 'now'),
    ),
    processes === undefined ? null : processTable(processes),
    h('h2', {}, 'Stream lag'),
    streams.length === 0
      ? h('p', {}, 'This process reads no stream lag.')
      : h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { id: 'streams' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                processes === undefined ? null : h('th', { scope: 'col' }, 'Shard'),
                h('th', { scope: 'col' }, 'Stream'),
                h('th', { scope: 'col' }, 'Consumer group'),
                h('th', { scope: 'col' }, 'Messages waiting'),
              ),
            ),
            h(
              'tbody',
              {},
              ...streams.map((s) =>
                h(
                  'tr',
                  {},
                  processes === undefined ? null : h('td', { class: 'num' }, String(s.shard)),
                  h('td', { class: 'mono' }, s.stream),
                  h('td', { class: 'mono' }, s.group),
                  h('td', { class: 'num' }, String(s.messages)),
                ),
              ),
            ),
          ),
        ),
  );
}

/** The cluster's processes, as the front lists them: each core (its shard), each worker, the front itself. */
function processTable(processes) {
  const orNone = (value, text) => (value === null ? '—' : text);
  return [
    h('h2', {}, 'Processes'),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { id: 'processes' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ...['Role', 'Shard', 'Address', 'Health', 'Outbox lag', 'Messages waiting'].map((c) =>
              h('th', { scope: 'col' }, c),
            ),
          ),
        ),
        h(
          'tbody',
          {},
          ...processes.map((p) =>
            h(
              'tr',
              { 'data-role': p.role, 'data-status': p.status },
              h('td', {}, p.role),
              h('td', { class: 'num' }, p.shard === null ? 'all' : String(p.shard)),
              h('td', { class: 'mono' }, p.address),
              h('td', {}, badge(p.status)),
              h('td', { class: 'num' }, orNone(p.outbox_lag_ms, `${(p.outbox_lag_ms / 1000).toFixed(1)} s`)),
              h('td', { class: 'num' }, orNone(p.messages_waiting, String(p.messages_waiting))),
            ),
          ),
        ),
      ),
    ),
  ];
}

function card(label, value, id, note) {
  return h(
    'div',
    { class: 'card' },
    h('div', { class: 'label' }, label),
    h('div', { class: 'value', id }, value),
    note ? h('div', { class: 'label' }, note) : null,
  );
}

/** Stacked bars per minute: delivered (green) below, not delivered (red) above. */
function chart(minutes) {
  const peak = Math.max(1, ...minutes.map((m) => m.delivered + m.failed));
  const width = 600;
  const height = 160;
  const bar = width / minutes.length;
  const delivered = minutes.reduce((sum, m) => sum + m.delivered, 0);
  const failed = minutes.reduce((sum, m) => sum + m.failed, 0);
  const graphic = svg('svg', {
    class: 'chart',
    viewBox: `0 0 ${width} ${height}`,
    preserveAspectRatio: 'none',
    role: 'img',
    'aria-label': `Attempts per minute over the last hour: ${delivered} delivered, ${failed} not delivered; at most ${peak} in a minute.`,
  });
  minutes.forEach((m, index) => {
    const okHeight = (m.delivered / peak) * (height - 4);
    const badHeight = (m.failed / peak) * (height - 4);
    const x = index * bar + 0.5;
    if (okHeight > 0)
      graphic.append(
        svg(
          'rect',
          { class: 'ok', x, y: height - okHeight, width: bar - 1, height: okHeight },
          svg('title', {}, `${new Date(m.start).toLocaleTimeString()}: ${m.delivered} delivered`),
        ),
      );
    if (badHeight > 0)
      graphic.append(
        svg(
          'rect',
          { class: 'bad', x, y: height - okHeight - badHeight, width: bar - 1, height: badHeight },
          svg('title', {}, `${new Date(m.start).toLocaleTimeString()}: ${m.failed} not delivered`),
        ),
      );
  });
  return graphic;
}
