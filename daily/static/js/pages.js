/* The pages around the game, loaded by main.js only where it runs (the game screen does not
   fetch it): today's page (countdown, share, rank, distribution), a friend's code page, and
   the solo and computer pages' start forms. */
import { $, $$, S, armForm, fmt, playerName } from './page.js';
import { start } from './net.js';
import { askSkill, dayVerdict, fillShare, shareDay, showDistribution, showSkill } from './results.js';
import { followChallenges, verdicts, watchBoard } from './challenge.js';

/** The time to the next puzzle as h:mm:ss, from the seconds left. */
export function timeLeft(left) {
  const h = Math.floor(left / 3600);
  const m = Math.floor((left % 3600) / 60);
  return fmt(S.timeLeft, { h, m: String(m).padStart(2, '0'), s: String(left % 60).padStart(2, '0') });
}

function countdown(el, seconds) {
  const began = performance.now();
  const tick = () => {
    const left = Math.max(0, Math.round(seconds - (performance.now() - began) / 1000));
    if (left === 0) { el.textContent = S.newPuzzle; return; }
    el.textContent = timeLeft(left);
    setTimeout(tick, 1000 - ((performance.now() - began) % 1000));
  };
  tick();
}

/** A code as shown, in two halves: ABCD-EFGH. */
export const dashed = (code) => (code ? `${code.slice(0, 4)}-${code.slice(4)}` : '');

export function todayPage(boot) {
  countdown($('#countdown'), boot.secondsLeft);
  const challenge = $('#challenge');
  if (challenge) {
    armForm(challenge, (event) => {
      event.preventDefault();
      start({ mode: 'friend', ruleset: challenge.elements.ruleset.value });
    });
  }
  // Who played the codes the player made: kept live while the page is open.
  if (boot.challenges) followChallenges($('#heard-back'), boot.challenges, boot.rulesetNames);
  if (!boot.finished) return;
  const share = $('#share');
  const total = Number(share.dataset.total);
  if (boot.standing) $('#my-rank').textContent = dayVerdict(boot.standing);
  // Skill and luck come with the page once kept; else the first ask computes them.
  let skill = Promise.resolve(boot.skill || null);
  if (!boot.skill && boot.skillReady) skill = askSkill(boot.game);
  if (!boot.skill) skill.then(showSkill);
  if (boot.card) {
    // The turns' order comes with the grid's box (templates/_share_now.html): the same grid.
    const turns = ($('#share-grid').dataset.turns || '').split(' ').filter(Boolean);
    const card = { ...boot.card, turns };
    shareDay(share, { ...boot, card }, dashed(share.dataset.code), skill).then((bands) => showDistribution(boot.date, total, bands));
    return;
  }
  fillShare(share, { code: dashed(share.dataset.code), total, number: share.dataset.number, daily: true });
  showDistribution(boot.date, total);
}

function boardRow(entry, me) {
  const tr = document.createElement('tr');
  if (me && me.player_id === entry.player_id) tr.className = 'me';
  [entry.rank, playerName(entry.name), entry.score].forEach((value, i) => {
    const td = document.createElement(i === 1 ? 'th' : 'td');
    // The leaderboards' look (templates/leaderboard.html): rank, name, score.
    if (i === 1) { td.scope = 'row'; td.className = 'name'; } else td.className = i === 0 ? 'rank' : 'score';
    td.textContent = value;
    tr.appendChild(td);
  });
  return tr;
}

/* A friend's code: the share block of the player's own game, and the code's board. */
export async function friendPage(boot) {
  const share = $('#share');
  if (share) {
    fillShare(share, {
      code: dashed(share.dataset.code), total: share.dataset.total, ruleset: share.dataset.ruleset, daily: false,
    });
  }
  // The board stays live while the page is open: a friend's result shows without a reload.
  watchBoard(boot.code, (board) => {
    showCodeBoard(board);
    if (boot.creatorTotal !== undefined) showVerdicts(board, boot);
  });
}

function showCodeBoard(board) {
  if (!board.entries.length) return;
  const table = $('#code-board');
  $('tbody', table).replaceChildren(...board.entries.map((entry) => boardRow(entry, board.me)));
  table.hidden = false;
  $('#code-board-empty').hidden = true;
}

function showVerdicts(board, boot) {
  const found = verdicts(board.entries, boot.creator, boot.creatorTotal);
  if (!found.length) return;
  $('#challengers').replaceChildren(...found.map(({ key, text }) => {
    const li = document.createElement('li');
    li.className = `verdict ${key}`;
    li.textContent = text;
    return li;
  }));
  $('#challengers-card').hidden = false;
}

/* The solo and computer pages: a ruleset and its edition options (and the computer's level). */
export function soloPage() {
  $$('form.solo').forEach((form) => armForm(form, (event) => {
    event.preventDefault();
    const options = {};
    $$('select:not([data-level])', form).forEach((select) => { options[select.name] = JSON.parse(select.value); });
    const spec = { mode: form.dataset.mode || 'solo', ruleset: form.dataset.ruleset, options };
    const level = $('select[data-level]', form);
    if (level) spec.level = level.value;
    start(spec);
  }));
}

/* A strategy table being built (the /computer page): reload when it should be ready, so
   the note goes and the exact computer plays; not once the player has started choosing. */
export function waitForTables() {
  const waits = $$('[data-wait]');
  if (!waits.length) return;
  const seconds = Math.min(...waits.map((note) => Number(note.dataset.refresh) || 30));
  let touched = false;
  ['change', 'input', 'submit'].forEach((type) => document.addEventListener(type, () => { touched = true; }, true));
  setTimeout(() => { if (!touched) window.location.reload(); }, seconds * 1000);
}
