import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { FIXTURE, module } from './helpers.mjs';

const { loadStrings } = await module('page.js');
const { bandOf, cheerWords, computerVerdict, dayVerdict, leagueWords, newcomerDays, practiceVerdict, shareLink, spanBands, targetVerdict } = await module('results.js');
const { shareText, signed, skillWords } = await module('share.js');

beforeEach(() => loadStrings(FIXTURE.strings));

test('the head line says skill, luck and the Expert\'s score', () => {
  // The answer's figures as shown (rounded once, on the server): never rounded again here.
  const skill = { skill: 93, luck: -41, optimum: 394.6, lost: 29.2, expert: 390 };
  assert.equal(skillWords(skill), 'skill 93% · luck −41 · Expert 390');
  assert.equal(skillWords({ ...skill, luck: 12, expert: null }), 'skill 93% · luck +12');
  assert.equal(skillWords(null), '');
  assert.deepEqual([signed(0), signed(-1), signed(7)], ['0', '−1', '+7']);
  const grid = '🟩';
  assert.equal(shareText({ daily: true, number: 340, total: 307, grid, link: 'L', skill, percentile: 62, streak: 2 }),
    `Daily Maxi Yatzy #340: 307 · skill 93% · luck −41 · Expert 390\nbetter than 62% of today's players · Days in a row: 2\n${grid}\nL`);
  assert.equal(shareText({ daily: false, ruleset: 'Yatzy', total: 240, grid, link: 'L', skill: { ...skill, expert: null } }),
    `Yatzy: 240 · skill 93% · luck −41\n${grid}\nL`);
});

test('against a friend\'s score: win, lose, tie, or nothing before they finished', () => {
  const target = { name: 'Guest 00ff', finished: true, byTurn: [10, 150, 200] };
  assert.equal(targetVerdict(target, 201), 'You beat Guest 00ff: 201 to 200');
  assert.equal(targetVerdict(target, 199), 'Guest 00ff wins: 200 to your 199');
  assert.equal(targetVerdict(target, 200), 'A tie with Guest 00ff at 200');
  assert.equal(targetVerdict({ ...target, finished: false }, 300), '');
  assert.equal(targetVerdict(null, 300), '');
  // A creator who deleted their account: nameless, and a sentence still opens with a capital.
  assert.equal(targetVerdict({ ...target, name: null }, 199), 'A deleted player wins: 200 to your 199');
  // The game's own target (a daily played from its share link): the friend's sheet and total.
  assert.equal(targetVerdict({ name: 'Maja', finished: true, total: 286 }, 282), 'Maja wins: 286 to your 282');
  assert.equal(targetVerdict({ name: 'Maja', finished: false, total: 120 }, 282), '');
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

// A standing as the answer gives it (the server decides and rounds every figure).
const standing = (fields) => ({ rank: 1, ranked: 1, place: 1, field: 1, tied: 0, percentile: null, new: false, ...fields });

test('the day\'s verdict says the answer\'s standing, honest about ties and a board of one', () => {
  assert.equal(dayVerdict(standing({})), "You are the first to finish today's puzzle");
  // Tied for first of two: nobody beaten, so the answer has no percentile.
  assert.equal(dayVerdict(standing({ ranked: 2, field: 2, tied: 1 })), 'Rank 1 of 2, tied with one other player');
  assert.equal(dayVerdict(standing({ ranked: 3, field: 3, tied: 1, percentile: 66 })), "Rank 1 of 3, tied with one other player, better than 66% of today's players");
  assert.equal(dayVerdict(standing({ rank: 2, ranked: 5, place: 2, field: 5, tied: 2, percentile: 50 })), "Rank 2 of 5, tied with 2 other players, better than 50% of today's players");
  assert.equal(dayVerdict(standing({ rank: 2, ranked: 2, place: 2, field: 2 })), 'Rank 2 of 2');
  // Four played, one of them ranked: the rank is among the ranked, the percentile of all.
  assert.equal(dayVerdict(standing({ ranked: 1, field: 4, percentile: 87 })), "Rank 1 of 1 ranked players, better than 87% of today's players");
});

test('a new player\'s verdict says where they stand among everyone and when they rank', () => {
  const fresh = standing({ rank: null, ranked: 1, place: 2, field: 4, percentile: 62, new: true, days_left: 2 });
  assert.equal(dayVerdict(fresh), "New player: 2 of 4 today, better than 62% of today's players, 2 more days to play before your dailies rank");
  assert.equal(dayVerdict({ ...fresh, place: 1, field: 1, percentile: null, days_left: 1 }), "You are the first to finish today's puzzle, one more day to play before your dailies rank");
  assert.equal(newcomerDays(0), 'your dailies rank from your next one');
  // No "1 of 1" unless alone, and no rank number for a new player.
  assert.ok(!dayVerdict(fresh).includes('Rank'));
});

test('Japanese joins the verdict\'s clauses with its own mark', () => {
  loadStrings({ ...FIXTURE.strings, clauseSep: '、' });
  assert.equal(dayVerdict(standing({ ranked: 3, field: 3, tied: 1, percentile: 66 })), "Rank 1 of 3、tied with one other player、better than 66% of today's players");
});

test('the cheers are the answer\'s, in words, and none without them', () => {
  const maxi = FIXTURE.sheets.maxi;
  const cheers = [{ kind: 'bonus', value: null }, { kind: 'all_same', value: null }, { kind: 'best', value: 335 }, { kind: 'streak', value: 7 }];
  assert.deepEqual(cheerWords(cheers, maxi), ['Bonus made!', 'Maxi Yatzy!', 'A new best day!', '7 days in a row!']);
  assert.deepEqual(cheerWords(undefined, maxi), []); // a game opened again: its answer has none
});

test('a practice game says where it would have ranked on its day', () => {
  assert.equal(practiceVerdict('5 December 2026', scores(300, 250, 200), 260), 'Practice, 5 December 2026: you would have ranked 2 of 4');
  assert.equal(practiceVerdict('5 December 2026', scores(300), 300), 'Practice, 5 December 2026: you would have ranked 1 of 2');
  assert.equal(practiceVerdict('5 December 2026', [], 100), 'Practice, 5 December 2026: you would have ranked 1 of 1');
});

test('the histogram spans the day\'s scores, not 0 to the game\'s top', () => {
  const ones = Array.from({ length: 650 }, (_, t) => ({ from: t, to: t, players: [282, 286, 300].includes(t) ? 1 : 0 }));
  const bands = spanBands(ones);
  assert.equal(bands[0].from, 282);
  assert.equal(bands[bands.length - 1].to, 300);
  assert.ok(bands.length > 1 && bands.length <= 16, bands.length);
  assert.equal(bands.reduce((n, b) => n + b.players, 0), 3);
  assert.deepEqual(spanBands(ones.map((b) => ({ ...b, players: b.from === 286 ? 2 : 0 }))), [{ from: 286, to: 286, players: 2 }]);
  assert.deepEqual(spanBands([]), []);
});

test('a league\'s line: the rank among those who played, or how many played', () => {
  assert.equal(leagueWords({ name: 'Office', rank: 2, members: 5, played: 4 }), 'Office: rank 2 of 4');
  assert.equal(leagueWords({ name: 'Office', rank: null, members: 5, played: 3 }), 'Office: 3 of 5 have played');
});

test('the computer\'s verdict gives both scores', () => {
  const game = (winner, you, them) => ({ winner, total: you, computer: { total: them } });
  assert.equal(computerVerdict(game('you', 250, 230)), 'You win, 250 to 230');
  assert.equal(computerVerdict(game('computer', 200, 231)), 'The computer wins, 231 to your 200');
  assert.equal(computerVerdict(game('tie', 240, 240)), 'A tie: 240 each');
  assert.equal(computerVerdict(game(null, 10, 20)), '');
});

