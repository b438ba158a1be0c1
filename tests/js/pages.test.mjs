import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { FIXTURE, module } from './helpers.mjs';

const { loadStrings } = await module('page.js');
const { dashed, timeLeft } = await module('pages.js');
const { hintText } = await module('play.js');

beforeEach(() => loadStrings(FIXTURE.strings));

test('the countdown pads minutes and seconds', () => {
  assert.equal(timeLeft(3 * 3600 + 5 * 60 + 7), '3h 05m 07s');
  assert.equal(timeLeft(59), '0h 00m 59s');
});

test('a code shows in two halves', () => {
  assert.equal(dashed('ABCDEFGH'), 'ABCD-EFGH');
  assert.equal(dashed(''), '');
});

test('a hint says what to do, what it expects and what the move would lose', () => {
  const names = { chance: 'Chance' };
  assert.equal(hintText({ score: 'chance', value: 231.04, loss: 0 }, names), 'Score Chance: expects 231.0');
  assert.equal(hintText({ score: null, keep: [6, 6], value: 240.5, loss: 1.26 }, names), 'Keep 6 6: expects 240.5 (1.3 less)');
  assert.equal(hintText({ score: null, keep: [], value: 200, loss: 0 }, names), 'Re-roll every die: expects 200.0');
});
