/* The share text and its grid: the game told in order, one square a turn, each coloured
   against what best play scores in the row that turn filled; no die given away, and no
   legend needed in a chat (the result screen has one). */
import { fmt, S } from './page.js';
import { PAR } from './par.js';

/** Luck in whole points with its sign, as the server rounded it (never rounded again here):
    '+12', '−41' (a true minus, U+2212, as the page writes it), '0'. */
export const signed = (points) => (points > 0 ? `+${points}` : String(points).replace('-', '\u2212'));

/** A game's skill, luck and the Expert's score as the head line says them (*skill*: the
    answer's `skill`, whole figures as shown); '' without one. */
export function skillWords(skill) {
  if (!skill) return '';
  const parts = [fmt(S.shareSkill, { n: skill.skill }), fmt(S.shareLuck, { n: signed(skill.luck) })];
  if (skill.expert !== null && skill.expert !== undefined) parts.push(fmt(S.shareExpert, { n: skill.expert }));
  return parts.join(' · ');
}

/* A turn's points against its row's par (what optimal play scores there on average): 'at'
   (at or above it), 'near' (at least three quarters), 'under' (at least half), 'far' (less),
   'zero'. Without a par, a score is 'near'. */
export function grade(points, par) {
  if (!points) return 'zero';
  if (!par) return 'near';
  if (points >= par) return 'at';
  if (points >= par * 0.75) return 'near';
  return points >= par * 0.5 ? 'under' : 'far';
}

export const SQUARES = { at: '🟩', near: '🟨', under: '🟧', far: '🟥', zero: '⬛' };

/* Each row's par for *sheet*: the solver's figures (par.js) where the ruleset has them, else
   the bonus pace for the upper rows. */
function parOf(sheet, row) {
  const known = PAR[sheet.id];
  if (known && known.rows[row.id] !== undefined) return known.rows[row.id];
  return row.face ? row.face * sheet.par : 0;
}

/** The rows of a finished game in the order its turns scored them: *mine*'s `turns` where
    given (the home page's), else read from its move log (`{score: row}` entries); any scored
    row neither names follows in the sheet's order. */
export function turnOrder(sheet, mine) {
  const logged = (mine.moves || []).filter((move) => move.score).map((move) => move.score);
  const named = mine.turns || logged;
  const scored = sheet.rows.filter((row) => mine.scorecard[row.id] !== null && mine.scorecard[row.id] !== undefined);
  const rest = scored.map((row) => row.id).filter((id) => !named.includes(id));
  return [...named.filter((id) => id in mine.scorecard), ...rest];
}

/** How many squares a line of the grid holds for *turns* squares: five (a chat keeps a line
    of five whole on any phone), or four or six where that fills every line. */
export function lineWidth(turns) {
  return [5, 4, 6].find((n) => turns % n === 0) || 5;
}

/** The game as squares, one a turn in the order played, in lines of five (or four or six),
    each graded against its row's par; a star after them for the bonus, a burst for the
    all-of-a-kind row (a Maxi Yatzy, a Yatzy). Gives away no die. */
export function shareGrid(sheet, mine) {
  const rows = Object.fromEntries(sheet.rows.map((row) => [row.id, row]));
  const squares = turnOrder(sheet, mine).map((id) => SQUARES[grade(mine.scorecard[id], parOf(sheet, rows[id]))]);
  const width = lineWidth(squares.length);
  const lines = [];
  for (let at = 0; at < squares.length; at += width) lines.push(squares.slice(at, at + width).join(''));
  const marks = (mine.bonus > 0 ? '⭐' : '') + (mine.scorecard[sheet.allSame] > 0 ? '💥' : '');
  if (marks && lines.length) lines[lines.length - 1] += ` ${marks}`;
  return lines.join('\n');
}

/** What a finished game shares: a head line (the day's puzzle, or the ruleset) with the skill,
    luck and the Expert's score where known, then the percentile and the streak, the grid, the
    link. */
export function shareText({ daily, number, ruleset, total, grid, link, percentile, streak, skill }) {
  const head = [daily ? fmt(S.shareDaily, { number, total }) : fmt(S.shareGame, { ruleset, total })];
  if (skill) head.push(skillWords(skill));
  const standing = [];
  if (percentile !== undefined && percentile !== null) standing.push(fmt(S.percentile, { n: percentile }));
  if (streak) standing.push(fmt(S.streak, { n: streak }));
  return [head.join(' · '), ...(standing.length ? [standing.join(' · ')] : []), grid, link].join('\n');
}
