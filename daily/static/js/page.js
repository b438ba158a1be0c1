/* The page: its translated strings (the #strings block; the script never writes English
   itself), its elements, and the browser's storage. Nothing runs on import, so node's test
   runner loads the modules that use it. */

export const S = {};

export function loadStrings(strings) {
  Object.assign(S, strings);
}

/** Fills a string's {name} slots from values; a slot without a value stays as written. */
export const fmt = (text, values) => text.replace(/\{(\w+)\}/g, (m, k) => (k in values ? values[k] : m));

/* A player's name as shown: the API names a guest "Guest 1a2b" (as the server's player_name
   filter does, the script words it in the page's language), and a friend code's creator who
   deleted their account null; any other name stays as typed. */
export function playerName(name) {
  if (name === null) return S.deleted;
  const guest = /^Guest ([0-9a-f]{4})$/.exec(name || '');
  return guest && S.guest ? fmt(S.guest, { n: guest[1] }) : name;
}

/** *text* as a sentence: "a deleted player" opening it gets its capital ("A deleted player
    wins"); a typed name keeps its own case. */
export function sentence(text) {
  if (!S.deleted || !text.startsWith(S.deleted)) return text;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/* The player's words for a failed call: chosen by the error JSON's code (its message is
   English, for developers); no JSON at all means the server was not reached. */
export function errorText(result) {
  const error = result && result.data && result.data.error;
  if (!error) return S.errorNoAnswer;
  return S['error:' + error.code] || S.errorOther;
}

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

/** Sends *form* through *handler* and only then lets it be sent: its submit buttons come
    disabled, since without the script a click would only reload the page. */
export function armForm(form, handler) {
  form.addEventListener('submit', handler);
  $$('[type="submit"]', form).forEach((button) => { button.disabled = false; });
}

export function readJson(id) {
  const el = document.getElementById(id);
  return el ? JSON.parse(el.textContent) : {};
}

export const reducedMotion = () => window.matchMedia('(prefers-reduced-motion: reduce)').matches;

/* sessionStorage and localStorage throw in some private modes: there the page keeps nothing,
   and reading gives *failed* (a missing key gives null, as getItem does). */
export function stored(storage, key, failed = null) {
  try {
    return window[storage].getItem(key);
  } catch (e) {
    return failed;
  }
}

export function store(storage, key, value) {
  try {
    window[storage].setItem(key, value);
  } catch (e) { /* not kept: asked or shown again next time */ }
}
