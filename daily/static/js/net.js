/* The network client: every call to the JSON API (/api/v1, docs/api.md) goes through
   request(). The server deals every die and checks every move, so nothing here decides a
   score. A call answers { ok, status, data } (data: the JSON body, or null when there was
   none) and never rejects: no network at all answers status 0, which errorText() words as
   "the server could not be reached". */
import { $, errorText, fmt, S } from './page.js';
import { solve } from './proof.js';

export const PREFIX = '/api/v1';
/** Milliseconds to wait before each retry of a read that got no answer (a phone between cells). */
export const WAITS = [300, 1000];

/** The fetch() arguments of an API call: JSON both ways, the session cookie sent, and a
    solved proof of work for a new player when there is one. */
export function requestInit(method, body, proof = null) {
  const init = { method, headers: { Accept: 'application/json' }, credentials: 'same-origin' };
  if (proof) init.headers.Altcha = proof;
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  return init;
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/* Only a GET is sent again, and only when no answer came: a move that may have landed is
   not repeated (the page reloads the game instead), and an answer, even an error, is final. */
async function answerOf(url, init, waits) {
  for (let tries = 0; ; tries += 1) {
    try {
      return await fetch(url, init);
    } catch (e) {
      if (init.method !== 'GET' || tries >= waits.length) return null;
      await pause(waits[tries]);
    }
  }
}

/** Says how far the proof of work for a new player has come (the page's message line). */
export function showProof(progress) {
  const box = $('#message');
  if (box && S.makingPlayer) box.textContent = fmt(S.makingPlayer, { n: Math.round(100 * progress) });
}

/** Calls the API at *origin* ('' on the page: this site). A 429 that asks for a proof of
    work (a new player past the address's free ones) is solved and the call made again. */
export async function request(method, path, body, { origin = '', waits = WAITS, proof = null, prove = solve, onProof = showProof } = {}) {
  const response = await answerOf(origin + PREFIX + path, requestInit(method, body, proof), waits);
  if (!response) return { ok: false, status: 0, data: null };
  let data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  const challenge = response.status === 429 && data && data.error && data.error.altcha;
  if (challenge && !proof) {
    const solved = await prove(challenge, onProof);
    if (solved) return request(method, path, body, { origin, waits, proof: solved, prove, onProof });
  }
  return { ok: response.ok, status: response.status, data };
}

/** Calls the API; without the network it answers status 0 rather than rejecting. */
export const api = (method, path, body) => request(method, path, body)
  .catch(() => ({ ok: false, status: 0, data: null }));

/** Whether asking again may help: no answer at all, the server busy or down (never a refusal). */
export const isTransient = (result) => result.status === 0 || result.status === 429 || result.status >= 500;

/** The pause before try *attempt* + 1 (0-based): 1 s, 2 s, 4 s ... at most 30 s. */
export const backoff = (attempt) => Math.min(30000, 1000 * 2 ** attempt);

/** Resolves after backoff(attempt), or at once when the browser says the network is back. */
export function waitForNetwork(attempt, target = globalThis) {
  return new Promise((resolve) => {
    const done = () => { clearTimeout(timer); target.removeEventListener('online', done); resolve(); };
    const timer = setTimeout(done, backoff(attempt));
    target.addEventListener('online', done);
  });
}

/* Asks until an answer that is not transient, waiting (onWait is told) for the 'online' event
   or a growing pause. A move carries its number: a copy that landed is refused, not replayed. */
export async function persist(method, path, body, onWait = () => {}, { call = api, wait = waitForNetwork } = {}) {
  for (let attempt = 0; ; attempt += 1) {
    const result = await call(method, path, body);
    if (!isTransient(result)) return attempt ? { ...result, retried: true } : result;
    onWait(result, attempt);
    await wait(attempt);
  }
}

/** How many times a read the player waits for is asked again while its failure is transient
    (no network; asked too fast: a limit counts the player's tabs together; the server busy). */
export const READ_AGAIN = 3;

/** A read the page waits for (a game's skill, a party's figures): GET *path*, asked again
    after backoff(0), backoff(1), ... while the answer is transient, at most *tries* more times. */
export async function readAgain(path, tries = READ_AGAIN, { call = api, wait = waitForNetwork } = {}) {
  let found = await call('GET', path);
  for (let attempt = 0; attempt < tries && isTransient(found); attempt += 1) {
    await wait(attempt);
    found = await call('GET', path);
  }
  return found;
}

/** Whether a refused repeat of a move had landed: the game is past it (only its first answer
    was lost). A first try refused so is a real clash (another tab moved): that one is said. */
export const landed = (result, move) => Boolean(result.retried) && result.status === 409
  && Boolean(result.data && result.data.error) && result.data.error.moves > move;

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
