// The portal's shell: reads its session (company, CSRF token), routes #/ paths to pages.
import { api, announce, ApiError, useCsrfToken } from '/assets/ui.js';
import { endpointsPage } from './endpoints.js';
import { eventPage, eventsPage, replayPage } from './events.js';

const ROUTES = [
  { pattern: /^#\/endpoints$/, page: endpointsPage, nav: '#/endpoints', title: 'Endpoints' },
  { pattern: /^#\/events\/([A-Za-z0-9_-]+)$/, page: eventPage, nav: '#/events', title: 'Event' },
  { pattern: /^#\/events$/, page: eventsPage, nav: '#/events', title: 'Event log' },
  { pattern: /^#\/replays\/([A-Za-z0-9_-]+)$/, page: replayPage, nav: '#/events', title: 'Replay' },
];

let generation = 0;
let companyName = '';

async function render(focus) {
  const hash = location.hash === '' ? '#/endpoints' : location.hash;
  if (!hash.startsWith('#/')) return;
  const [path, query = ''] = hash.split('?');
  const route = ROUTES.find((r) => r.pattern.test(path));
  const current = ++generation;
  const view = document.getElementById('view');
  announce('');
  for (const link of document.querySelectorAll('header nav a')) {
    if (route && link.getAttribute('href') === route.nav) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (route === undefined) {
    view.replaceChildren();
    announce(`There is no page ${path}.`, 'error');
    return;
  }
  document.title = `${route.title} · ${companyName} · Webhook portal`;
  try {
    await route.page({ view, params: new URLSearchParams(query), id: route.pattern.exec(path)[1], isCurrent: () => current === generation });
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return void location.assign('/portal/enter');
    if (current === generation) announce(error.message, 'error');
  }
  if (focus && current === generation) document.getElementById('main').focus();
}

async function start() {
  let answer;
  try {
    answer = await api('GET', '/portal/session');
  } catch {
    location.assign('/portal/enter');
    return;
  }
  useCsrfToken(answer.session.csrf_token);
  companyName = answer.company.name;
  document.getElementById('company').textContent = `${answer.company.name} · webhooks`;
  document.getElementById('logout').addEventListener('click', async () => {
    await api('DELETE', '/portal/session').catch(() => undefined);
    location.assign('/portal/enter');
  });
  window.addEventListener('hashchange', () => render(true));
  await render(false);
}

start();
