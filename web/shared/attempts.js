// The attempts of one delivery as a table, shared by the console and the portal. Response
// excerpts come from the receivers: they are shown as text, cut to 300 characters.
import { badge, h, timeEl } from '/assets/ui.js';

export function attemptTable(attempts) {
  if (attempts.length === 0) return h('p', {}, 'No attempt yet.');
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { id: 'attempts' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...['#', 'Trigger', 'Started', 'Duration', 'Status', 'Outcome', 'Response excerpt', 'Error'].map((c) =>
            h('th', { scope: 'col' }, c),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        ...attempts.map((a) =>
          h(
            'tr',
            {},
            h('td', { class: 'num' }, String(a.number)),
            h('td', {}, a.trigger),
            h('td', {}, timeEl(a.started_at)),
            h('td', { class: 'num' }, `${a.duration_ms} ms`),
            h('td', { class: 'num' }, a.status_code ?? '—'),
            h('td', {}, badge(a.outcome, a.outcome === 'delivered' ? 'delivered' : 'failed')),
            h('td', {}, a.response_body ? h('code', {}, excerpt(a.response_body)) : '—'),
            h('td', {}, a.error ?? '—'),
          ),
        ),
      ),
    ),
  );
}

function excerpt(text) {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** What an attempt came to, in a sentence: "Attempt 2: delivered (204)." */
export function attemptOutcome(attempt) {
  return `Attempt ${attempt.number}: ${attempt.outcome}${attempt.status_code ? ` (${attempt.status_code})` : ''}.`;
}
