/* Each row's par: its mean score over Expert games (optimal play), by ruleset.
   Written by tools/make_par.py; do not edit by hand. */
export const PAR = {
 "maxi": {
  "games": 10000,
  "rows": {
   "ones": 3.2,
   "twos": 7.4,
   "threes": 11.6,
   "fours": 16.0,
   "fives": 20.3,
   "sixes": 24.9,
   "one_pair": 11.0,
   "two_pairs": 20.1,
   "three_pairs": 19.6,
   "three_of_a_kind": 16.2,
   "four_of_a_kind": 18.0,
   "five_of_a_kind": 6.7,
   "full_house": 25.0,
   "villa": 14.4,
   "tower": 18.4,
   "small_straight": 11.6,
   "large_straight": 18.5,
   "full_straight": 9.4,
   "chance": 27.7,
   "maxi_yatzy": 22.7
  },
  "bonus": 72.2
 },
 "yatzy": {
  "games": 10000,
  "rows": {
   "ones": 2.2,
   "twos": 5.7,
   "threes": 9.3,
   "fours": 12.8,
   "fives": 16.2,
   "sixes": 20.1,
   "one_pair": 11.2,
   "two_pairs": 19.4,
   "three_of_a_kind": 15.6,
   "four_of_a_kind": 13.7,
   "small_straight": 3.8,
   "large_straight": 9.8,
   "full_house": 21.5,
   "chance": 23.1,
   "yatzy": 19.0
  },
  "bonus": 44.9
 },
 "yahtzee": {
  "games": 10000,
  "rows": {
   "ones": 1.9,
   "twos": 5.3,
   "threes": 8.6,
   "fours": 12.2,
   "fives": 15.6,
   "sixes": 19.2,
   "three_of_a_kind": 21.7,
   "four_of_a_kind": 13.1,
   "full_house": 22.5,
   "small_straight": 29.4,
   "large_straight": 32.8,
   "yahtzee": 16.8,
   "chance": 22.0
  },
  "bonus": 24.0
 },
 "yacht": {
  "games": 10000,
  "rows": {
   "ones": 1.8,
   "twos": 5.4,
   "threes": 8.7,
   "fours": 12.2,
   "fives": 15.7,
   "sixes": 19.2,
   "choice": 22.7,
   "four_of_a_kind": 11.4,
   "full_house": 18.7,
   "small_straight": 14.4,
   "large_straight": 23.5,
   "yacht": 14.3
  },
  "bonus": 24.3
 }
};
