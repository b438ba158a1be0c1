/* daily's service worker: the site installs and opens offline to a page that says so.
   It keeps only the shell (the offline page, styles, scripts, icon). Pages and assets always
   come from the network first; the API and game state are never cached, because every die
   must come from the server. It also shows the streak reminders `daily remind` sends by Web
   Push (daily/service/remind.py): a tap opens today's puzzle, its button turns them off. */
'use strict';
const CACHE = 'daily-shell-__VERSION__';
const MODULES = ['__MODULES__']; // the play script's modules, /js/<version>/*.js (web/assets.py)
const SHELL = ['/offline', '/static/site.css', '/static/theme.css', '/static/pages.css', ...MODULES,
  '/static/account.js', '/static/icon.svg', '/static/icon-192.png'];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((n) => n !== CACHE).map((n) => caches.delete(n))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (url.pathname.startsWith('/api/')) return; // game state: the network's, always
  if (request.mode === 'navigate') {
    event.respondWith(fetch(request).catch(() => caches.match('/offline')));
  } else if (url.pathname.startsWith('/static/') || url.pathname.startsWith('/js/')) {
    event.respondWith(fetch(request).catch(() => caches.match(request, { ignoreSearch: true })));
  }
});

/* A streak reminder: { title, body, url, off (a token), offLabel, tag } as the server sent it. */
self.addEventListener('push', (event) => {
  let data = {};
  try { data = event.data ? event.data.json() : {}; } catch (e) { /* not JSON: shown bare */ }
  const options = {
    body: data.body || '',
    icon: '/static/icon-192.png',
    tag: data.tag || 'daily-reminder', // a newer reminder replaces an older one
    data: { url: data.url || '/', off: data.off || null },
    actions: data.off ? [{ action: 'off', title: data.offLabel || 'Off' }] : [],
  };
  event.waitUntil(self.registration.showNotification(data.title || 'Daily Maxi Yatzy', options));
});

/* Turns the reminders off from the notification: on the server (the token names the player and
   this subscription, no cookie needed), then the browser's subscription. */
async function turnOff(token) {
  await fetch('/api/v1/reminders/off', {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token }),
  }).catch(() => null);
  const found = await self.registration.pushManager.getSubscription();
  if (found) await found.unsubscribe();
}

/* Today's puzzle: the site's open window brought forward and sent there, else a new one. */
async function openPuzzle(url) {
  const asked = new URL(url, self.location.origin);
  const target = asked.origin === self.location.origin ? asked.href : `${self.location.origin}/`;
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const mine = windows.find((w) => new URL(w.url).origin === self.location.origin);
  if (mine && mine.navigate) {
    const moved = await mine.navigate(target).catch(() => null);
    if (moved) return moved.focus();
  }
  return self.clients.openWindow(target);
}

self.addEventListener('notificationclick', (event) => {
  const { url, off } = event.notification.data || {};
  event.notification.close();
  event.waitUntil(event.action === 'off' && off ? turnOff(off) : openPuzzle(url || '/'));
});
