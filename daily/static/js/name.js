/* Names when they matter: at a guest's first finish, and at their first share (friends who
   open the link see the name), a form asks for a name in one field, the guest name filled
   in; "Not now" leaves it. Asked once per browser (localStorage daily.named); the server
   checks the name as everywhere (length, look-alike letters). Nothing runs on import. */
import { $, S, errorText, playerName, stored, store } from './page.js';
import { api } from './net.js';

const ASKED = 'daily.named';

/** Whether *name* is a guest's generated name ("Guest 1a2b"). */
export const isGuest = (name) => /^Guest [0-9a-f]{4}$/.test(name || '');

function done(form) {
  store('localStorage', ASKED, '1');
  form.hidden = true;
}

/** Shows the page's name form to a guest not asked before (once a page: the finish and a
    share that follows it ask the same form). */
export async function askName(form = $('#name-prompt')) {
  // A storage that throws (some private modes) reads as asked: never a prompt every game.
  if (!form || form.dataset.asked || stored('localStorage', ASKED, '1')) return;
  form.dataset.asked = 'yes';
  const me = await api('GET', '/players/me');
  if (!me.ok || !isGuest(me.data.name)) return;
  const input = form.elements.name;
  const status = $('.name-status', form);
  input.value = playerName(me.data.name);
  form.hidden = false;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const result = await api('PATCH', '/players/me', { name: input.value });
    if (!result.ok) { status.textContent = errorText(result); return; }
    status.textContent = S.nameSaved;
    done(form);
  });
  $('.name-skip', form).addEventListener('click', () => done(form));
}
