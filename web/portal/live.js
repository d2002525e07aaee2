// The company's events live, newest first, as they happen: read from the portal's event stream
// (GET /portal/api/events/stream, Server-Sent Events, by the session). Every value is shown as
// text (h() makes text nodes), never as markup. A broken connection is opened again after the
// last event seen (Last-Event-ID), so nothing is missed or shown twice.
import { announce, h, prettyJson, show, timeEl } from '/assets/ui.js';

/** Rows kept on the page: the oldest go first. */
const SHOWN = 200;
const RECONNECT_MS = 3_000;

export async function livePage({ view, isCurrent }) {
  const state = h('p', { id: 'live-state' }, 'Connecting…');
  const rows = h('tbody', {});
  show(
    view,
    h('h1', {}, 'Live events'),
    h('p', {}, 'Events of this company appear here as they happen; the event log lists their deliveries.'),
    state,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { id: 'live-events' },
        h('thead', {}, h('tr', {}, ...['Created', 'Event', 'Id', 'Object'].map((c) => h('th', { scope: 'col' }, c)))),
        rows,
      ),
    ),
  );
  const abort = new AbortController();
  const leave = () => {
    if (isCurrent()) return;
    abort.abort();
    window.removeEventListener('hashchange', leave);
  };
  window.addEventListener('hashchange', leave);

  const shown = (message) => {
    const envelope = JSON.parse(message.data);
    rows.prepend(
      h(
        'tr',
        { 'data-event': message.id },
        h('td', {}, timeEl(envelope.created_at)),
        h('td', {}, message.event),
        h('td', { class: 'mono' }, message.id),
        h('td', {}, h('pre', { class: 'json' }, prettyJson(envelope.object))),
      ),
    );
    while (rows.children.length > SHOWN) rows.lastElementChild.remove();
  };

  let lastId = '';
  while (!abort.signal.aborted) {
    try {
      const headers = lastId === '' ? {} : { 'last-event-id': lastId };
      const response = await fetch('/portal/api/events/stream', { headers, signal: abort.signal });
      if (response.status === 401) return void location.assign('/portal/enter');
      if (!response.ok) throw new Error(`the stream answered ${response.status}`);
      state.textContent = 'Connected: new events appear below.';
      await readEvents(response.body, (message) => {
        lastId = message.id;
        shown(message);
      });
      state.textContent = 'The connection ended: connecting again…';
    } catch (error) {
      if (abort.signal.aborted) return;
      state.textContent = 'The connection broke: connecting again…';
      if (lastId === '' && rows.children.length === 0) announce(String(error.message ?? error), 'error');
    }
    await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
  }
}

/** Reads Server-Sent Events from `body`, calling `onMessage({id, event, data})` for each message with an id. */
async function readEvents(body, onMessage) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const fields = {};
      for (const line of buffer.slice(0, end).split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        fields[line.slice(0, colon)] = line.slice(colon + 2);
      }
      buffer = buffer.slice(end + 2);
      if (fields.id !== undefined && fields.data !== undefined) onMessage(fields);
    }
  }
}
