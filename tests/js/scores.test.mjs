import assert from 'node:assert/strict';
import { test } from 'node:test';
import { module } from './helpers.mjs';

const { ENOUGH_PLAYERS, chartKind, ownBands, spanBands } = await module('scores.js');

test('the day is charted from five players, else the player\'s own scores, else nothing', () => {
  assert.equal(ENOUGH_PLAYERS, 5);
  assert.equal(chartKind(5, []), 'day');
  assert.equal(chartKind(40, [250]), 'day');
  assert.equal(chartKind(4, [250, 301]), 'own'); // a thin day: the player's own history
  assert.equal(chartKind(1, []), 'none'); // a first daily on a quiet day: no chart at all
  assert.equal(chartKind(0, undefined), 'none');
});

test('the player\'s own scores are bands from their lowest to their highest', () => {
  const bands = ownBands([301, 250, 301], 280);
  assert.deepEqual(bands, [{ from: 250, to: 250, players: 1 }, { from: 280, to: 280, players: 1 },
    { from: 301, to: 301, players: 2 }]);
  const drawn = spanBands(bands, 12);
  assert.equal(drawn[0].from, 250);
  assert.equal(drawn[drawn.length - 1].to, 301);
  assert.equal(drawn.reduce((n, b) => n + b.players, 0), 4);
});
