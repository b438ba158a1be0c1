/* The score sheet: one column per player (yours; yours and the computer's; one per party
   player), the open rows of the player to move as pick buttons, the sums, and the pace of the
   upper section. The arrow keys walk the open rows; which one is current lives here. */
import { $, fmt, S } from './page.js';

let current = -1; // index into the open rows picked with the arrow keys

export const isParty = (state) => Boolean(state && state.players);
export const columns = (state) => (isParty(state) ? state.players : [state, state.computer].filter(Boolean));
export const mover = (state) => (isParty(state) ? state.current : 0);
export const openRows = (sheet, state) => sheet.rows.filter((r) => state && !state.finished && r.id in state.potential);

const cellOf = (row, p) => $(`tr[data-row="${row}"] [data-cell="${p}"]`);
const sumOf = (name, p) => $(`tr[data-sum="${name}"] [data-cell="${p}"]`);

/** What each row of a column shows: its points once scored, a pick where its player may score. */
export function cells(sheet, state, mine, canPick) {
  return sheet.rows.map((row) => {
    const points = mine.scorecard[row.id];
    if (points !== null) return { row, text: String(points), zero: points === 0, pick: false };
    const pick = canPick && row.id in state.potential && !state.finished;
    return { row, text: '', zero: false, pick };
  });
}

/** The sums under a column, as shown (a sheet without an extra bonus shows 0). */
export const sums = (mine) => ({
  upper: String(mine.upper), bonus: String(mine.bonus), extra: String(mine.extra_bonus || 0), total: String(mine.total),
});

/** How the upper section stands against par, as [words, class]: a hint for play, not a verdict
    (none once the game or the upper section is done: the bonus row then says it all). */
export function paceText(sheet, mine, finished) {
  if (finished) return ['', ''];
  const upper = sheet.rows.filter((r) => r.face && mine.scorecard[r.id] !== null);
  if (upper.length === sheet.rows.filter((r) => r.face).length) return ['', ''];
  if (!upper.length || mine.bonus > 0) return mine.bonus > 0 ? [S.bonusMade, 'pace-ahead'] : ['', ''];
  const ahead = Math.round(upper.reduce((total, r) => total + mine.scorecard[r.id] - r.face * sheet.par, 0));
  if (ahead > 0) return [fmt(S.ahead, { n: ahead }), 'pace-ahead'];
  if (ahead < 0) return [fmt(S.behind, { n: -ahead }), 'pace-behind'];
  return [S.onPace, ''];
}

function pickButton(sheet, state, row, onPick) {
  const open = openRows(sheet, state);
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'pick';
  const value = state.potential[row.id];
  if (value === 0) button.classList.add('zero');
  if (open[current] && open[current].id === row.id) button.classList.add('current');
  button.dataset.row = row.id;
  button.setAttribute('aria-label', fmt(S.pickRow, { row: row.name, points: value }));
  const pts = document.createElement('span');
  pts.className = 'pts';
  pts.textContent = value;
  button.appendChild(pts);
  button.addEventListener('click', () => onPick(row.id));
  button.addEventListener('focus', () => { current = openRows(sheet, state).findIndex((r) => r.id === row.id); });
  return button;
}

function drawColumn(sheet, state, mine, p, onPick) {
  const who = mover(state);
  const head = $(`th[data-player="${p}"]`);
  if (head) head.classList.toggle('current', isParty(state) && p === who && !state.finished);
  cells(sheet, state, mine, p === who).forEach(({ row, text, zero, pick }) => {
    const box = cellOf(row.id, p);
    box.innerHTML = '';
    box.textContent = text;
    box.classList.toggle('zero', zero);
    if (pick) box.appendChild(pickButton(sheet, state, row, onPick));
  });
  Object.entries(sums(mine)).forEach(([name, text]) => { sumOf(name, p).textContent = text; });
  if (mine.extra_bonus) $('tr[data-sum="extra"]').hidden = false;
}

export function drawSheet(sheet, state, onPick) {
  const open = openRows(sheet, state);
  if (current >= open.length) current = open.length - 1;
  const who = mover(state);
  columns(state).forEach((mine, p) => drawColumn(sheet, state, mine, p, onPick));
  if (isParty(state)) $('#sheet').dataset.current = state.finished ? '' : who;
  const [text, cls] = paceText(sheet, columns(state)[who], state.finished);
  const pace = $('#pace');
  pace.textContent = text;
  pace.className = cls;
}

/** Moves the current row by step (the arrow keys) and focuses its pick. */
export function step(sheet, state, by, onPick) {
  const open = openRows(sheet, state);
  if (!open.length) return;
  current = current < 0 ? (by > 0 ? 0 : open.length - 1) : (current + by + open.length) % open.length;
  drawSheet(sheet, state, onPick);
  const button = $(`button.pick[data-row="${open[current].id}"]`);
  if (button) button.focus();
}

export const currentRow = (sheet, state) => openRows(sheet, state)[current];

export function forget() {
  current = -1;
}
