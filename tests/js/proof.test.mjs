// A new player's proof of work: an ALTCHA v1 challenge solved with WebCrypto, as the server's
// altcha library makes and checks it (tests/web/test_proofs.py solves the server's own).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { module } from './helpers.mjs';

const { BATCH, payload, search, solve } = await module('proof.js');

/** A challenge as altcha's create_challenge makes it, with a number we know. */
export function challengeOf(number, maxnumber = 5000) {
  const salt = 'a1b2c3d4e5f6a1b2c3d4e5f6?expires=1790000000&level=0&tag=198.51.100.0%2F24&';
  const challenge = createHash('sha256').update(salt + number).digest('hex');
  return { algorithm: 'SHA-256', challenge, maxnumber, salt, signature: 'f'.repeat(64) };
}

test('the number is found, past several batches, and progress is told as it goes', async () => {
  const heard = [];
  const number = BATCH * 3 + 17;
  assert.equal(await search(challengeOf(number), { onProgress: (p) => heard.push(p) }), number);
  assert.equal(heard.length, 3);
  assert.ok(heard.every((p, i) => p > 0 && p < 1 && (i === 0 || p > heard[i - 1])), heard.join());
});

test('a challenge no number solves answers null after the whole range', async () => {
  const heard = [];
  const impossible = { ...challengeOf(7, 1200), challenge: '0'.repeat(64) };
  assert.equal(await search(impossible, { onProgress: (p) => heard.push(p) }), null);
  assert.equal(heard.at(-1), 1);
});

test('the payload is what ALTCHA\'s widget sends: base64 JSON of the five fields', async () => {
  const challenge = challengeOf(42);
  const sent = JSON.parse(Buffer.from(await solve(challenge), 'base64').toString());
  assert.deepEqual(sent, { algorithm: 'SHA-256', challenge: challenge.challenge, number: 42,
    salt: challenge.salt, signature: challenge.signature });
  assert.equal(payload(challenge, 42), Buffer.from(JSON.stringify(sent)).toString('base64'));
});
