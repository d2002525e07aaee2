// The console's shell: opens the session (its CSRF token), routes the address's #/ path to a page
// and keeps the navigation's current link marked. Every page renders into #view.
import { api, announce, ApiError, useCsrfToken } from '/assets/ui.js';
import { deliveriesPage } from './deliveries.js';
import { deliveryPage } from './delivery.js';
import { replaysPage, replayTaskPage } from './replays.js';
import { endpointsPage } from './endpoints.js';
import { pipelinePage } from './pipeline.js';

const ROUTES = [
  { pattern: /^#\/deliveries\/([A-Za-z0-9_-]+)$/, page: deliveryPage, nav: '#/deliveries', title: 'Delivery' },
  { pattern: /^#\/deliveries$/, page: deliveriesPage, nav: '#/deliveries', title: 'Deliveries' },
  { pattern: /^#\/replays\/([A-Za-z0-9_-]+)$/, page: replayTaskPage, nav: '#/replays', title: 'Bulk replay' },
  { pattern: /^#\/replays$/, page: replaysPage, nav: '#/replays', title: 'Bulk replay' },
  { pattern: /^#\/endpoints$/, page: endpointsPage, nav: '#/endpoints', title: 'Endpoints' },
  { pattern: /^#\/pipeline$/, page: pipelinePage, nav: '#/pipeline', title: 'Pipeline' },
];

let generation = 0;

async function render(focus) {
  const hash = location.hash === '' ? '#/deliveries' : location.hash;
  if (!hash.startsWith('#/')) return; // the skip link's #main and other in-page anchors
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
  document.title = `${route.title} · Gateway console`;
  const match = route.pattern.exec(path);
  try {
    await route.page({ view, params: new URLSearchParams(query), id: match[1], isCurrent: () => current === generation });
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return void location.assign('/console/login');
    if (current === generation) announce(error.message, 'error');
  }
  if (focus && current === generation) document.getElementById('main').focus();
}

async function start() {
  try {
    const { session } = await api('GET', '/console/session');
    useCsrfToken(session.csrf_token);
  } catch {
    location.assign('/console/login');
    return;
  }
  document.getElementById('logout').addEventListener('click', async () => {
    await api('DELETE', '/console/session').catch(() => undefined);
    location.assign('/console/login');
  });
  window.addEventListener('hashchange', () => render(true));
  await render(false);
}

start();
