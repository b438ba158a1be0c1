/* The game screen of every mode (templates/_game.html): daily, friend, solo, computer and
   party games share the dice, Roll, the sheet, the keyboard, the scratch confirmation and the
   roll animation. This module holds the game as the server last sent it and sends the moves;
   the dice tray, the sheet, results and party draw their parts. Here too: the first game's
   lesson and the "Best move" hints. */
import { $, S, fmt, playerName, reducedMotion, sentence, stored, store } from './page.js';
import { api, landed, persist, showError } from './net.js';
import * as tray from './dice.js';
import * as sheets from './sheet.js';
import * as feel from './feel.js';
import { askName } from './name.js';

// mode: the mode's flags (web/sheets.mode_meta), never its id; state: the server's last answer
const game = { id: '', sheet: null, mode: null, target: null, state: null, dayName: null, skillReady: false };
let results = null; // the results module, once the game has ended
let rowNames = {};
let busy = false; // a roll or a score is on its way
let party = null; // party.js: imported on a party game's page only

const diceBox = () => $('#dice');
const rollButton = () => $('#roll');

/* -- the first game's lesson: shown once, until the player does something (or says "Got it") */

const TAUGHT = 'daily.taught';

function teach(state) {
  const box = $('#teach');
  const taught = stored('localStorage', TAUGHT, 'yes') === 'yes';
  box.hidden = taught || state.finished || state.move_count > 0;
  document.body.classList.toggle('teaching', !box.hidden);
}

function learned() {
  const box = $('#teach');
  if (box.hidden) return;
  box.hidden = true;
  document.body.classList.remove('teaching');
  store('localStorage', TAUGHT, 'yes'); // not kept: shown again next time
}

/* -- "Best move": the ranked actions with their expected final scores; a keep can be picked */

/** One hint in words: what to do, the score it expects, and what the played move would lose. */
export function hintText(action, names) {
  let label = fmt(S.hintScore, { row: names[action.score] });
  if (!action.score) label = action.keep.length ? fmt(S.hintKeep, { dice: action.keep.join(' ') }) : S.hintRollAll;
  const value = fmt(S.hintValue, { value: action.value.toFixed(1) });
  const loss = action.loss > 0 ? ` (${fmt(S.hintLoss, { loss: action.loss.toFixed(1) })})` : '';
  return `${label}: ${value}${loss}`;
}

async function showHints() {
  learned(); // asking for the best move is a way in too
  const list = $('#hints');
  if (!list.hidden) { list.hidden = true; return; } // it lies over the sheet: a second press closes it
  const result = await api('GET', `/games/${game.id}/hint`);
  if (!result.ok) { showError(result); return; }
  list.innerHTML = '';
  result.data.actions.slice(0, 5).forEach((action) => {
    const item = document.createElement('li');
    item.textContent = hintText(action, rowNames);
    item.dataset.hold = action.hold ? action.hold.join(',') : '';
    if (action.hold) {
      item.classList.add('pickable');
      item.addEventListener('click', () => holdHint(action.hold));
    }
    list.appendChild(item);
  });
  list.hidden = false;
}

/* -- the turn ------------------------------------------------------------------------------ */

function drawRoll() {
  const { state } = game;
  const canRoll = !state.finished && state.rolls_left > 0 && tray.heldCount() < state.dice.length;
  rollButton().disabled = busy || !canRoll;
  rollButton().textContent = state.rolls_left > 0 ? fmt(S.rollAgain, { n: state.rolls_left }) : S.noRolls;
}

const canHold = (state) => !busy && state && !state.finished && state.rolls_left > 0;

function toggle(i) {
  const { state } = game;
  if (!canHold(state) || i >= state.dice.length) return;
  tray.flip(diceBox(), state, i);
  learned();
  drawRoll();
}

/* Holds every die showing *face*, or releases them all when *hold* is false. */
function holdFace(face, hold) {
  const { state } = game;
  if (!canHold(state)) return;
  tray.setFace(diceBox(), state, face, hold);
  learned();
  drawRoll();
}

const DOUBLE_MS = 400; // a second tap on the same die this soon after the first is a double tap
let lastTap = { i: -1, at: 0, move: -1 };

/* A tap on die *i* holds or releases it; a double tap holds every die of its face (the first
   tap held this one), or releases them all (the first tap released it): one gesture each way.
   Both taps fall on the same dice: a tap after a roll or a score starts afresh. */
function tapDie(i) {
  const now = performance.now();
  const move = game.state ? game.state.move_count : -1;
  const double = lastTap.i === i && lastTap.move === move && now - lastTap.at < DOUBLE_MS;
  lastTap = double ? { i: -1, at: 0, move: -1 } : { i, at: now, move };
  if (double && canHold(game.state)) holdFace(game.state.dice[i], tray.isHeld(i));
  else toggle(i);
}

/* Shift and a digit: every die showing that face held, or released when all of them were. */
function holdFaceKey(face) {
  const { state } = game;
  const showing = state.dice.map((f, i) => (f === face ? i : -1)).filter((i) => i >= 0);
  holdFace(face, !showing.every((i) => tray.isHeld(i)));
}

function holdHint(hold) {
  $('#hints').hidden = true;
  tray.holdOnly(hold, game.state);
  tray.drawTray(diceBox(), game.state, tapDie);
  drawRoll();
}

/* The turn line, and what a screen reader hears after each roll: the faces in order, then
   how many rolls are left; against a friend's score, how the two stand. */
function drawStatus() {
  const { state, sheet, target } = game;
  const faces = state.dice.map((face) => S[`face${face}`]).join(', ');
  const rolled = fmt(S.rolled, { faces, n: state.rolls_left });
  const turns = sheet.rows.length;
  if (state.finished) {
    $('#status').textContent = '';
    $('#announce').textContent = '';
  } else if (sheets.isParty(state)) {
    const name = state.players[state.current].name;
    $('#status').textContent = fmt(S.turnOf, { name, turn: state.turn, turns });
    $('#announce').textContent = `${fmt(S.toPlay, { name })}. ${rolled}`;
  } else {
    $('#status').textContent = fmt(S.turn, { turn: state.turn, turns });
    $('#announce').textContent = rolled;
  }
  const scored = sheet.rows.filter((r) => state.scorecard && state.scorecard[r.id] !== null).length;
  if (state.finished) $('#versus').hidden = true; // once over, the verdict says who won
  else if (target && scored > 0 && target.byTurn.length) {
    const t = Math.min(scored, target.byTurn.length);
    const versus = $('#versus');
    versus.hidden = false;
    versus.textContent = sentence(fmt(S.vs, { turn: t, you: state.total, name: playerName(target.name), them: target.byTurn[t - 1] }));
  }
}

/* The computer's last turn step by step. */
function drawOpponent() {
  const them = game.state.computer;
  const box = $('#opponent');
  if (!them || !box) return;
  box.hidden = them.turns === 0;
  const list = $('#their-turn');
  list.innerHTML = '';
  them.last_turn.forEach((step) => {
    const item = document.createElement('li');
    const dice = document.createElement('span');
    dice.className = step.hold ? 'dice small holding' : 'dice small';
    step.dice.forEach((face, i) => {
      const svg = tray.dieSvg(face);
      if (step.hold && step.hold.includes(i)) svg.classList.add('kept');
      dice.appendChild(svg);
    });
    item.appendChild(dice);
    const text = step.score
      ? fmt(S.theirScore, { points: step.points, row: rowNames[step.score] })
      : fmt(S.theirKeep, { n: step.hold.length });
    item.appendChild(document.createTextNode(` ${text}`));
    list.appendChild(item);
  });
  // Its last row in one line over the sheet: the steps under it are below the fold on a phone.
  const last = them.last_turn[them.last_turn.length - 1];
  if (last && last.score && !game.state.finished) {
    $('#versus').hidden = false;
    $('#versus').textContent = fmt(S.computerScored, { points: last.points, row: rowNames[last.score] });
  }
}

function drawEnd() {
  $('#table .controls').hidden = true;
  $('.kbd-help').hidden = true;
  if (sheets.isParty(game.state)) {
    $('#results').hidden = false;
    party.drawWinners(game.state, game.id);
    return;
  }
  $('#final-total').textContent = game.state.total;
  // Fetched when a game ends, not with the game screen: a first visit downloads less. The
  // box shows with its verdict, not empty before it (and without it if the fetch fails).
  results ||= import('./results.js').catch(() => null);
  results.then((module) => {
    $('#results').hidden = false;
    if (module) module.drawResults(game);
  });
  askName();
}

/* Moves the focus to the results once they show. */
function focusResults() {
  (results || Promise.resolve()).then(() => $('#results').focus());
}

function draw() {
  const { state } = game;
  document.body.classList.toggle('playing', !state.finished);
  tray.drawTray(diceBox(), state, tapDie);
  drawRoll();
  sheets.drawSheet(game.sheet, state, pick);
  drawStatus();
  drawOpponent();
  if (sheets.isParty(state)) party.drawStandings(state);
  const hints = $('#hints');
  if (hints) hints.hidden = true;
  const hintButton = $('#hint');
  if (hintButton) hintButton.hidden = state.finished;
  if (state.finished) drawEnd();
}

/* A move's answer carries what the move changed (of the scorecard, the row it scored); the
   log grows by the *move* sent, as the server keeps it (the share grid reads the turns from it). */
function changed(data, move) {
  const { state } = game;
  return { ...state, ...data, scorecard: { ...state.scorecard, ...data.scorecard }, moves: [...(state.moves || []), move] };
}

/* Takes the server's answer as the game: a new turn (or player) starts with nothing held. */
function accept(next) {
  const before = game.state;
  const newTurn = !before || next.turn !== before.turn || next.finished
    || (next.players && next.current !== before.current);
  game.state = next;
  if (newTurn) tray.newTurn(next);
  draw();
  teach(next);
  if (sheets.isParty(next) && (!before || before.current !== next.current || before.turn !== next.turn)) {
    party.handOver(next, game.id, () => rollButton().focus());
  }
  // How many moves the page shows: lets a reader (or a test) wait for a move to land.
  document.body.dataset.moves = next.move_count;
}

/* -- the network: never frozen, never lost ------------------------------------------------ */

let waiting = false; // a call waits for the network

function onWait() {
  waiting = true;
  $('#message').textContent = S.offlineWait;
}

/* Through again: "Connected again", for a moment. */
function reached() {
  if (!waiting) return;
  waiting = false;
  const box = $('#message');
  box.textContent = S.online;
  setTimeout(() => { if (box.textContent === S.online) box.textContent = ''; }, 3000);
}

/* Sends a move until answered; a repeat of one that had landed reloads the game quietly. */
async function sendMove(kind, body) {
  const result = await persist('POST', `/games/${game.id}/${kind}`, body, onWait);
  reached();
  if (result.ok) return result;
  if (!landed(result, body.move)) showError(result);
  await reload();
  return null;
}

async function reload() {
  const result = await persist('GET', `/games/${game.id}`, undefined, onWait);
  reached();
  if (result.ok) accept(result.data); else showError(result);
}

async function roll() {
  if (busy || rollButton().disabled) return;
  busy = true;
  learned();
  drawRoll();
  const { state } = game;
  const rolled = tray.startRolling(diceBox(), state.dice.length);
  const hold = tray.holds();
  const [result] = await Promise.all([
    sendMove('roll', { hold, move: state.move_count }),
    new Promise((resolve) => setTimeout(resolve, reducedMotion() ? 0 : 450)),
  ]);
  busy = false;
  if (!result) { drawRoll(); return; }
  accept(changed(result.data, { hold }));
  tray.saveHolds(game.state);
  tray.land(diceBox(), rolled);
  feel.buzz(10);
  // Focus stays on Roll while it can roll; after the last roll, on the best row to score.
  if (!rollButton().disabled) rollButton().focus();
  else {
    const first = $('button.pick');
    if (first) first.focus();
  }
}

function confirmScratch(row) {
  const dialog = $('#confirm');
  $('#confirm-text').textContent = fmt(S.scratch, { row: rowNames[row] });
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'yes'), { once: true });
    dialog.returnValue = '';
    dialog.showModal();
  });
}

async function pick(row) {
  const { state } = game;
  if (busy || state.finished) return;
  if (state.potential[row] === 0 && !(await confirmScratch(row))) return;
  busy = true;
  learned();
  const result = await sendMove('score', { category: row, move: state.move_count });
  busy = false;
  if (!result) { drawRoll(); return; }
  sheets.forget();
  accept(changed(result.data, { score: row }));
  if (!sheets.isParty(state)) feel.scored(row, state, game.state);
  if (!game.state.finished && !document.body.classList.contains('handing-over')) rollButton().focus();
  else if (game.state.finished) focusResults();
}

/* The keys: 1-9 hold a die (Space on a focused die too), Shift and 1-6 every die of that face,
   R or Space rolls, the arrows walk the open rows and Enter scores the current one. The digits
   are read by their key's place (event.code), so a layout that types them with Shift (AZERTY)
   holds a die without it. Typing in a form is left alone. */
function onKey(event) {
  const { state, sheet } = game;
  if (!state || state.finished || event.ctrlKey || event.metaKey || event.altKey) return;
  if (document.body.classList.contains('handing-over')) return;
  const target = event.target;
  if (target.closest('input, textarea, select, dialog, form')) return;
  const key = event.key;
  const onDie = target.closest('.die-btn');
  const digit = /^Digit([1-9])$/.exec(event.code);
  if (digit && event.shiftKey) holdFaceKey(Number(digit[1]));
  else if (digit) toggle(Number(digit[1]) - 1);
  else if (/^[1-9]$/.test(key)) toggle(Number(key) - 1);
  else if (key === ' ' && onDie) toggle(Number(onDie.dataset.index)); // holds it, as a button should
  else if (key === 'r' || key === 'R' || (key === ' ' && !target.closest('button, a'))) roll();
  else if (key === 'ArrowDown' || key === 'ArrowUp') sheets.step(sheet, state, key === 'ArrowDown' ? 1 : -1, pick);
  else if (key === 'Enter' && !target.closest('button, a') && sheets.currentRow(sheet, state)) {
    pick(sheets.currentRow(sheet, state).id);
  } else return;
  event.preventDefault();
}

export async function playPage(boot) {
  if (boot.mode.opponent === 'party') party = await import('./party.js');
  Object.assign(game, { id: boot.game, sheet: boot.sheet, mode: boot.mode, target: boot.target || null, state: null, dayName: boot.dayName || null, skillReady: Boolean(boot.skillReady) });
  rowNames = Object.fromEntries(boot.sheet.rows.map((r) => [r.id, r.name]));
  tray.openTray(boot.game);
  document.addEventListener('keydown', onKey);
  rollButton().addEventListener('click', roll);
  const hintButton = $('#hint');
  if (hintButton) hintButton.addEventListener('click', showHints);
  $('#teach-ok').addEventListener('click', () => { learned(); rollButton().focus(); });
  reload();
}
