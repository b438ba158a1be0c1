import assert from 'node:assert/strict';
import { test } from 'node:test';
import { module } from './helpers.mjs';

const { scoredMoment } = await module('feel.js');

test('a scored row cheers the bonus and a Yatzy the moment they land', () => {
  const before = { bonus: 0, scorecard: { sixes: null, yatzy: null } };
  assert.deepEqual(scoredMoment('sixes', before, { bonus: 50, scorecard: { sixes: 24 } }),
    { points: 24, bonus: true, yatzy: false, cheer: true });
  assert.deepEqual(scoredMoment('yatzy', { bonus: 50 }, { bonus: 50, scorecard: { yatzy: 50 } }),
    { points: 50, bonus: false, yatzy: true, cheer: true });
  assert.deepEqual(scoredMoment('maxi_yatzy', before, { bonus: 0, scorecard: { maxi_yatzy: 0 } }),
    { points: 0, bonus: false, yatzy: false, cheer: false });
  assert.equal(scoredMoment('chance', before, { bonus: 0, scorecard: { chance: 17 } }).cheer, false);
});
