import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { FIXTURE, module } from './helpers.mjs';

const { S, errorText, fmt, loadStrings, playerName, sentence } = await module('page.js');

beforeEach(() => loadStrings(FIXTURE.strings));

test('fmt fills named slots and leaves unknown ones as written', () => {
  assert.equal(fmt('{n} behind pace', { n: 3 }), '3 behind pace');
  assert.equal(fmt('{a}+{a} and {b}', { a: 0 }), '0+0 and {b}');
});

test('a guest and a deleted player are named in the page language, any other name stays as typed', () => {
  assert.equal(playerName('Guest 1a2b'), 'Guest 1a2b');
  loadStrings({ guest: 'Gast {n}' });
  assert.equal(playerName('Guest 1a2b'), 'Gast 1a2b');
  assert.equal(playerName('Guest 1A2B'), 'Guest 1A2B'); // not the API's guest form
  assert.equal(playerName('Ada'), 'Ada');
  assert.equal(playerName(null), 'a deleted player'); // a code's creator who left
});

test('a deleted player opening a sentence gets its capital, a typed name keeps its case', () => {
  assert.equal(sentence(fmt(S.lost, { name: playerName(null), them: 9, you: 8 })), 'A deleted player wins: 9 to your 8');
  assert.equal(sentence(fmt(S.lost, { name: 'bo', them: 9, you: 8 })), 'bo wins: 9 to your 8');
  assert.equal(sentence(fmt(S.beat, { name: playerName(null), them: 8, you: 9 })), 'You beat a deleted player: 9 to 8');
});

test('an error is worded by its code, never by the API message', () => {
  const error = (code) => ({ ok: false, status: 409, data: { error: { code, message: 'English' } } });
  assert.equal(errorText(error('illegal_move')), S['error:illegal_move']);
  assert.equal(errorText(error('no_such_code')), S.errorOther);
  assert.equal(errorText({ ok: false, status: 502, data: null }), S.errorNoAnswer);
  assert.equal(errorText({ ok: false, status: 0, data: null }), S.errorNoAnswer); // no network
});
