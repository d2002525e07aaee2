// The webhook endpoints of one company with their health: last success, failing since,
// consecutive failures, why one is disabled, its ordering, rate limit and held deliveries; disable,
// enable, discard what is held, and recover what failed meanwhile.
import { announce, api, attempt, badge, field, h, isoToLocal, localToIso, show, timeEl } from '/assets/ui.js';
import { describeDestination, describeFilter, describeSchedule } from '/assets/endpoint-options.js';

export async function endpointsPage({ view, params, isCurrent }) {
  const companyId = params.get('company_id') ?? '';
  const picker = companyPicker(companyId);
  if (companyId === '') {
    show(view, h('h1', {}, 'Endpoints'), picker, h('p', {}, 'Name a company to see its webhook endpoints.'));
    return;
  }
  const { endpoints } = await api('GET', `/admin/companies/${encodeURIComponent(companyId)}/endpoints`);
  if (!isCurrent()) return;
  const reload = () => endpointsPage({ view, params, isCurrent });
  show(
    view,
    h('h1', {}, `Endpoints of company ${companyId}`),
    picker,
    endpoints.length === 0
      ? h('p', {}, 'This company has no webhook endpoint.')
      : h('div', {}, ...endpoints.map((e) => endpointPanel(companyId, e, reload))),
  );
}

function companyPicker(companyId) {
  const input = h('input', {
    name: 'company_id',
    type: 'number',
    min: '1',
    step: '1',
    inputmode: 'numeric',
    required: true,
    value: companyId,
  });
  const form = h(
    'form',
    { class: 'filters', 'aria-label': 'Company' },
    field('Company id', input),
    h('button', { type: 'submit' }, 'Show endpoints'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    location.hash = `#/endpoints?company_id=${encodeURIComponent(input.value)}`;
  });
  return form;
}

function endpointPanel(companyId, endpoint, reload) {
  const base = `/admin/companies/${encodeURIComponent(companyId)}/endpoints/${endpoint.endpoint_id}`;
  const reason = h('input', { name: 'reason', maxlength: '200', value: 'disabled by an operator' });
  const toggle = endpoint.active
    ? h(
        'form',
        { class: 'actions', 'aria-label': `Disable endpoint ${endpoint.endpoint_id}` },
        field('Reason', reason),
        h('button', { type: 'submit', class: 'danger' }, 'Disable'),
      )
    : h(
        'form',
        { class: 'actions', 'aria-label': `Enable endpoint ${endpoint.endpoint_id}` },
        h('button', { type: 'submit' }, 'Enable'),
      );
  toggle.addEventListener('submit', async (event) => {
    event.preventDefault();
    const answer = await attempt(() =>
      endpoint.active ? api('POST', `${base}/disable`, { reason: reason.value }) : api('POST', `${base}/enable`),
    );
    if (answer === undefined) return;
    announce(`Endpoint ${endpoint.endpoint_id} is ${answer.endpoint.active ? 'enabled' : 'disabled'}.`, 'ok');
    await reload();
  });

  const held =
    endpoint.held === 0
      ? null
      : h(
          'form',
          { class: 'actions', 'aria-label': `Discard held deliveries of endpoint ${endpoint.endpoint_id}` },
          h('button', { type: 'submit', class: 'danger' }, `Discard ${endpoint.held} held`),
        );
  held?.addEventListener('submit', async (event) => {
    event.preventDefault();
    const answer = await attempt(() => api('POST', `${base}/held/discard`));
    if (answer === undefined) return;
    announce(`${answer.discarded} held deliveries of endpoint ${endpoint.endpoint_id} discarded.`, 'ok');
    await reload();
  });

  const defaultSince =
    endpoint.failing_since ?? endpoint.disabled_since ?? new Date(Date.now() - 3_600_000).toISOString();
  const since = h('input', { name: 'since', type: 'datetime-local', required: true, value: isoToLocal(defaultSince) });
  const recover = h(
    'form',
    { class: 'actions', 'aria-label': `Recover endpoint ${endpoint.endpoint_id}` },
    field('Failed since', since, 'Replays its failed deliveries created since then.'),
    h('button', { type: 'submit', class: 'secondary' }, 'Replay failed deliveries'),
  );
  recover.addEventListener('submit', async (event) => {
    event.preventDefault();
    const filter = {
      company_id: Number(companyId),
      endpoint_id: endpoint.endpoint_id,
      status: 'failed',
      since: localToIso(since.value),
    };
    const answer = await attempt(() => api('POST', '/admin/replays', filter));
    if (answer !== undefined) location.hash = `#/replays/${answer.task.id}`;
  });

  return h(
    'section',
    { class: 'panel', 'data-endpoint': endpoint.endpoint_id, 'aria-labelledby': `endpoint-${endpoint.endpoint_id}` },
    h(
      'h2',
      { id: `endpoint-${endpoint.endpoint_id}` },
      `Endpoint ${endpoint.endpoint_id} `,
      badge(endpoint.active ? 'active' : 'disabled'),
    ),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Delivers to'),
      h('dd', {}, DESTINATION_NAMES[endpoint.type] ?? endpoint.type),
      h('dt', {}, endpoint.type === 'webhook' ? 'URL' : 'Target'),
      h('dd', { class: 'mono' }, endpoint.url),
      describeDestination(endpoint).flatMap(([term, value]) => [h('dt', {}, term), h('dd', { class: 'mono' }, value)]),
      h('dt', {}, 'Last success'),
      h('dd', {}, timeEl(endpoint.last_success_at)),
      h('dt', {}, 'Failing since'),
      h('dd', {}, timeEl(endpoint.failing_since)),
      h('dt', {}, 'Consecutive failures'),
      h('dd', {}, String(endpoint.consecutive_failures)),
      h('dt', {}, 'Disabled'),
      h(
        'dd',
        {},
        endpoint.active
          ? 'no'
          : `${endpoint.disabled_reason ?? 'no reason recorded'}${endpoint.disabled_since ? ` (since ${new Date(endpoint.disabled_since).toLocaleString()})` : ''}`,
      ),
      h('dt', {}, 'Ordering'),
      h('dd', {}, endpoint.ordering === 'strict' ? 'strict (one at a time, in order)' : 'default'),
      h('dt', {}, 'Rate limit'),
      h('dd', {}, endpoint.rate_limit === null ? 'none' : `${endpoint.rate_limit} per second`),
      h('dt', {}, 'Retry schedule'),
      h('dd', {}, endpoint.retry_schedule === null ? 'gateway-wide' : describeSchedule(endpoint.retry_schedule)),
      h('dt', {}, 'Payload filter'),
      h('dd', { class: 'mono' }, endpoint.filter === null ? 'none' : describeFilter(endpoint.filter)),
      h('dt', {}, 'Held deliveries'),
      h(
        'dd',
        {},
        endpoint.held === 0
          ? '0'
          : h(
              'a',
              {
                href: `#/deliveries?company_id=${encodeURIComponent(companyId)}&endpoint_id=${endpoint.endpoint_id}&status=held`,
              },
              String(endpoint.held),
            ),
      ),
    ),
    h(
      'p',
      {},
      h(
        'a',
        { href: `#/deliveries?company_id=${encodeURIComponent(companyId)}&endpoint_id=${endpoint.endpoint_id}` },
        'Its deliveries',
      ),
    ),
    toggle,
    ...(held === null ? [] : [held]),
    recover,
  );
}

/** How the console names an endpoint's destination type. */
const DESTINATION_NAMES = {
  webhook: 'webhook (HTTP POST)',
  kafka: 'Kafka topic',
  rabbitmq: 'RabbitMQ exchange',
  sqs: 'Amazon SQS queue',
};
