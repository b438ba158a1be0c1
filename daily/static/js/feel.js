/* Game feel: a short vibration on phones that have it when the dice land and when a row is
   scored, the scored row flashing, and a cheer the moment the bonus or a (Maxi) Yatzy lands.
   All of it is quiet under prefers-reduced-motion, and every effect is over in FLASH_MS, less
   than a move's round trip takes on a phone. Nothing runs on import. */
import { $, reducedMotion } from './page.js';

export const FLASH_MS = 700;
const BIG_ROWS = new Set(['yatzy', 'maxi_yatzy']);

/** What scoring *row* did, from the sheet before and after: its points, and what to cheer. */
export function scoredMoment(row, before, after) {
  const points = after.scorecard ? after.scorecard[row] : null;
  const bonus = (after.bonus || 0) > 0 && !((before && before.bonus) > 0);
  const yatzy = BIG_ROWS.has(row) && points > 0;
  return { points, bonus, yatzy, cheer: bonus || yatzy };
}

/** A vibration (ms, or a pattern) where the phone has one and motion is welcome. */
export function buzz(pattern) {
  if (!reducedMotion() && typeof navigator.vibrate === 'function') navigator.vibrate(pattern);
}

function flash(el, name) {
  el.classList.remove(name);
  void el.offsetWidth; // restarts the animation when the same row flashes twice
  el.classList.add(name);
  setTimeout(() => el.classList.remove(name), FLASH_MS);
}

/** Flashes the row just scored (and cheers a bonus or a Yatzy); nothing under reduced motion. */
export function scored(row, before, after) {
  if (reducedMotion()) return;
  const moment = scoredMoment(row, before, after);
  const line = $(`tr[data-row="${row}"]`);
  if (line) {
    line.dataset.gained = `+${moment.points}`;
    flash(line, 'just-scored');
  }
  if (moment.cheer) flash(document.body, 'cheer');
  buzz(moment.cheer ? [30, 40, 60] : 15);
}
