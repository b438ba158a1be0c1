/* The dice tray: the turn's dice as hold toggles, and which of them are held. Holds wait in
   sessionStorage until the roll is sent, so a reload keeps them. */
import { $, $$, fmt, S, store, stored } from './page.js';

let held = new Set(); // indexes of the held dice
let storageKey = ''; // where this game's holds wait

const style = () => (document.body.classList.contains('dice-x') ? 'x' : 'f');

export function dieSvg(face) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('class', 'die');
  svg.setAttribute('viewBox', '0 0 64 64');
  svg.setAttribute('aria-hidden', 'true');
  const use = document.createElementNS(ns, 'use');
  use.setAttribute('href', `#${style()}${face}`);
  svg.appendChild(use);
  return svg;
}

/** The name a screen reader gives die i (0-based) showing face, held or not. */
export const dieLabel = (face, i, isHeld) => fmt(isHeld ? S.dieHeld : S.die, { n: i + 1, face: S[`face${face}`] });

/* A die as a hold toggle: its face, pressed and tagged while held; the caller wires it. */
function dieButton(face, i, isHeld) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'die-btn';
  button.dataset.index = i;
  button.dataset.face = face;
  button.setAttribute('aria-pressed', isHeld ? 'true' : 'false');
  button.setAttribute('aria-label', dieLabel(face, i, isHeld));
  button.appendChild(dieSvg(face));
  const tag = document.createElement('span');
  tag.className = 'tag';
  tag.setAttribute('aria-hidden', 'true');
  tag.textContent = isHeld ? S.held : '';
  button.appendChild(tag);
  return button;
}

export function openTray(gameId) {
  storageKey = `daily.holds.${gameId}`;
  held = new Set();
}

export const isHeld = (i) => held.has(i);
export const heldCount = () => held.size;
/** The held dice in order, as a roll sends them. */
export const holds = () => Array.from(held).sort((a, b) => a - b);

export function saveHolds(state) {
  store('sessionStorage', storageKey, JSON.stringify({ moves: state.move_count, hold: Array.from(held) }));
}

/** A new turn: nothing held, unless this tab saved holds at this very move (a reload). */
export function newTurn(state) {
  held = new Set();
  try {
    const saved = JSON.parse(stored('sessionStorage', storageKey) || 'null');
    if (saved && saved.moves === state.move_count) held = new Set(saved.hold.filter((i) => i < state.dice.length));
  } catch (e) { held = new Set(); }
}

export function holdOnly(hold, state) {
  held = new Set(hold);
  saveHolds(state);
}

export function drawTray(box, state, onToggle) {
  box.innerHTML = '';
  if (state.finished) return;
  state.dice.forEach((face, i) => {
    const button = dieButton(face, i, held.has(i));
    button.disabled = state.rolls_left === 0;
    button.addEventListener('click', () => onToggle(i));
    box.appendChild(button);
  });
}

export function flip(box, state, i) {
  if (held.has(i)) held.delete(i); else held.add(i);
  const button = box.children[i];
  button.setAttribute('aria-pressed', held.has(i) ? 'true' : 'false');
  button.setAttribute('aria-label', dieLabel(state.dice[i], i, held.has(i)));
  $('.tag', button).textContent = held.has(i) ? S.held : '';
  saveHolds(state);
}

/** Holds (*hold*) or releases every die showing *face*; answers how many changed. */
export function setFace(box, state, face, hold) {
  const which = state.dice.map((f, i) => (f === face && held.has(i) !== hold ? i : -1)).filter((i) => i >= 0);
  which.forEach((i) => flip(box, state, i));
  return which.length;
}

/** The dice a roll throws start to tumble; answers which ones, by index. */
export function startRolling(box, count) {
  const rolled = Array.from({ length: count }, (_, i) => !held.has(i));
  $$('.die-btn', box).forEach((b, i) => { if (rolled[i]) b.classList.add('rolling'); });
  return rolled;
}

/** The fresh dice land with a small bounce; the held ones stay still. */
export function land(box, rolled) {
  $$('.die-btn', box).forEach((b, i) => { if (rolled[i]) b.classList.add('landed'); });
}
