/* daily's service worker: the site installs and opens offline to a page that says so.
   It keeps only the shell (the offline page, styles, scripts, icon). Pages and assets always
   come from the network first; the API and game state are never cached, because every die
   must come from the server. */
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
