// The portal's pages and the address of each (web/shared/shell.js routes to them); the session
// names the company the portal shows.
import { startShell } from '/assets/shell.js';
import { endpointsPage } from './endpoints.js';
import { eventPage, eventsPage, replayPage } from './events.js';
import { livePage } from './live.js';

const ROUTES = [
  { pattern: /^#\/endpoints$/, page: endpointsPage, nav: '#/endpoints', title: 'Endpoints' },
  { pattern: /^#\/events\/([A-Za-z0-9_-]+)$/, page: eventPage, nav: '#/events', title: 'Event' },
  { pattern: /^#\/events$/, page: eventsPage, nav: '#/events', title: 'Event log' },
  { pattern: /^#\/live$/, page: livePage, nav: '#/live', title: 'Live events' },
  { pattern: /^#\/replays\/([A-Za-z0-9_-]+)$/, page: replayPage, nav: '#/events', title: 'Replay' },
];

let companyName = '';

startShell({
  routes: ROUTES,
  home: '#/endpoints',
  sessionPath: '/portal/session',
  signInPath: '/portal/enter',
  titleOf: (route) => `${route.title} · ${companyName} · Webhook portal`,
  opened: (answer) => {
    companyName = answer.company.name;
    document.getElementById('company').textContent = `${answer.company.name} · webhooks`;
  },
});
