/* The network client: every call to the JSON API (/api/v1, docs/api.md) goes through
   request(). The server deals every die and checks every move, so nothing here decides a
   score. A call answers { ok, status, data } (data: the JSON body, or null when there was
   none); it rejects only when fetch itself does (no network). */
import { $, errorText } from './page.js';

export const PREFIX = '/api/v1';

/** The fetch() arguments of an API call: JSON both ways, the session cookie sent. */
export function requestInit(method, body) {
  const init = { method, headers: { Accept: 'application/json' }, credentials: 'same-origin' };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  return init;
}

/** Calls the API at *origin* ('' on the page: this site). */
export async function request(method, path, body, origin = '') {
  const response = await fetch(origin + PREFIX + path, requestInit(method, body));
  let data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  return { ok: response.ok, status: response.status, data };
}

export const api = (method, path, body) => request(method, path, body);

export function showError(result) {
  const box = $('#message');
  if (box) box.textContent = errorText(result);
}

/* Starts a game ({"mode": ...}) and opens it; a game already started opens instead. */
export async function start(spec) {
  const result = await api('POST', '/games', spec);
  if (result.ok) { location.assign('/play/' + result.data.id); return; }
  const error = result.data && result.data.error;
  if (result.status === 409 && error && error.game_id) { location.assign('/play/' + error.game_id); return; }
  showError(result);
}
