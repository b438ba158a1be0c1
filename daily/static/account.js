/* daily: the player's page and the installable shell. Settings forms submit as soon as a
   choice is made (their button stays for browsers without script); the service worker is
   registered for the offline page. */
(() => {
  'use strict';
  document.documentElement.classList.add('js');
  document.querySelectorAll('form[data-autosubmit]').forEach((form) => {
    const select = form.querySelector('select');
    if (!select) return;
    select.addEventListener('change', () => {
      if (form.requestSubmit) form.requestSubmit(); else form.submit();
    });
  });
  if ('serviceWorker' in navigator && window.isSecureContext) {
    navigator.serviceWorker.register('/sw.js').catch(() => {});
  }
})();
