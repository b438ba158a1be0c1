/* Each party player's skill and luck under the podium (issue 40.5): their own decisions on
   their own dice, asked of the party's analysis once the result shows, written as the API
   gives them (rounded once, on the server). Each name opens that player's analysis. */
import { $, fmt, S } from './page.js';
import { readAgain } from './net.js';
import { signed } from './share.js';

/** Fills *box* (the party's #party-skill) with the analysis answer's `players`. */
export function drawPartySkill(box, gameId, players) {
  const row = $('#party-skill-row', box).content.firstElementChild;
  $('ul', box).replaceChildren(...players.map((player, seat) => {
    const item = row.cloneNode(true);
    const link = $('.name', item);
    link.textContent = player.name;
    link.href = `/play/${gameId}/analysis?player=${seat}`;
    $('.skill', item).textContent = fmt(S.percentValue, { n: player.skill.skill });
    $('.luck', item).textContent = signed(player.skill.luck);
    return item;
  }));
  box.hidden = false;
}

/** Once the party's result shows (at once when the page opens on a finished party, else when
    the last turn is scored), asks for its analysis and fills the figures; nothing where its
    table is not ready (*boot*: the party page's). */
export function followPartySkill(boot) {
  const results = $('#results');
  const box = $('#party-skill');
  if (!results || !box || !boot.skillReady) return;
  const ask = async () => {
    if (results.hidden || box.dataset.asked) return;
    box.dataset.asked = 'yes';
    // The analyses' 2 a second are the player's, every tab's: a reload may be refused once.
    const found = await readAgain(`/games/${boot.game}/analysis`);
    if (found.ok && found.data.players) drawPartySkill(box, boot.game, found.data.players);
  };
  new MutationObserver(ask).observe(results, { attributes: true, attributeFilter: ['hidden'] });
  ask();
}
