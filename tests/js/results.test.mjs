import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { FIXTURE, module, scorecard } from './helpers.mjs';

const { loadStrings } = await module('page.js');
const { bandOf, computerVerdict, dayVerdict, grade, percentileOf, shareGrid, shareLink, shareText, targetVerdict } = await module('results.js');
const { PAR } = await module('par.js');
const YATZY = FIXTURE.sheets.yatzy;

beforeEach(() => loadStrings(FIXTURE.strings));

test('a row is graded against its par: a fifth either way is around par', () => {
  assert.equal(grade(0, 10), 'zero');
  assert.equal(grade(null, 10), 'zero');
  assert.equal(grade(12, 10), 'above');
  assert.equal(grade(11.9, 10), 'around');
  assert.equal(grade(8, 10), 'around');
  assert.equal(grade(7.9, 10), 'below');
  assert.equal(grade(5, 0), 'around'); // no par known: a score is a score
});

test('par.js holds a par for every row of the sheet, from the solver\'s games', () => {
  assert.deepEqual(Object.keys(PAR.yatzy.rows), YATZY.rows.map((r) => r.id));
  assert.ok(PAR.yatzy.games >= 1000);
  assert.ok(PAR.yatzy.rows.sixes > 15 && PAR.yatzy.rows.sixes < 24, PAR.yatzy.rows.sixes);
});

// Cards for the grading alone (not every score is one the dice could give): every row at 1.5
// times its par and a Yatzy, against every third row at zero and the rest at a third of par.
const strongGame = () => Object.fromEntries(YATZY.rows.map((r) => [r.id, r.id === 'yatzy' ? 50 : Math.ceil(PAR.yatzy.rows[r.id] * 1.5)]));
const weakGame = () => Object.fromEntries(YATZY.rows.map((r, i) => [r.id, i % 3 === 0 ? 0 : Math.floor(PAR.yatzy.rows[r.id] / 3)]));

test('the share grid: each row against its par, a star for the bonus, a burst for a Yatzy', () => {
  const par = PAR.yatzy.rows;
  const scored = { ones: 0, twos: Math.round(par.twos), fours: Math.ceil(par.fours * 1.3), chance: Math.floor(par.chance / 2), yatzy: 50 };
  const grid = shareGrid(YATZY, { scorecard: scorecard(YATZY, scored), bonus: 0 });
  assert.deepEqual(grid.split('\n'), ['⬛🟨⬛🟩⬛⬛', '⬛⬛⬛⬛⬛', '⬛⬛🟧🟩💥']);
  const withBonus = shareGrid(YATZY, { scorecard: scorecard(YATZY, scored), bonus: 50 });
  assert.equal(withBonus.split('\n')[0], '⬛🟨⬛🟩⬛⬛⭐');
});

test('a strong and a weak day share different grids, not only different totals', () => {
  const strong = shareGrid(YATZY, { scorecard: strongGame(), bonus: 50 });
  const weak = shareGrid(YATZY, { scorecard: weakGame(), bonus: 0 });
  assert.ok(!/[🟧⬛]/u.test(strong) && strong.includes('⭐') && strong.includes('💥'), strong);
  assert.ok(weak.includes('🟧') && weak.includes('⬛') && !weak.includes('🟩') && !weak.includes('⭐'), weak);
  const text = (grid) => shareText({ daily: true, number: 3, total: 250, grid, link: 'L' });
  assert.notEqual(text(strong), text(weak)); // the same total: the grids alone tell them apart
});

test('the shared text: the head line, the grid, the link', () => {
  const link = shareLink('https://daily.example', 'ABCD-EFGH');
  assert.equal(link, 'https://daily.example/f/ABCD-EFGH');
  const grid = '🟩\n🟨';
  assert.equal(shareText({ daily: true, number: 12, total: 301, grid, link }),
    `Daily Maxi Yatzy #12: 301\n${grid}\n${link}`);
  assert.equal(shareText({ daily: false, ruleset: 'Yatzy', total: 240, grid, link }), `Yatzy: 240\n${grid}\n${link}`);
  // The day's percentile on the head line, the streak under it; neither where unknown.
  assert.equal(shareText({ daily: true, number: 12, total: 301, grid, link, percentile: 83, streak: 5 }),
    `Daily Maxi Yatzy #12: 301, better than 83% of today's players\nDays in a row: 5\n${grid}\n${link}`);
  assert.equal(shareText({ daily: true, number: 12, total: 301, grid, link, percentile: null, streak: 0 }),
    `Daily Maxi Yatzy #12: 301\n${grid}\n${link}`);
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
  assert.equal(percentileOf(5, scores(250, 200, 200, 200, 100), 200), 25);
  assert.equal(percentileOf(2, scores(200, 200), 200), null); // nobody beaten: no percentile
  assert.equal(percentileOf(1, scores(200), 200), null);
  assert.equal(percentileOf(9, null, 100), null);
});

test('the computer\'s verdict gives both scores', () => {
  const game = (winner, you, them) => ({ winner, total: you, computer: { total: them } });
  assert.equal(computerVerdict(game('you', 250, 230)), 'You win, 250 to 230');
  assert.equal(computerVerdict(game('computer', 200, 231)), 'The computer wins, 231 to your 200');
  assert.equal(computerVerdict(game('tie', 240, 240)), 'A tie: 240 each');
  assert.equal(computerVerdict(game(null, 10, 20)), '');
});
