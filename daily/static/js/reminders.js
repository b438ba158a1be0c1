/* Streak reminders by Web Push (templates/_reminder.html, docs/account.md). The result of a
   daily offers them once the player has finished two dailies (the server says so: `offer`);
   /me has the setting. The browser's permission prompt comes only after the player's tap;
   the time is theirs (19:00 unless they pick another) in their browser's time zone. A
   finished daily, or a visit to /me, confirms the subscription again, which keeps it alive
   on the server (it expires otherwise). */
import { $, errorText, fmt } from './page.js';
import { api } from './net.js';

/** Whether this browser can show reminders: a service worker and the Push API, on https. */
export const canPush = () => 'serviceWorker' in navigator && 'PushManager' in window
  && 'Notification' in window && window.isSecureContext;

/** The browser's time zone, as an IANA name ('UTC' where it does not say). */
export const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** A base64url key as the bytes `applicationServerKey` takes. */
export function keyBytes(text) {
  const plain = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
  return Uint8Array.from(plain, (c) => c.charCodeAt(0));
}

const say = (box, text) => { $('#reminder-status', box).textContent = text; };

/* The page as the reminder stands: the time, which button, the line under them. */
function show(box, state) {
  if (state.at) $('#reminder-at', box).value = state.at;
  $('#reminder-on', box).hidden = state.on;
  $('#reminder-off', box).hidden = !state.on;
  say(box, state.on ? fmt(box.dataset.on, { time: state.at }) : (state.said || ''));
}

async function registration() {
  await navigator.serviceWorker.register('/sw.js'); // account.js registers it too: the same one
  return navigator.serviceWorker.ready;
}

/* The browser's subscription to this server's key: the one it has, else a new one. */
async function subscription(box) {
  const found = await (await registration()).pushManager.getSubscription();
  if (found) return found;
  return (await registration()).pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(box.dataset.key) });
}

/* Sends the subscription and the time: turns the reminder on, or renews it. */
async function save(box, at) {
  const made = await subscription(box);
  return api('PUT', '/players/me/reminder', { subscription: made.toJSON(), at, zone: browserZone() });
}

async function turnOn(box) {
  const permission = await Notification.requestPermission(); // only now: the player tapped
  if (permission !== 'granted') { say(box, box.dataset.denied); return; }
  let result;
  try {
    result = await save(box, $('#reminder-at', box).value || '19:00');
  } catch (e) {
    say(box, box.dataset.failed); // the push service refused or could not be reached
    return;
  }
  if (result.ok) show(box, result.data);
  else say(box, errorText(result));
}

async function turnOff(box) {
  try {
    const found = await (await registration()).pushManager.getSubscription();
    if (found) await found.unsubscribe();
  } catch (e) { /* the server's side is what sends: turned off below all the same */ }
  const result = await api('DELETE', '/players/me/reminder');
  if (result.ok) show(box, { ...result.data, said: box.dataset.off });
  else say(box, errorText(result));
}

/* A reminder already on is confirmed again (renewed on the server) while this browser still
   has its subscription and may show notifications. */
async function renew(box, state) {
  if (Notification.permission !== 'granted') return;
  const found = await (await registration()).pushManager.getSubscription();
  if (found) await api('PUT', '/players/me/reminder', { subscription: found.toJSON(), at: state.at, zone: state.zone || browserZone() });
}

function wire(box) {
  if (box.dataset.wired) return;
  box.dataset.wired = 'yes';
  $('#reminder-on', box).addEventListener('click', () => turnOn(box));
  $('#reminder-off', box).addEventListener('click', () => turnOff(box));
  // A new time for a reminder that is on is saved at once.
  $('#reminder-at', box).addEventListener('change', async (event) => {
    if ($('#reminder-off', box).hidden || !event.target.value) return;
    const result = await save(box, event.target.value).catch(() => null);
    if (result && result.ok) show(box, result.data);
    else say(box, result ? errorText(result) : box.dataset.failed);
  });
}

async function stateOf() {
  const result = await api('GET', '/players/me/reminder');
  return result.ok && result.data.available ? result.data : null;
}

/** The result of a daily: offers the reminder once the server says so (two dailies
    finished, none on); renews one that is on. */
export async function offer(box) {
  if (!box || !canPush()) return;
  const state = await stateOf();
  if (!state) return;
  if (state.on) { renew(box, state).catch(() => {}); return; }
  if (!state.offer) return;
  wire(box);
  show(box, state);
  box.hidden = false;
}

/** The setting on /me: the reminder as it stands, turned on or off in one tap. */
export async function settings(box) {
  if (!box) return;
  box.hidden = false;
  if (!canPush()) {
    $('.row', box).hidden = true;
    say(box, box.dataset.unsupported);
    return;
  }
  const state = await stateOf();
  if (!state) { box.hidden = true; return; }
  wire(box);
  show(box, state);
  if (state.on) renew(box, state).catch(() => {});
}
