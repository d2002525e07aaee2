// The entry of a portal link: the token is in the address's fragment, which never reached the
// server. It is taken out of the address at once, then exchanged (once) for a session cookie.
import { api, announce, ApiError } from '/assets/ui.js';

const token = location.hash.slice(1);
history.replaceState(null, '', location.pathname);

async function enter() {
  if (token === '') {
    announce('This page needs a portal link.', 'error');
    document.getElementById('help').hidden = false;
    return;
  }
  try {
    await api('POST', '/portal/session', { token });
    location.replace('/portal#/endpoints');
  } catch (error) {
    announce(
      error instanceof ApiError && error.status === 401
        ? 'This portal link was used already or has expired.'
        : error.message,
      'error',
    );
    document.getElementById('help').hidden = false;
  }
}

enter();
