/* Results and sharing: the end of a game (final score, rank, facts, the cheer) and the share
   block (code, link, text and the grid of squares), also used by today's and a friend's page. */
import { $, $$, fmt, playerName, S } from './page.js';
import { cheerOnce } from './cheer.js';
import { followChallenges } from './challenge.js';
import { askName } from './name.js';
import { api } from './net.js';
import { PAR } from './par.js';

/* A scored row against its par (what optimal play expects it to score): 'zero', 'below',
   'around' (within a fifth of par either way) or 'above'. Without a par, a score is 'around'. */
export function grade(points, par) {
  if (!points) return 'zero';
  if (!par) return 'around';
  if (points >= par * 1.2) return 'above';
  return points >= par * 0.8 ? 'around' : 'below';
}

export const SQUARES = { above: '🟩', around: '🟨', below: '🟧', zero: '⬛' };

/* Each row's par for *sheet*: the solver's figures (par.js) where the ruleset has them, else
   the bonus pace for the upper rows. */
function parOf(sheet, row) {
  const known = PAR[sheet.id];
  if (known && known.rows[row.id] !== undefined) return known.rows[row.id];
  return row.face ? row.face * sheet.par : 0;
}

/* The game as squares, row by row, without a die: each row graded against its par, a star
   for the bonus, a burst for the all-of-a-kind row (a Maxi Yatzy, a Yatzy). */
export function shareGrid(sheet, mine) {
  const mark = (row) => SQUARES[grade(mine.scorecard[row.id], parOf(sheet, row))];
  const upper = sheet.rows.slice(0, sheet.upperRows).map(mark).join('');
  const lower = sheet.rows.slice(sheet.upperRows).map(mark);
  const half = Math.ceil(lower.length / 2);
  const allSame = sheet.rows[sheet.rows.length - 1];
  const lines = [upper + (mine.bonus > 0 ? '⭐' : ''), lower.slice(0, half).join(''),
    lower.slice(half).join('') + (mine.scorecard[allSame.id] > 0 ? '💥' : '')];
  return lines.filter(Boolean).join('\n');
}

export const shareLink = (origin, code) => `${origin}/f/${code}`;

/** What a finished game shares: a head line (the day's puzzle, or the ruleset) with the
    percentile where there is one, the streak, the grid, the link. */
export function shareText({ daily, number, ruleset, total, grid, link, percentile, streak }) {
  let head = daily ? fmt(S.shareDaily, { number, total }) : fmt(S.shareGame, { ruleset, total });
  if (percentile !== undefined && percentile !== null) head += `, ${fmt(S.percentile, { n: percentile })}`;
  const lines = [head];
  if (streak) lines.push(fmt(S.streak, { n: streak }));
  return [...lines, grid, link].join('\n');
}

/* "Copied" shows beside the button that copied: its own line's status, else the block's. */
const statusBeside = (button, box) => $('[data-copy-status]', button.parentElement) || $('[data-copy-status]', box);

/* Fills the share block: the code, the link, and the text (given, or a line for the day's
   puzzle or a friend's challenge). */
export function fillShare(box, { code, total, number, ruleset, daily, text: given }) {
  if (!box || !code || box.dataset.filled) return;
  box.dataset.filled = 'yes';
  const link = shareLink(location.origin, code);
  $('[data-share-code]', box).textContent = code;
  $('[data-share-link]', box).value = link;
  const text = given || (daily
    ? fmt(S.shareText, { number, total, link })
    : fmt(S.shareFriend, { total, ruleset, link }));
  $('[data-share-text]', box).value = text;
  const values = { code, link };
  $$('[data-copy]', box).forEach((button) => button.addEventListener('click', async () => {
    askName(); // a guest's first share asks for a name too: friends see it on the code
    const status = statusBeside(button, box);
    try {
      // The text is read when copied: the day's verdict joins it once it has come.
      await navigator.clipboard.writeText(values[button.dataset.copy] ?? $('[data-share-text]', box).value);
      status.textContent = S.copied;
    } catch (e) {
      status.textContent = S.copyFailed;
    }
  }));
}

/* "Share your result": the phone's share sheet where there is one, else the clipboard. */
function wireShareNow(share) {
  const button = $('#share-now');
  button.disabled = false; // it comes disabled: until now a tap did nothing
  button.onclick = async () => {
    askName(); // it waits on the network: the share sheet below keeps the click's activation
    const status = statusBeside(button, share);
    const text = $('[data-share-text]', share).value;
    try {
      if (navigator.share) { await navigator.share({ text }); status.textContent = S.shared; return; }
      await navigator.clipboard.writeText(text);
      status.textContent = S.copied;
    } catch (e) {
      if (e && e.name === 'AbortError') return; // the player closed the share sheet
      status.textContent = S.copyFailed;
    }
  };
}

/** The home page's share after the day's game: the same grid, Share button and text as the
    result screen (*boot*: the day's date and number, the sheet and the scored card). */
export async function shareDay(share, boot, code) {
  const grid = shareGrid(boot.sheet, boot.card);
  $('#share-grid').textContent = grid;
  const link = shareLink(location.origin, code);
  const words = (extras) => shareText({ daily: true, number: boot.number, total: Number(share.dataset.total), grid, link, ...extras });
  fillShare(share, { code, text: words({}) });
  wireShareNow(share);
  const [day, streak, scores] = await Promise.all([
    myEntry(`daily/${boot.date}`), myEntry('streak'), api('GET', `/daily/${boot.date}/distribution?band=1`),
  ]);
  const percentile = day.me && scores.ok ? percentileOf(day.total, scores.data.bands, day.me.score) : null;
  $('[data-share-text]', share).value = words({ percentile, streak: streak.me ? streak.me.score : 0 });
}

export async function showRank(el, board) {
  if (!el) return;
  const result = await api('GET', `/leaderboards/${board}?around=me&limit=1`);
  if (result.ok && result.data.me) {
    el.textContent = fmt(S.rank, { rank: result.data.me.rank, total: result.data.total });
  }
}

export const bandOf = (bands, total) => bands.find((b) => total >= b.from && total <= b.to);

function drawBars(chart, bands, total) {
  const most = Math.max(1, ...bands.map((b) => b.players));
  bands.forEach((band) => {
    const bar = document.createElement('div');
    bar.className = 'bar';
    bar.style.height = `${(100 * band.players) / most}%`;
    bar.title = `${band.from}–${band.to}: ${band.players}`;
    if (total >= band.from && total <= band.to) {
      bar.classList.add('you');
      bar.title += ` (${S.yourPlace})`;
    }
    chart.appendChild(bar);
  });
}

/* Draws the score distribution: one bar per band, the player's band marked. */
export async function showDistribution(date, total) {
  const chart = $('#chart');
  if (!chart) return;
  const result = await api('GET', `/daily/${date}/distribution?band=25`);
  if (!result.ok) return;
  const bands = result.data.bands || [];
  drawBars(chart, bands, total);
  if (!bands.length) return;
  $('#chart-axis').innerHTML = '';
  [bands[0].from, bands[bands.length - 1].to].forEach((label) => {
    const span = document.createElement('span');
    span.textContent = label;
    $('#chart-axis').appendChild(span);
  });
  const players = fmt(result.data.players === 1 ? S.playersOne : S.playersMany, { n: result.data.players });
  const mine = bandOf(bands, total);
  $('#chart-text').textContent = mine ? `${players}. ${fmt(S.yourBand, { low: mine.from, high: mine.to })}` : players;
  chart.setAttribute('aria-label', `${chart.getAttribute('aria-label')}: ${bands.map((b) => `${b.from}–${b.to}: ${b.players}`).join(', ')}`);
}

async function myEntry(board) {
  const result = await api('GET', `/leaderboards/${board}?around=me&limit=1`);
  return result.ok ? { me: result.data.me, total: result.data.total } : { me: null, total: 0 };
}

function fact(text) {
  const item = document.createElement('li');
  item.textContent = text;
  $('#facts').appendChild(item);
}

/** Win, lose or tie against the friend's score, in words (target games); '' without one. */
export function targetVerdict(target, total) {
  if (!target || !target.finished || !target.byTurn.length) return '';
  const them = target.byTurn[target.byTurn.length - 1];
  const values = { name: playerName(target.name), you: total, them };
  if (total > them) return fmt(S.beat, values);
  if (total < them) return fmt(S.lost, values);
  return fmt(S.tiedWith, values);
}

/** The day's rank in words, honest about ties and a board of one: the players beaten are
    those who scored less (*bands*: the day's scores one point wide; null: rank alone). */
export function dayVerdict(rank, players, bands, score) {
  if (players === 1) return S.firstToday;
  const parts = [fmt(S.rank, { rank, total: players })];
  if (!bands) return parts[0];
  const count = (test) => bands.filter(test).reduce((n, b) => n + b.players, 0);
  const below = count((b) => b.to < score);
  const tied = count((b) => b.from <= score && score <= b.to) - 1;
  if (tied > 0) parts.push(tied === 1 ? S.tiedOne : fmt(S.tiedMany, { n: tied }));
  if (below > 0) parts.push(fmt(S.percentile, { n: percentileOf(players, bands, score) }));
  return parts.join(', ');
}

/** The share of the day's other players who scored less, in whole percent (*bands*: the
    day's scores one point wide); null on a board of one, without bands, or with none beaten. */
export function percentileOf(players, bands, score) {
  if (players < 2 || !bands) return null;
  const below = bands.filter((b) => b.to < score).reduce((n, b) => n + b.players, 0);
  return below > 0 ? Math.round((100 * below) / (players - 1)) : null;
}

/* The day's verdict: rank and percentile, streak and best day (a streak milestone or a best
   day gets a cheer), then the distribution; gives the percentile and streak for the share. */
async function dailyVerdict(state, rankBox, yay) {
  const [day, streak, best, scores] = await Promise.all([
    myEntry(`daily/${state.date}`), myEntry('streak'), myEntry('best-day'),
    api('GET', `/daily/${state.date}/distribution?band=1`),
  ]);
  if (day.me) rankBox.textContent = dayVerdict(day.me.rank, day.total, scores.ok ? scores.data.bands : null, day.me.score);
  if (streak.me) {
    fact(fmt(S.streak, { n: streak.me.score }));
    if ([3, 7, 14, 30, 50, 100, 200, 365].includes(streak.me.score)) yay.push(fmt(S.yayStreak, { n: streak.me.score }));
  }
  if (best.me) {
    fact(fmt(S.bestDay, { n: best.me.score }));
    if (best.me.score === state.total && streak.me && streak.me.score > 1) yay.push(S.yayBest);
  }
  $('#dist').hidden = false;
  showDistribution(state.date, state.total);
  return {
    percentile: day.me && scores.ok ? percentileOf(day.total, scores.data.bands, day.me.score) : null,
    streak: streak.me ? streak.me.score : 0,
  };
}

/** Who won against the computer, with both scores; '' while it is undecided. */
export function computerVerdict(state) {
  const values = { you: state.total, them: state.computer ? state.computer.total : 0 };
  const said = { you: S.youWinBy, computer: S.computerWinsBy, tie: S.tieBoth };
  return state.winner ? fmt(said[state.winner], values) : '';
}

/* The verdict under the final score: the bonus, the rank where the game has one, the winner
   against the computer; nothing to celebrate while the game is held for review. Gives what
   the share text adds (the daily's percentile and streak), {} elsewhere. */
async function drawVerdict(game) {
  const { sheet, state, target, mode } = game;
  const rankBox = $('#final-rank');
  const yay = [];
  const allSame = sheet.rows[sheet.rows.length - 1];
  if (state.bonus > 0) { fact(fmt(S.bonusGot, { n: state.bonus })); yay.push(S.yayBonus); }
  else fact(fmt(S.bonusShort, { n: Math.max(0, sheet.threshold - state.upper) }));
  if (state.scorecard[allSame.id] > 0) yay.push(fmt(S.yayAllSame, { row: allSame.name }));
  const words = targetVerdict(target, state.total);
  if (words) rankBox.textContent = words;
  if (mode.opponent === 'computer') {
    $('#winner').textContent = computerVerdict(state);
  }
  if (state.review) {
    rankBox.textContent = state.review === 'held' ? S.underReview : S.reviewRemoved;
    return {};
  }
  let extras = {};
  if (mode.board === 'daily') extras = await dailyVerdict(state, rankBox, yay);
  else if (state.rank && !words) rankBox.textContent = fmt(S.rankOnly, { rank: state.rank });
  else if (mode.board === 'friend' && state.code && !words) showRank(rankBox, `friend/${state.code.replace('-', '')}`);
  cheerOnce(game.id, yay);
  return extras;
}

export function drawResults(game) {
  const { sheet, state } = game;
  $('#final-total').textContent = state.total;
  let verdict = Promise.resolve({});
  if (!$('#results').dataset.drawn) {
    $('#results').dataset.drawn = 'yes';
    verdict = drawVerdict(game);
    // The game that made a code hears who played it, live (a friend's game on someone
    // else's code is not the player's: the first answer says so and the watch stops).
    if (state.share_code && $('#heard-back')) followChallenges($('#heard-back'), null, {}, state.share_code);
  }
  const share = $('#share');
  if (!state.share_code) { share.hidden = true; return; }
  const grid = shareGrid(sheet, state);
  $('#share-grid').textContent = grid;
  const words = (extras) => shareText({
    daily: game.mode.seed === 'daily', number: state.number, ruleset: share.dataset.ruleset,
    total: state.total, grid, link: shareLink(location.origin, state.share_code), ...extras,
  });
  fillShare(share, { code: state.share_code, text: words({}) });
  wireShareNow(share);
  // The percentile and streak join the text once the day's verdict has come.
  verdict.then((extras) => { if (extras.percentile || extras.streak) $('[data-share-text]', share).value = words(extras); });
}
