import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { FIXTURE, module, scorecard } from './helpers.mjs';

const { loadStrings } = await module('page.js');
const { bandOf, computerVerdict, dayVerdict, shareGrid, shareLink, shareText, targetVerdict } = await module('results.js');
const YATZY = FIXTURE.sheets.yatzy;

beforeEach(() => loadStrings(FIXTURE.strings));

test('the share grid: the upper rows against par, a star for the bonus, the rest in two lines', () => {
  const scored = { ones: 3, twos: 2, threes: 0, fours: 16, fives: 15, sixes: 18, one_pair: 12, chance: 20, yatzy: 50 };
  const grid = shareGrid(YATZY, { scorecard: scorecard(YATZY, scored), bonus: 0 });
  assert.deepEqual(grid.split('\n'), ['🟩🟨⬛🟩🟩🟩', '🟩⬛⬛⬛⬛', '⬛⬛🟩🟩']);
  const withBonus = shareGrid(YATZY, { scorecard: scorecard(YATZY, scored), bonus: 50 });
  assert.equal(withBonus.split('\n')[0], '🟩🟨⬛🟩🟩🟩⭐');
});

test('the shared text: the head line, the grid, the link', () => {
  const link = shareLink('https://daily.example', 'ABCD-EFGH');
  assert.equal(link, 'https://daily.example/f/ABCD-EFGH');
  const grid = '🟩\n🟨';
  assert.equal(shareText({ daily: true, number: 12, total: 301, grid, link }),
    `Daily Maxi Yatzy #12: 301\n${grid}\n${link}`);
  assert.equal(shareText({ daily: false, ruleset: 'Yatzy', total: 240, grid, link }), `Yatzy: 240\n${grid}\n${link}`);
});

test('against a friend\'s score: win, lose, tie, or nothing before they finished', () => {
  const target = { name: 'Guest 00ff', finished: true, byTurn: [10, 150, 200] };
  assert.equal(targetVerdict(target, 201), 'You beat Guest 00ff: 201 to 200');
  assert.equal(targetVerdict(target, 199), 'Guest 00ff wins: 200 to your 199');
  assert.equal(targetVerdict(target, 200), 'A tie with Guest 00ff at 200');
  assert.equal(targetVerdict({ ...target, finished: false }, 300), '');
  assert.equal(targetVerdict(null, 300), '');
});

test('the player\'s band holds the total at either edge', () => {
  const bands = [{ from: 200, to: 224, players: 3 }, { from: 225, to: 249, players: 1 }];
  assert.equal(bandOf(bands, 224), bands[0]);
  assert.equal(bandOf(bands, 225), bands[1]);
  assert.equal(bandOf(bands, 250), undefined);
});

// The day's scores one point wide, as /daily/<date>/distribution?band=1 sends them.
const scores = (...totals) => totals.map((t) => ({ from: t, to: t, players: 1 }))
  .reduce((bands, b) => { const same = bands.find((x) => x.from === b.from); if (same) same.players += 1; else bands.push(b); return bands; }, []);

test('the day\'s verdict counts ties and a board of one honestly', () => {
  assert.equal(dayVerdict(1, 1, scores(200), 200), "You are the first to finish today's puzzle");
  // Tied for first of two: nobody beaten, so no "better than 100%".
  assert.equal(dayVerdict(1, 2, scores(200, 200), 200), 'Rank 1 of 2, tied with one other player');
  assert.equal(dayVerdict(1, 3, scores(200, 200, 150), 200), "Rank 1 of 3, tied with one other player, better than 50% of today's players");
  assert.equal(dayVerdict(2, 5, scores(250, 200, 200, 200, 100), 200), "Rank 2 of 5, tied with 2 other players, better than 25% of today's players");
  assert.equal(dayVerdict(1, 2, scores(220, 100), 220), "Rank 1 of 2, better than 100% of today's players");
  assert.equal(dayVerdict(2, 2, scores(220, 100), 100), 'Rank 2 of 2');
  assert.equal(dayVerdict(3, 9, null, 100), 'Rank 3 of 9'); // no distribution: the rank alone
});

test('the computer\'s verdict gives both scores', () => {
  const game = (winner, you, them) => ({ winner, total: you, computer: { total: them } });
  assert.equal(computerVerdict(game('you', 250, 230)), 'You win, 250 to 230');
  assert.equal(computerVerdict(game('computer', 200, 231)), 'The computer wins, 231 to your 200');
  assert.equal(computerVerdict(game('tie', 240, 240)), 'A tie: 240 each');
  assert.equal(computerVerdict(game(null, 10, 20)), '');
});
