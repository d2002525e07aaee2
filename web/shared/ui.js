// DOM and HTTP helpers shared by the console and the portal. Every piece of data reaches the page
// as text (text nodes, textContent, attributes): nothing here ever parses a string as HTML.

/** Builds an element: `attrs` become attributes (on: handlers; booleans toggle), children become text or nodes. */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the content of `node` with `children`. */
export function show(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

/** An SVG element (the pipeline's chart). */
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  append(node, children);
  return node;
}

let csrfToken = '';

/** The session's CSRF token, sent with every request that changes something. */
export function useCsrfToken(token) {
  csrfToken = token;
}

/** An answer of the gateway that was not a success, with the contract's error entries. */
export class ApiError extends Error {
  constructor(status, errors) {
    super(errors.map((e) => e.detail).join(' ') || `The gateway answered ${status}.`);
    this.status = status;
    this.errors = errors;
  }
}

/** Calls the daemon's JSON API with the session cookie; answers the parsed body or throws ApiError. */
export async function api(method, path, body) {
  const headers = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!response.ok) throw new ApiError(response.status, Array.isArray(parsed?.errors) ? parsed.errors : []);
  return parsed;
}

/** A time of the API (ISO 8601) in the reader's locale, or a dash. */
export function when(iso) {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? String(iso)
    : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

/** A <time> element for an ISO 8601 time. */
export function timeEl(iso) {
  return iso ? h('time', { datetime: iso }, when(iso)) : '—';
}

/** datetime-local input value (local time) to ISO 8601, or undefined when empty. */
export function localToIso(value) {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** ISO 8601 to a datetime-local input value (local time). */
export function isoToLocal(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  const pad = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A labelled form field: the label names the control for screen readers and clicks. */
export function field(label, control, hint) {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  control.id = id;
  const hintEl = hint ? h('small', { id: `${id}-hint` }, hint) : null;
  if (hintEl) control.setAttribute('aria-describedby', hintEl.id);
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hintEl);
}

/** A status badge for a delivery status or an endpoint state. */
export function badge(text, kind = text) {
  return h('span', { class: `badge badge-${kind}` }, text);
}

/** Says `message` to screen readers and shows it in the page's status line. */
export function announce(message, kind = 'info') {
  const region = document.getElementById('status');
  if (!region) return;
  region.className = `status status-${kind}`;
  region.textContent = message;
}

/** Runs `fn` and shows its error in the status line instead of throwing. */
export async function attempt(fn) {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      announce('Your session has ended. Log in again.', 'error');
    } else {
      announce(error instanceof Error ? error.message : String(error), 'error');
    }
    return undefined;
  }
}

/** Pretty JSON of any value, for a <pre> (as text). */
export function prettyJson(value) {
  return JSON.stringify(value, null, 2);
}

/** A repeating task that stops when `isCurrent()` turns false (the page changed). */
export function every(ms, isCurrent, fn) {
  const tick = async () => {
    if (!isCurrent()) return;
    await fn();
    if (isCurrent()) setTimeout(tick, ms);
  };
  setTimeout(tick, ms);
}
