/* Party games: the set-up form (names, ruleset, options), the hand-over between players on
   one device, and the winner. */
import { $, $$, armForm, fmt, S, store, stored } from './page.js';
import { api, showError } from './net.js';
import { cheerOnce } from './cheer.js';

/* Whether this device shows the hand-over screen between turns: off unless asked for on the
   set-up form (every die in Yatzy is public: the screen only costs a tap a turn). */
const HANDOVER = 'daily.handoverScreen';
export const wantsHandOver = () => stored('localStorage', HANDOVER) === 'yes';

/* Asks the next player to take the device, once per turn and tab, where the device keeps the
   hand-over screen; onDone when they have. */
export function handOver(state, gameId, onDone) {
  const box = $('#handover');
  if (!box || state.finished || !wantsHandOver()) { if (box) box.hidden = true; return; }
  const key = `daily.handover.${gameId}`;
  const turnKey = `${state.turn}:${state.current}`;
  const seen = stored('sessionStorage', key, turnKey) || '';
  if (seen === turnKey || state.players.length < 2) { box.hidden = true; return; }
  const name = state.players[state.current].name;
  $('#handover-text').textContent = fmt(S.passTo, { name });
  const go = $('#handover-go');
  go.textContent = fmt(S.iAm, { name });
  go.onclick = () => {
    store('sessionStorage', key, turnKey); // not kept: asks again on reload
    box.hidden = true;
    document.body.classList.remove('handing-over');
    onDone();
  };
  box.hidden = false;
  document.body.classList.add('handing-over');
  go.focus();
}

/** Everybody's place by total, best first: equal totals share a place (1, 1, 3). */
export function places(players) {
  const order = players.map((p, i) => ({ i, name: p.name, total: p.total }))
    .sort((a, b) => b.total - a.total || a.i - b.i);
  return order.map((p) => ({ ...p, place: 1 + order.filter((q) => q.total > p.total).length }));
}

/* The standings strip over the dice, in seat order as the columns: each player's place and
   total, the player to move marked. */
export function drawStandings(state) {
  const box = $('#standings');
  if (!box) return;
  places(state.players).forEach(({ i, name, total, place }) => {
    const item = $(`li[data-player="${i}"]`, box);
    $('.place', item).textContent = place;
    $('.name', item).textContent = name;
    $('.pts', item).textContent = total;
    item.classList.toggle('current', !state.finished && i === state.current);
  });
}

/* The podium at the end: every place, the names whole. */
function drawPodium(state) {
  const podium = $('#podium');
  if (!podium) return;
  podium.innerHTML = '';
  places(state.players).forEach(({ name, total, place }) => {
    const item = document.createElement('li');
    if (place === 1) item.className = 'first';
    [['place', `${place}.`], ['name', name], ['pts', total]].forEach(([cls, text]) => {
      const span = document.createElement('span');
      span.className = cls;
      span.textContent = text;
      item.appendChild(span);
    });
    podium.appendChild(item);
  });
}

export function drawWinners(state, gameId) {
  drawPodium(state);
  const winners = state.winners.map((i) => state.players[i].name);
  state.winners.forEach((i) => $(`th[data-player="${i}"]`).classList.add('winner'));
  const total = state.players[state.winners[0]].total;
  $('#winner').textContent = winners.length === 1
    ? fmt(S.wins, { name: winners[0], total })
    : fmt(S.tieAt, { total, names: winners.join(', ') });
  cheerOnce(gameId, [$('#winner').textContent]);
}

export function partySetup(form) {
  const ruleset = form.elements.ruleset;
  const keep = form.elements.handover;
  keep.checked = wantsHandOver(); // then enabled: a tick is never undone by this read
  keep.addEventListener('change', () => store('localStorage', HANDOVER, keep.checked ? 'yes' : 'no'));
  keep.disabled = false;
  const showOptions = () => $$('.party-options', form).forEach((box) => {
    box.hidden = box.dataset.ruleset !== ruleset.value;
  });
  ruleset.addEventListener('change', showOptions);
  showOptions();
  armForm(form, async (event) => {
    event.preventDefault();
    const players = $$('input[name="player"]', form).map((i) => i.value.trim()).filter(Boolean);
    if (players.length < 2) { $('#message').textContent = S.needTwo; return; }
    const options = {};
    $$(`.party-options[data-ruleset="${ruleset.value}"] select`, form).forEach((select) => {
      options[select.name] = JSON.parse(select.value);
    });
    const result = await api('POST', '/games', { mode: 'party', ruleset: ruleset.value, options, players });
    if (result.ok) location.assign('/party/' + result.data.id); else showError(result);
  });
}
