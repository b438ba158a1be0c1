// The service worker's streak reminders (daily/static/sw.js), run in a sandbox with stand-ins
// for the worker's globals: what a push shows, where a tap leads, what its button turns off.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import vm from 'node:vm';

const SOURCE = readFileSync(new URL('../../daily/static/sw.js', import.meta.url), 'utf8');
const ORIGIN = 'https://daily.example';

/* A worker: its listeners by event, the notifications it showed, the windows it opened or
   moved, the requests it sent and whether its subscription was dropped. */
function worker(windows = []) {
  const listeners = {};
  const seen = { shown: [], opened: [], moved: [], fetched: [], unsubscribed: false };
  const subscription = { unsubscribe: async () => { seen.unsubscribed = true; return true; } };
  const self = {
    location: new URL(`${ORIGIN}/sw.js`),
    addEventListener: (name, handler) => { listeners[name] = handler; },
    registration: {
      showNotification: async (title, options) => { seen.shown.push({ title, ...options }); },
      pushManager: { getSubscription: async () => subscription },
    },
    clients: {
      matchAll: async () => windows.map((url) => ({
        url, navigate: async (to) => { seen.moved.push(to); return { focus: async () => to }; },
      })),
      openWindow: async (url) => { seen.opened.push(url); },
    },
  };
  const fetch = async (url, init) => { seen.fetched.push({ url, ...init }); return { ok: true }; };
  vm.runInNewContext(SOURCE, { self, fetch, URL, JSON, caches: {}, Promise });
  const fire = async (name, event) => {
    let work = null;
    listeners[name]({ ...event, waitUntil: (promise) => { work = promise; } });
    await work;
  };
  return { fire, seen };
}

const reminder = { title: 'Tägliches Maxi Yatzy', body: 'Tag 3 deiner Serie', url: '/', off: 'tok', offLabel: 'Erinnerungen ausschalten', tag: 'daily-reminder' };

test('a push shows the reminder with its text, link and turn-off button', async () => {
  const { fire, seen } = worker();
  await fire('push', { data: { json: () => reminder } });
  assert.equal(seen.shown.length, 1);
  const [shown] = seen.shown;
  assert.equal(shown.title, 'Tägliches Maxi Yatzy');
  assert.equal(shown.body, 'Tag 3 deiner Serie');
  assert.deepEqual({ ...shown.data }, { url: '/', off: 'tok' }); // copied out of the sandbox's realm
  assert.deepEqual([...shown.actions.map((a) => `${a.action}: ${a.title}`)], ['off: Erinnerungen ausschalten']);
});

test("a tap opens today's puzzle in a new window when none of the site's is open", async () => {
  const { fire, seen } = worker(['https://elsewhere.example/']);
  let closed = false;
  await fire('notificationclick', { action: '', notification: { data: { url: '/', off: 'tok' }, close: () => { closed = true; } } });
  assert.ok(closed);
  assert.deepEqual(seen.opened, [`${ORIGIN}/`]);
  assert.equal(seen.fetched.length, 0);
});

test("a tap brings the site's open window to today's puzzle", async () => {
  const { fire, seen } = worker([`${ORIGIN}/me`]);
  await fire('notificationclick', { action: '', notification: { data: { url: '/' }, close() {} } });
  assert.deepEqual(seen.moved, [`${ORIGIN}/`]);
  assert.deepEqual(seen.opened, []);
});

test('a link to another site is never followed: the tap opens the puzzle', async () => {
  const { fire, seen } = worker();
  await fire('notificationclick', { action: '', notification: { data: { url: 'https://evil.example/' }, close() {} } });
  assert.deepEqual(seen.opened, [`${ORIGIN}/`]);
});

test('its button turns the reminders off on the server and in the browser', async () => {
  const { fire, seen } = worker();
  await fire('notificationclick', { action: 'off', notification: { data: { url: '/', off: 'tok' }, close() {} } });
  assert.equal(seen.fetched.length, 1);
  assert.equal(seen.fetched[0].url, '/api/v1/reminders/off');
  assert.equal(seen.fetched[0].method, 'POST');
  assert.deepEqual(JSON.parse(seen.fetched[0].body), { token: 'tok' });
  assert.ok(seen.unsubscribed);
  assert.deepEqual(seen.opened, []);
});
