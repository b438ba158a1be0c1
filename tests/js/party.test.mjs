// Party games: the places of the standings strip and the podium.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { module } from './helpers.mjs';

const { places } = await module('party.js');

test('places go by total, best first; equal totals share a place', () => {
  const players = [{ name: 'Ana', total: 120 }, { name: 'Bo', total: 180 }, { name: 'Cy', total: 120 }, { name: 'Di', total: 90 }];
  assert.deepEqual(places(players).map((p) => [p.name, p.place, p.total]), [
    ['Bo', 1, 180], ['Ana', 2, 120], ['Cy', 2, 120], ['Di', 4, 90],
  ]);
  assert.deepEqual(places(players).map((p) => p.i), [1, 0, 2, 3]); // the seat, for its column
});
