// The shell both faces share: opens the session, routes the address's #/ path to a page, keeps the
// navigation's current link marked and sends the reader to the sign-in page when the session ends.
// Every page renders into #view.
import { api, announce, ApiError, useCsrfToken } from '/assets/ui.js';

/**
 * `routes`: [{pattern, page, nav, title}], `pattern` capturing the id a page takes; `home`: the
 * path of an empty address; `sessionPath`: GET opens the session, DELETE ends it; `signInPath`:
 * where a missing or ended session goes; `titleOf(route)`: the document title of a page;
 * `opened(session answer)`: what the face shows of its session.
 */
export async function startShell({ routes, home, sessionPath, signInPath, titleOf, opened = () => {} }) {
  let generation = 0;

  async function render(focus) {
    const hash = location.hash === '' ? home : location.hash;
    if (!hash.startsWith('#/')) return; // the skip link's #main and other in-page anchors
    const [path, query = ''] = hash.split('?');
    const route = routes.find((r) => r.pattern.test(path));
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
    document.title = titleOf(route);
    try {
      await route.page({
        view,
        params: new URLSearchParams(query),
        id: route.pattern.exec(path)[1],
        isCurrent: () => current === generation,
      });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return void location.assign(signInPath);
      if (current === generation) announce(error.message, 'error');
    }
    if (focus && current === generation) document.getElementById('main').focus();
  }

  let answer;
  try {
    answer = await api('GET', sessionPath);
  } catch {
    location.assign(signInPath);
    return;
  }
  useCsrfToken(answer.session.csrf_token);
  opened(answer);
  document.getElementById('logout').addEventListener('click', async () => {
    await api('DELETE', sessionPath).catch(() => undefined);
    location.assign(signInPath);
  });
  window.addEventListener('hashchange', () => render(true));
  await render(false);
}
