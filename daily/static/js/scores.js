/* The day's scores on a daily's result and on the home page (issue 40.4): drawn only when
   the day has enough players to mean something, else the player's own daily scores (where
   the page gives them); an old game's result names its day. */
import { $, fmt, S } from './page.js';
import { api } from './net.js';

/** The fewest players whose scores make a chart of the day. Below it each bar is one
    player's score: one player is one solid block across the chart (issue 40's report), two to
    four are a few lone blocks that tell each friend's score and nothing of a spread; the
    verdict's rank line already says all of it. Five is where the percentile first moves in
    steps of 20 % or less, so the chart starts to say something the rank does not. */
export const ENOUGH_PLAYERS = 5;

export const bandOf = (bands, total) => bands.find((b) => total >= b.from && total <= b.to);

/** The day's scores (*bands*: one point wide, as the API sends them) in about *most* bars
    spanning the lowest score to the highest, not 0 to the game's top; [] with no score. */
export function spanBands(bands, most = 16) {
  const scored = bands.filter((b) => b.players > 0);
  if (!scored.length) return [];
  const low = scored[0].from;
  const high = scored[scored.length - 1].to;
  const width = Math.max(1, Math.ceil((high - low + 1) / most));
  const found = [];
  for (let from = low; from <= high; from += width) {
    const to = Math.min(from + width - 1, high);
    const players = scored.filter((b) => b.from >= from && b.to <= to).reduce((n, b) => n + b.players, 0);
    found.push({ from, to, players });
  }
  return found;
}

/** A player's own daily scores (*totals*, this game's *total* among them) as one-point
    bands, for :func:`spanBands`. */
export function ownBands(totals, total) {
  const counts = new Map();
  [...totals, total].forEach((t) => counts.set(t, (counts.get(t) || 0) + 1));
  return [...counts].sort((a, b) => a[0] - b[0]).map(([t, n]) => ({ from: t, to: t, players: n }));
}

/** What the chart shows for a day of *count* players: the day's scores when they are enough,
    else the player's own (*history*: their other days' totals) where they have any, else
    nothing. */
export const chartKind = (count, history) => {
  if (count >= ENOUGH_PLAYERS) return 'day';
  return history && history.length ? 'own' : 'none';
};

function drawBars(chart, bands, total) {
  const most = Math.max(1, ...bands.map((b) => b.players));
  chart.replaceChildren();
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

function drawAxis(chart, bands) {
  $('#chart-axis').replaceChildren(...[bands[0].from, bands[bands.length - 1].to].map((label) => {
    const span = document.createElement('span');
    span.textContent = label;
    return span;
  }));
  const label = chart.dataset.label || chart.getAttribute('aria-label');
  chart.dataset.label = label;
  chart.setAttribute('aria-label', `${label}: ${bands.map((b) => `${b.from}–${b.to}: ${b.players}`).join(', ')}`);
}

/* The player's own daily scores, this game's marked, where the day has too few players:
   the box's caption says so (its data-own), the count of the day's players under it. */
function drawOwn(box, chart, history, total, players) {
  const bands = spanBands(ownBands(history, total), 12);
  drawBars(chart, bands, total);
  drawAxis(chart, bands);
  $('.chart-title', box).textContent = box.dataset.own;
  chart.dataset.label = box.dataset.own;
  chart.setAttribute('aria-label', box.dataset.own);
  $('#chart-text').textContent = players;
}

/* Draws the day's score distribution from the lowest score to the highest, the player's
   band marked (*ones*: the day's one-point bands if already fetched), when the day has
   enough players; else the player's own scores (the box's data-history), else nothing. */
export async function showDistribution(date, total, ones = null) {
  const chart = $('#chart');
  if (!chart) return;
  const box = chart.closest('[data-scores]');
  let fine = ones;
  if (!fine) {
    const result = await api('GET', `/daily/${date}/distribution?band=1`);
    if (!result.ok) return;
    fine = result.data.bands || [];
  }
  const count = fine.reduce((n, b) => n + b.players, 0);
  const players = fmt(count === 1 ? S.playersOne : S.playersMany, { n: count });
  const history = box && box.dataset.history ? JSON.parse(box.dataset.history) : [];
  const kind = chartKind(count, history);
  if (box) { box.hidden = kind === 'none'; box.dataset.drawn = kind; }
  if (kind === 'own') { drawOwn(box, chart, history, total, players); return; }
  if (kind === 'none') return;
  const bands = spanBands(fine);
  drawBars(chart, bands, total);
  drawAxis(chart, bands);
  const mine = bandOf(bands, total);
  $('#chart-text').textContent = mine ? `${players}. ${fmt(S.yourBand, { low: mine.from, high: mine.to })}` : players;
}

/** An old game's page names its day: the verdict's "today" words become "that day" where
    the box gives them (its data-day-strings: the percentile, a newcomer's place, the first
    to finish), for the verdict and the shared text alike. */
export function nameTheDay() {
  const box = $('[data-scores]');
  if (box && box.dataset.dayStrings) Object.assign(S, JSON.parse(box.dataset.dayStrings));
}
