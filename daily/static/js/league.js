/* A league's page (templates/league.html): its invite link copied, or handed to the system
   share sheet where there is one (navigator.share), as a finished game's Share does. Loaded
   by main.js only there. */
import { $, S } from './page.js';

/** What the share sheet is handed: the league's name as the title, the words, the link. */
export const inviteData = ({ shareTitle, shareText }, url) => ({ title: shareTitle, text: shareText, url });

/** Copies *link*; the name of the string that says how it went. */
export async function copyInvite(nav, link) {
  try {
    await nav.clipboard.writeText(link);
    return 'copied';
  } catch (e) {
    return 'copyFailed'; // no clipboard here (a page not on https) or refused: select it by hand
  }
}

/** Opens the share sheet with *data*; the name of the string to show ('' when the player
    closed the sheet), the clipboard standing in when the sheet fails. */
export async function shareInvite(nav, data) {
  try {
    await nav.share(data);
    return 'shared';
  } catch (e) {
    if (e && e.name === 'AbortError') return '';
    return copyInvite(nav, data.url);
  }
}

export function leaguePage(nav = navigator) {
  const box = $('#invite');
  if (!box) return; // a visitor's page, or a link that no longer works
  const field = $('input.invite', box);
  const status = $('[data-copy-status]', box);
  const say = (key) => {
    status.textContent = key ? S[key] : '';
    if (key === 'copyFailed') field.select();
  };
  $('[data-invite-copy]', box).addEventListener('click', async () => say(await copyInvite(nav, field.value)));
  if (!nav.share) return; // most desktop browsers: Copy only
  const share = $('[data-invite-share]', box);
  share.hidden = false;
  // The sheet opens within the click (no await before it): browsers ask for the user's gesture.
  share.addEventListener('click', async () => say(await shareInvite(nav, inviteData(box.dataset, field.value))));
}
