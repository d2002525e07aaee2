import type { Operation } from '../document.js';

/** The daemon's own routes: health, metrics, this document and uploaded files. */
export const serviceOperations: Operation[] = [
  {
    method: 'get',
    path: '/healthz',
    tag: 'service',
    summary: 'Health of the daemon and its store',
    auth: 'none',
    success: { status: 200 },
  },
  {
    method: 'get',
    path: '/metrics',
    tag: 'service',
    summary:
      'Prometheus metrics (text format); Authorization: Bearer GATEWAY_METRICS_TOKEN, else GATEWAY_ADMIN_TOKEN when one is set',
    auth: 'none',
    errors: [401],
    success: { status: 200, description: 'The metrics, text/plain; version=0.0.4' },
  },
  {
    method: 'get',
    path: '/openapi.json',
    tag: 'service',
    summary: 'This document',
    auth: 'none',
    success: { status: 200 },
  },
  {
    method: 'get',
    path: '/files/:storageKey/:fileName',
    tag: 'service',
    summary: 'An uploaded file; its unguessable URL is the capability',
    auth: 'none',
    success: { status: 200, description: 'The file' },
  },
];
