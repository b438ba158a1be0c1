import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { module } from './helpers.mjs';

const { loadStrings } = await module('page.js');
const { describe, nextDelay, verdicts, POLL_MS, QUICK_POLLS, SLOWEST_MS } = await module('challenge.js');

beforeEach(() => loadStrings({
  friendWins: '{name} wins: {theirs} to your {mine}.',
  creatorWins: 'You win against {name}: {mine} to {theirs}.',
  friendTie: 'A tie with {name}: {mine} each.',
  friendScored: '{name} scored {theirs}.',
  challengeCode: 'Challenge {code}',
  puzzle: 'Puzzle #{number}',
  playersOne: '{n} player',
  playersMany: '{n} players',
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

test("a code's line: its link, what it replays, how many played it and each verdict", () => {
  const plays = [{ player_id: 'bo', name: 'Bo', score: 279 }, { player_id: 'cy', name: 'Guest 1a2b', score: 90 }];
  const daily = { code: 'K7P2-QX9D', ruleset: 'maxi', day: '2026-12-05', number: 339, mine: 274, players: 2, plays };
  assert.deepEqual(describe(daily, { maxi: 'Maxi Yatzy' }), {
    href: '/f/K7P2QX9D',
    title: 'Challenge K7P2-QX9D',
    label: 'Puzzle #339',
    count: '2 players',
    verdicts: [
      { key: 'friendWins', text: 'Bo wins: 279 to your 274.' },
      { key: 'creatorWins', text: 'You win against Guest 1a2b: 274 to 90.' },
    ],
  });
  // A challenge its creator has not finished yet: what the friend scored, no verdict.
  const open = { ...daily, ruleset: 'yatzy', number: null, mine: null, players: 1, plays: plays.slice(0, 1) };
  const line = describe(open, { yatzy: 'Yatzy' });
  assert.deepEqual([line.label, line.count, line.verdicts], ['Yatzy', '1 player', [{ key: 'friendScored', text: 'Bo scored 279.' }]]);
});

test('a watched answer is asked for every 4 s for a minute, then ever less often, at most a minute apart', () => {
  const waits = Array.from({ length: 40 }, (_, n) => nextDelay(n));
  assert.deepEqual(waits.slice(0, QUICK_POLLS), Array(QUICK_POLLS).fill(POLL_MS));
  assert.deepEqual(waits.slice(QUICK_POLLS, QUICK_POLLS + 3), [6000, 9000, 13500]);
  assert.ok(waits.every((wait, n) => n === 0 || wait >= waits[n - 1]));
  assert.equal(waits.at(-1), SLOWEST_MS);
  assert.equal(nextDelay(0, 50), 50); // a test's quicker clock keeps its own pace
});
