import { apiKey, whenUnauthorized } from './api.js';
import { health } from './health.js';
import { jobDetail } from './job-detail.js';
import { jobs } from './jobs.js';
import { liveView } from './live-view.js';
import { playground } from './playground.js';

/**
 * Hash routes: #/playground, #/jobs, #/jobs/<id>, #/sessions/<id>[/interactive] (a browser session's live
 * view), #/health. Each view returns its clean-up (timers, sockets).
 */
const app = document.getElementById('app')!;
let leave: () => void = () => undefined;

function route(): void {
  leave();
  const [, view = 'playground', id, mode] = location.hash.replace(/^#/, '').split('/');
  for (const link of document.querySelectorAll<HTMLAnchorElement>('nav a[data-view]')) {
    if (link.dataset.view === view) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (view === 'jobs' && id) leave = jobDetail(app, decodeURIComponent(id));
  else if (view === 'jobs') leave = jobs(app);
  else if (view === 'sessions' && id) leave = liveView(app, decodeURIComponent(id), mode === 'interactive');
  else if (view === 'health') leave = health(app);
  else leave = playground(app);
}

// The API key: typed once per tab, kept in sessionStorage, sent as a header; asked for when the server says 401.
const keyForm = document.getElementById('key-form') as HTMLFormElement;
const keyInput = document.getElementById('key-input') as HTMLInputElement;
const keyMessage = document.getElementById('key-message')!;
const showKey = (message: string): void => {
  keyForm.hidden = false;
  keyMessage.textContent = message;
  keyInput.focus();
};
document
  .getElementById('key-button')!
  .addEventListener('click', () =>
    keyForm.hidden
      ? showKey(apiKey.get() ? 'A key is set for this tab.' : 'No key set.')
      : (keyForm.hidden = true),
  );
keyForm.addEventListener('submit', (event) => {
  event.preventDefault();
  if (keyInput.value.trim() === '') return;
  apiKey.set(keyInput.value.trim());
  keyInput.value = '';
  keyForm.hidden = true;
  route();
});
document.getElementById('key-clear')!.addEventListener('click', () => {
  apiKey.clear();
  keyMessage.textContent = 'Key forgotten.';
});
whenUnauthorized((message) => showKey(`${message}. Enter the server's API key.`));

window.addEventListener('hashchange', route);
route();
