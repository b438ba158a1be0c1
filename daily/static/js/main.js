/* daily: the pages' script, as native ES modules (no build step). This entry reads the
   page's strings and boot data, wires the header and the start buttons, and runs the page's
   part: the game screen (play.js) for every mode, imported with it; the party set-up and
   hand-over (party.js), today's, a friend's, the solo and computer pages (pages.js), a
   league's invite (league.js), fetched only where they run. */
import { $, $$, S, errorText, loadStrings, readJson } from './page.js';
import { api, start, waitForNetwork } from './net.js';
import { playPage } from './play.js';

function wireStartButtons() {
  $$('[data-start]').forEach((el) => el.addEventListener('click', (event) => {
    event.preventDefault();
    el.setAttribute('aria-busy', 'true');
    start(JSON.parse(el.dataset.start)).finally(() => el.removeAttribute('aria-busy'));
  }));
}

/* The header's name form saves through the API, without leaving the page. */
function wireName() {
  const form = $('#who');
  if (!form) return;
  const status = $('.who-status', form);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const result = await api('PATCH', '/players/me', { name: form.elements.name.value });
    if (result.ok) {
      form.elements.name.value = result.data.name;
      status.textContent = S.nameSaved;
    } else {
      status.textContent = errorText(result);
    }
  });
}

async function otherPage(page, boot) {
  const pages = await import('./pages.js');
  if (page === 'today') pages.todayPage(boot);
  else if (page === 'friend') pages.friendPage(boot);
  else pages.soloPage();
  if (page === 'computer') pages.waitForTables();
}

/* The offline page (the service worker's stand-in for a page it could not fetch) reloads
   itself once the network is back: on the 'online' event, or when a try with backoff gets
   through (the event does not fire where the browser thought it was online all along). */
async function reloadWhenOnline() {
  for (let attempt = 0; ; attempt += 1) {
    await waitForNetwork(attempt);
    try {
      if ((await fetch(location.href, { method: 'HEAD', cache: 'no-store' })).ok) break;
    } catch (e) { /* still offline */ }
  }
  location.reload();
}

loadStrings(readJson('strings'));
const boot = readJson('boot');
wireName();
wireStartButtons();
const page = document.body.dataset.page;
if (page === 'play' || (page === 'party' && boot.game)) playPage(boot);
// A party's skill and luck, player by player, under the podium once the result shows.
if (page === 'party' && boot.game) import('./figures.js').then((figures) => figures.followPartySkill(boot));
else if (page === 'party' && $('#party-setup')) import('./party.js').then((party) => party.partySetup($('#party-setup')));
else if (['today', 'friend', 'solo', 'computer'].includes(page)) otherPage(page, boot);
else if (page === 'league') import('./league.js').then((league) => league.leaguePage());
else if (page === 'me' && $('#reminder')) import('./reminders.js').then((reminders) => reminders.settings($('#reminder')));
else if (page === 'offline' && location.pathname !== '/offline') reloadWhenOnline(); // a stand-in
