import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { FIXTURE, module } from './helpers.mjs';

const { loadStrings } = await module('page.js');
const { shareLink } = await module('results.js');
const { SQUARES, grade, lineWidth, shareGrid, shareText, turnOrder } = await module('share.js');
const { PAR } = await module('par.js');
const MAXI = FIXTURE.sheets.maxi;
const YATZY = FIXTURE.sheets.yatzy;

beforeEach(() => loadStrings(FIXTURE.strings));

// The grid read back: each square's grade in order, and the marks after them.
const GRADES = Object.fromEntries(Object.entries(SQUARES).map(([name, square]) => [square, name]));
function readGrid(grid) {
  const lines = grid.split('\n');
  const marks = lines[lines.length - 1].includes(' ') ? lines[lines.length - 1].split(' ')[1] : '';
  const squares = lines.map((line) => [...line.split(' ')[0]]);
  return { widths: squares.map((line) => line.length), grades: squares.flat().map((s) => GRADES[s]), marks };
}

// A finished game of *sheet*: its rows scored in *order* with *points* (row -> points), the
// move log as the server writes it (a roll or two before each score).
function game(sheet, order, points, bonus = 0) {
  const moves = order.flatMap((row, i) => [...(i % 2 ? [{ hold: [0, 1] }] : []), { hold: [] }, { score: row }]);
  return { scorecard: Object.fromEntries(sheet.rows.map((r) => [r.id, points[r.id]])), bonus, moves };
}

// Points for every row at a given share of its par (rounded up), the all-of-a-kind row at zero.
const atShare = (sheet, share) => Object.fromEntries(sheet.rows.map((r) => [r.id, r.id === sheet.allSame ? 0 : Math.ceil(PAR[sheet.id].rows[r.id] * share)]));

test('a turn is graded against its row\'s par: at, near, under, far, zero', () => {
  assert.equal(grade(0, 10), 'zero');
  assert.equal(grade(null, 10), 'zero');
  assert.equal(grade(10, 10), 'at');
  assert.equal(grade(25, 10), 'at');
  assert.equal(grade(7.5, 10), 'near');
  assert.equal(grade(7.4, 10), 'under');
  assert.equal(grade(5, 10), 'under');
  assert.equal(grade(4.9, 10), 'far');
  assert.equal(grade(5, 0), 'near'); // no par known: a score is a score
});

test('par.js holds a par for every row of the sheet, from the solver\'s games', () => {
  assert.deepEqual(Object.keys(PAR.yatzy.rows), YATZY.rows.map((r) => r.id));
  assert.deepEqual(Object.keys(PAR.maxi.rows), MAXI.rows.map((r) => r.id));
  assert.ok(PAR.yatzy.games >= 1000);
  assert.ok(PAR.yatzy.rows.sixes > 15 && PAR.yatzy.rows.sixes < 24, PAR.yatzy.rows.sixes);
});

test('the grid reads back into the turns it stands for, in the order played', () => {
  // Maxi: 20 turns in 4 lines of 5; the rows scored in a shuffled order, at varied shares.
  const order = MAXI.rows.map((r) => r.id).reverse();
  [order[3], order[11]] = [order[11], order[3]];
  const shares = [1.6, 1, 0.8, 0.6, 0.3, 0];
  const points = Object.fromEntries(order.map((id, i) => [id, Math.round(PAR.maxi.rows[id] * shares[i % shares.length])]));
  const mine = game(MAXI, order, points, 100);
  const read = readGrid(shareGrid(MAXI, mine));
  assert.deepEqual(read.widths, [5, 5, 5, 5]);
  assert.equal(read.grades.length, MAXI.rows.length); // one square a turn
  assert.deepEqual(read.grades, order.map((id) => grade(points[id], PAR.maxi.rows[id])));
  assert.deepEqual(new Set(read.grades), new Set(['at', 'near', 'under', 'far', 'zero']));
  assert.equal(read.marks, points.maxi_yatzy > 0 ? '⭐💥' : '⭐'); // the bonus, a Maxi Yatzy
  // Yatzy: 15 turns in 3 lines of 5, a Yatzy's burst after the star.
  const yatzyOrder = YATZY.rows.map((r) => r.id);
  const yatzyPoints = { ...atShare(YATZY, 1), yatzy: 50 };
  const yatzy = readGrid(shareGrid(YATZY, game(YATZY, yatzyOrder, yatzyPoints, 50)));
  assert.deepEqual(yatzy.widths, [5, 5, 5]);
  assert.deepEqual(yatzy.grades, yatzyOrder.map(() => 'at'));
  assert.equal(yatzy.marks, '⭐💥');
});

test('the same card played in another order shares another grid', () => {
  const order = YATZY.rows.map((r) => r.id);
  const points = { ...atShare(YATZY, 0.4), ones: 0, sixes: 30, chance: 30 };
  const forward = shareGrid(YATZY, game(YATZY, order, points));
  const backward = shareGrid(YATZY, game(YATZY, [...order].reverse(), points));
  assert.notEqual(forward, backward);
  assert.deepEqual(readGrid(backward).grades, [...readGrid(forward).grades].reverse());
});

test('the home page\'s turns and the result\'s move log make the same grid', () => {
  const order = [...MAXI.rows.map((r) => r.id)].sort();
  const mine = game(MAXI, order, atShare(MAXI, 0.8));
  assert.deepEqual(turnOrder(MAXI, mine), order);
  const home = { scorecard: mine.scorecard, bonus: 0, turns: order };
  assert.equal(shareGrid(MAXI, home), shareGrid(MAXI, mine));
  // Without either (an old page), the scored rows in the sheet's order: still one a turn.
  assert.deepEqual(turnOrder(MAXI, { scorecard: mine.scorecard }), MAXI.rows.map((r) => r.id));
});

test('the grid gives no die away: squares, marks, spaces and line breaks only', () => {
  const grid = shareGrid(MAXI, game(MAXI, MAXI.rows.map((r) => r.id), atShare(MAXI, 1.1), 100));
  assert.match(grid, /^[🟩🟨🟧🟥⬛⭐💥 \n]+$/u);
  assert.doesNotMatch(grid, /\d/);
});

test('a line holds five squares, or four or six where that fills every line', () => {
  assert.deepEqual([20, 15, 12, 13, 18].map(lineWidth), [5, 5, 4, 5, 6]);
});

test('the shared text: the head line, the grid, the link', () => {
  const link = shareLink('https://daily.example', 'ABCD-EFGH');
  assert.equal(link, 'https://daily.example/f/ABCD-EFGH');
  const grid = '🟩\n🟨';
  assert.equal(shareText({ daily: true, number: 12, total: 301, grid, link }),
    `Daily Maxi Yatzy #12: 301\n${grid}\n${link}`);
  assert.equal(shareText({ daily: false, ruleset: 'Yatzy', total: 240, grid, link }), `Yatzy: 240\n${grid}\n${link}`);
  // The percentile and the streak on a line under the head line; neither where unknown.
  assert.equal(shareText({ daily: true, number: 12, total: 301, grid, link, percentile: 83, streak: 5 }),
    `Daily Maxi Yatzy #12: 301\nbetter than 83% of today's players · Days in a row: 5\n${grid}\n${link}`);
  assert.equal(shareText({ daily: true, number: 12, total: 301, grid, link, percentile: null, streak: 0 }),
    `Daily Maxi Yatzy #12: 301\n${grid}\n${link}`);
});
