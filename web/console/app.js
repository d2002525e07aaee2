// The console's pages and the address of each (web/shared/shell.js routes to them).
import { startShell } from '/assets/shell.js';
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

startShell({
  routes: ROUTES,
  home: '#/deliveries',
  sessionPath: '/console/session',
  signInPath: '/console/login',
  titleOf: (route) => `${route.title} · Gateway console`,
});
