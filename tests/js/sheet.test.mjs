import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { FIXTURE, module, scorecard } from './helpers.mjs';

const { loadStrings } = await module('page.js');
const { cells, columns, mover, openRows, paceText, sums } = await module('sheet.js');
const YATZY = FIXTURE.sheets.yatzy;
const MAXI = FIXTURE.sheets.maxi;

beforeEach(() => loadStrings(FIXTURE.strings));

const player = (sheet, scored, extra = {}) => ({
  scorecard: scorecard(sheet, scored), upper: 0, bonus: 0, extra_bonus: 0, total: 0, ...extra,
});

test('a scored row shows its points, a zero marked; an open row a pick for the mover only', () => {
  const mine = player(YATZY, { ones: 3, twos: 0 });
  const state = { finished: false, potential: { threes: 9, chance: 17 } };
  const shown = cells(YATZY, state, mine, true);
  assert.equal(shown.length, YATZY.rows.length);
  assert.deepEqual(shown[0], { row: YATZY.rows[0], text: '3', zero: false, pick: false });
  assert.deepEqual(shown[1], { row: YATZY.rows[1], text: '0', zero: true, pick: false });
  assert.deepEqual(shown.filter((c) => c.pick).map((c) => c.row.id), ['threes', 'chance']);
  assert.deepEqual(cells(YATZY, state, mine, false).filter((c) => c.pick), []);
  assert.deepEqual(cells(YATZY, { ...state, finished: true }, mine, true).filter((c) => c.pick), []);
});

test('the sums show as numbers, a missing extra bonus as 0', () => {
  assert.deepEqual(sums({ upper: 63, bonus: 50, total: 240 }), { upper: '63', bonus: '50', extra: '0', total: '240' });
  assert.deepEqual(sums({ upper: 0, bonus: 0, extra_bonus: 100, total: 100 }), { upper: '0', bonus: '0', extra: '100', total: '100' });
});

test('the pace counts the upper rows scored against par (3 of a face in Yatzy, 4 in Maxi)', () => {
  assert.deepEqual(paceText(YATZY, player(YATZY, {}), false), ['', '']);
  assert.deepEqual(paceText(YATZY, player(YATZY, { sixes: 24 }), false), ['+6 ahead of pace', 'pace-ahead']);
  assert.deepEqual(paceText(YATZY, player(YATZY, { ones: 1, twos: 4 }), false), ['4 behind pace', 'pace-behind']);
  assert.deepEqual(paceText(YATZY, player(YATZY, { threes: 9 }), false), ['on pace', '']);
  assert.deepEqual(paceText(MAXI, player(MAXI, { sixes: 24 }), false), ['on pace', '']);
  assert.deepEqual(paceText(YATZY, player(YATZY, { ones: 1 }, { bonus: 50 }), false), ['bonus made', 'pace-ahead']);
  assert.deepEqual(paceText(YATZY, player(YATZY, { sixes: 30 }), true), ['', '']); // a verdict is not a hint
  // A full upper section has no pace left to keep: its bonus row tells, made or not.
  const full = { ones: 1, twos: 2, threes: 3, fours: 4, fives: 5, sixes: 6 };
  assert.deepEqual(paceText(YATZY, player(YATZY, full), false), ['', '']);
  assert.deepEqual(paceText(YATZY, player(YATZY, { ...full, sixes: 30 }, { bonus: 50 }), false), ['', '']);
});

test('the columns: yours, yours and the computer\'s, or one per party player', () => {
  const solo = { potential: {}, finished: false };
  assert.deepEqual(columns(solo), [solo]);
  const computer = { name: 'Computer' };
  assert.deepEqual(columns({ ...solo, computer }).slice(1), [computer]);
  const party = { players: [{ name: 'Ada' }, { name: 'Bo' }], current: 1, potential: {} };
  assert.deepEqual(columns(party), party.players);
  assert.equal(mover(party), 1);
  assert.equal(mover(solo), 0);
});

test('the open rows follow the sheet order and close when the game ends', () => {
  const state = { finished: false, potential: { yatzy: 0, ones: 2 } };
  assert.deepEqual(openRows(YATZY, state).map((r) => r.id), ['ones', 'yatzy']);
  assert.deepEqual(openRows(YATZY, { ...state, finished: true }), []);
  assert.deepEqual(openRows(YATZY, null), []);
});
