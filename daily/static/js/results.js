/* Results and sharing: the end of a game (final score, skill and luck, the verdict, facts, the
   cheer) and the share block (code, link, text and the grid of squares), also used by today's
   and a friend's page. */
import { $, $$, fmt, playerName, S, sentence } from './page.js';
import { celebrate } from './cheer.js';
import { followChallenges } from './challenge.js';
import { askName } from './name.js';
import { api, readAgain } from './net.js';
import { nameTheDay, showDistribution } from './scores.js';
import { shareGrid, shareText, signed } from './share.js';

export const shareLink = (origin, code) => `${origin}/f/${code}`;

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
    result screen (*boot*: the day's date and number, the sheet, the scored card and the
    kept skill). Gives the day's one-point bands, for the distribution. */
export async function shareDay(share, boot, code, asked = Promise.resolve(boot.skill)) {
  const grid = shareGrid(boot.sheet, boot.card);
  $('#share-grid').textContent = grid;
  const link = shareLink(location.origin, code);
  const words = (extras) => shareText({ daily: true, number: boot.number, total: Number(share.dataset.total), grid, link, skill: boot.skill, ...extras });
  const standing = { percentile: boot.standing ? boot.standing.percentile : null, streak: boot.records ? boot.records.streak : 0 };
  fillShare(share, { code, text: words(standing) });
  wireShareNow(share);
  const [scores, skill] = await Promise.all([api('GET', `/daily/${boot.date}/distribution?band=1`), asked]);
  $('[data-share-text]', share).value = words({ ...standing, skill });
  return scores.ok ? scores.data.bands : null;
}

/** A finished game's skill and luck, asked of its analysis (the first ask computes and keeps
    it); null where it has none, or its table is not ready. */
export async function askSkill(gameId) {
  const result = await readAgain(`/games/${gameId}/analysis`); // a second tab, a quick reload
  return result.ok ? result.data.skill : null;
}

export async function showRank(el, board) {
  if (!el) return;
  const result = await api('GET', `/leaderboards/${board}?around=me&limit=1`);
  if (result.ok && result.data.me && result.data.me.rank) {
    el.textContent = fmt(S.rank, { rank: result.data.me.rank, total: result.data.ranked });
  }
}

// The day's scores: scores.js (a module of its own), exported here as before.
export { bandOf, showDistribution, spanBands } from './scores.js';

function fact(text, box = $('#facts')) {
  const item = document.createElement('li');
  item.textContent = text;
  box.appendChild(item);
  return item;
}

/** Win, lose or tie against the friend whose code the game was played on, in words: from the
    page's target (their running totals) or the game's (their sheet); '' before they finished. */
export function targetVerdict(target, total) {
  if (!target || !target.finished) return '';
  const them = target.byTurn ? target.byTurn[target.byTurn.length - 1] : target.total;
  if (them === undefined) return '';
  const values = { name: playerName(target.name), you: total, them };
  const key = total > them ? 'beat' : total < them ? 'lost' : 'tiedWith';
  return sentence(fmt(S[key], values));
}

/** The day's standing in words (*standing*: the answer's, decided and rounded on the server,
    docs/rankings.md): a ranked player's rank among the ranked, a new player's place among
    everyone who played and the days before they rank; the ties and the percentile. */
export function dayVerdict(standing) {
  const parts = [];
  if (standing.field === 1) parts.push(S.firstToday);
  else if (standing.new) parts.push(fmt(S.newcomerPlace, { place: standing.place, total: standing.field }));
  else parts.push(fmt(standing.ranked < standing.field ? S.rankRanked : S.rank, { rank: standing.rank, total: standing.ranked }));
  if (standing.tied > 0) parts.push(standing.tied === 1 ? S.tiedOne : fmt(S.tiedMany, { n: standing.tied }));
  if (standing.percentile !== null) parts.push(fmt(S.percentile, { n: standing.percentile }));
  if (standing.new && Number.isInteger(standing.days_left)) parts.push(newcomerDays(standing.days_left));
  return parts.join(S.clauseSep || ', ');
}

/** How long a new player waits to rank: from their next daily, or after *n* more days. */
export function newcomerDays(n) {
  if (n === 0) return S.newcomerNext;
  return n === 1 ? S.newcomerDay : fmt(S.newcomerDays, { n });
}

/** What a finished game earned, in words (*cheers*: the finishing move's answer's). */
export function cheerWords(cheers, sheet) {
  const row = sheet.rows.find((r) => r.id === sheet.allSame);
  const said = {
    bonus: () => S.yayBonus,
    all_same: () => fmt(S.yayAllSame, { row: row ? row.name : '' }),
    best: () => S.yayBest,
    streak: (c) => fmt(S.yayStreak, { n: c.value }),
  };
  return (cheers || []).filter((c) => said[c.kind]).map((c) => said[c.kind](c));
}

/** Where a practice game would have ranked on its day (*bands*: that day's scores one point
    wide), with the day's date: "Practice, 5 December 2026: you would have ranked 2 of 4". */
export function practiceVerdict(day, bands, score) {
  const count = (test) => (bands || []).filter(test).reduce((n, b) => n + b.players, 0);
  const players = count(() => true);
  const rank = count((b) => b.from > score) + 1;
  return fmt(S.practiceRank, { day, rank, total: players + 1 });
}

/** A line a league gives the result: the player's rank among the members who played, or how
    many played so far. */
export function leagueWords(place) {
  if (place.rank) return fmt(S.leagueRank, { name: place.name, rank: place.rank, total: place.played });
  return fmt(S.leaguePlayed, { name: place.name, played: place.played, total: place.members });
}

/* The player's place in each league, under the verdict, each a link to its league. */
function showLeagues(places) {
  const box = $('#leagues-today');
  if (!box || !places || !places.length) return;
  box.replaceChildren(...places.map((place) => {
    const item = document.createElement('li');
    const link = document.createElement('a');
    link.href = `/leagues/${place.league}`;
    link.textContent = leagueWords(place);
    item.appendChild(link);
    return item;
  }));
  box.hidden = false;
}

/* The day's verdict, all from the answer (the ledger decided it; nothing is derived here):
   the standing on the day's board, the player's streak and best day when this daily counted,
   then the distribution; gives the percentile and streak for the share. *box*: where the
   standing goes (the head-to-head may have the verdict's own line). */
function dailyVerdict(state, box) {
  const { standing, records } = state;
  if (standing) box.textContent = dayVerdict(standing);
  if (records) {
    fact(fmt(S.streak, { n: records.streak }));
    if (records.best !== null) fact(fmt(S.bestDay, { n: records.best }));
  }
  showDistribution(state.date, state.total); // it shows the box only when there is a chart
  return { percentile: standing ? standing.percentile : null, streak: records ? records.streak : 0 };
}

/* A practice replay of a past day: labelled with its date, and where it would have ranked
   then; no streak or best day (it counts on neither). */
async function practiceResult(game, box) {
  const { state } = game;
  const scores = await api('GET', `/daily/${state.date}/distribution?band=1`);
  const bands = scores.ok ? scores.data.bands : [];
  box.textContent = practiceVerdict(game.dayName || state.date, bands, state.total);
  showDistribution(state.date, state.total, bands); // too few played that day: no chart
  return {};
}

/** Who won against the computer, with both scores; '' while it is undecided. */
export function computerVerdict(state) {
  const values = { you: state.total, them: state.computer ? state.computer.total : 0 };
  const said = { you: S.youWinBy, computer: S.computerWinsBy, tie: S.tieBoth };
  return state.winner ? fmt(said[state.winner], values) : '';
}

/** Fills the skill line (*skill*: the answer's, or null: the line stays hidden). */
export function showSkill(skill) {
  const line = $('#skill-line');
  if (!line || !skill) return;
  $('#skill').textContent = fmt(S.percentValue, { n: skill.skill });
  $('#luck').textContent = signed(skill.luck);
  const expert = skill.expert !== null && skill.expert !== undefined;
  if (expert) $('#expert').textContent = skill.expert;
  $('#expert-chip').hidden = !expert;
  const meaning = $('#expert-meaning'); // the legend says what the Expert is where it is shown
  if (meaning) meaning.hidden = !expert;
  line.hidden = false;
}

/* The game's skill and luck (every mode has them): kept with the game once asked for, else
   asked for now (the first ask computes them); null while its table is not ready. */
async function skillOf(game) {
  if (game.state.skill) return game.state.skill;
  return game.skillReady ? askSkill(game.id) : null;
}

/* The verdict under the final score: the bonus, the head-to-head on a friend's code, the rank
   where the game has one, the winner against the computer; nothing to celebrate while the
   game is held for review. Gives what the share text adds (the daily's percentile and
   streak), {} elsewhere. */
async function drawVerdict(game) {
  const { sheet, state, mode } = game;
  const rankBox = $('#final-rank');
  if (mode.board === 'daily') nameTheDay(); // an old game's: "that day's players"
  if (state.bonus > 0) fact(fmt(S.bonusGot, { n: state.bonus }));
  else fact(fmt(S.bonusShort, { n: Math.max(0, sheet.threshold - state.upper) }));
  // A friend's code (a daily's share link too): the head-to-head leads, the day's rank after.
  const words = targetVerdict(game.target || state.target, state.total);
  if (words) rankBox.textContent = words;
  if (mode.opponent === 'computer') $('#winner').textContent = computerVerdict(state);
  if (state.review) {
    rankBox.textContent = state.review === 'held' ? S.underReview : S.reviewRemoved;
    return {};
  }
  showLeagues(state.leagues);
  let extras = {};
  if (mode.board === 'daily' && state.practice) extras = await practiceResult(game, rankBox);
  else if (mode.board === 'daily') extras = dailyVerdict(state, words ? $('#day-rank') : rankBox);
  else if (state.rank && !words) rankBox.textContent = fmt(S.rankOnly, { rank: state.rank });
  else if (mode.board === 'friend' && state.code && !words) showRank(rankBox, `friend/${state.code.replace('-', '')}`);
  // Only the finishing move's answer has cheers: a game opened again celebrates nothing.
  celebrate(cheerWords(state.cheers, sheet));
  return extras;
}

export function drawResults(game) {
  const { sheet, state } = game;
  $('#final-total').textContent = state.total;
  let verdict = Promise.resolve({});
  let skill = Promise.resolve(null);
  if (!$('#results').dataset.drawn) {
    $('#results').dataset.drawn = 'yes';
    verdict = drawVerdict(game);
    skill = skillOf(game);
    skill.then(showSkill);
    // The game that made a code hears who played it, live (a friend's game on someone
    // else's code is not the player's: the first answer says so and the watch stops).
    if (state.share_code && $('#heard-back')) followChallenges($('#heard-back'), null, {}, state.share_code);
    // A daily's result offers the streak reminder (templates/_reminder.html: there only).
    if ($('#reminder')) import('./reminders.js').then((reminders) => reminders.offer($('#reminder')));
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
  // The skill, percentile and streak join the text as each comes.
  const known = { skill: null };
  const refresh = (found) => { Object.assign(known, found); $('[data-share-text]', share).value = words(known); };
  verdict.then(refresh);
  skill.then((found) => refresh({ skill: found }));
}
