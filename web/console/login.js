// The console's login: exchanges the admin token for a session cookie (HttpOnly, SameSite=Strict).
import { api, announce, ApiError } from '/assets/ui.js';

const form = document.getElementById('login');
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = form.elements.namedItem('token');
  const button = form.querySelector('button');
  button.disabled = true;
  announce('Logging in…');
  try {
    await api('POST', '/console/session', { token: input.value });
    input.value = '';
    location.assign('/console#/deliveries');
  } catch (error) {
    announce(
      error instanceof ApiError && error.status === 401 ? 'That is not the admin token.' : error.message,
      'error',
    );
    input.select();
  } finally {
    button.disabled = false;
  }
});
