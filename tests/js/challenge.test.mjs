import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { module } from './helpers.mjs';

const { loadStrings } = await module('page.js');
const { verdicts } = await module('challenge.js');

beforeEach(() => loadStrings({
  friendWins: '{name} wins: {theirs} to your {mine}.',
  creatorWins: 'You win against {name}: {mine} to {theirs}.',
  friendTie: 'A tie with {name}: {mine} each.',
  guest: 'Guest {n}',
}));

test("the creator hears each friend's verdict, themself left out", () => {
  const entries = [
    { player_id: 'bo', name: 'Bo', score: 279, rank: 1 },
    { player_id: 'me', name: 'Ana', score: 274, rank: 2 },
    { player_id: 'cy', name: 'Guest 1a2b', score: 274, rank: 2 },
    { player_id: 'di', name: 'Di', score: 90, rank: 4 },
  ];
  assert.deepEqual(verdicts(entries, 'me', 274), [
    { key: 'friendWins', text: 'Bo wins: 279 to your 274.' },
    { key: 'friendTie', text: 'A tie with Guest 1a2b: 274 each.' },
    { key: 'creatorWins', text: 'You win against Di: 274 to 90.' },
  ]);
  assert.deepEqual(verdicts([entries[1]], 'me', 274), []);
});
