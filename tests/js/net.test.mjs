// The network client against a real HTTP server on loopback: what it sends, what it answers,
// and which calls it sends again when no answer came.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, beforeEach, test } from 'node:test';
import { module } from './helpers.mjs';
import { challengeOf } from './proof.test.mjs';

const { PREFIX, READ_AGAIN, WAITS, api, backoff, isTransient, landed, persist, readAgain, request, requestInit } = await module('net.js');

let server;
let origin;
let drops = 0; // how many of the next requests the server hangs up on without an answer
const seen = [];
const FAST = [1, 1]; // the retry waits, shortened

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      if (drops > 0) { drops -= 1; req.socket.destroy(); return; }
      if (req.url.endsWith('/proof') && !req.headers.altcha) {
        res.writeHead(429, { 'Content-Type': 'application/json', Connection: 'close' });
        res.end(JSON.stringify({ error: { code: 'too_many_requests', altcha: challengeOf(321) } }));
        return;
      }
      if (req.url.endsWith('/broken')) { res.writeHead(502, { 'Content-Type': 'text/html' }); res.end('<h1>Bad gateway</h1>'); return; }
      const status = req.url.endsWith('/missing') ? 404 : 200;
      res.writeHead(status, { 'Content-Type': 'application/json', Connection: 'close' });
      res.end(JSON.stringify(status === 200 ? { echo: body ? JSON.parse(body) : null } : { error: { code: 'not_found' } }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${server.address().port}`;
});

beforeEach(() => { seen.length = 0; drops = 0; });

after(() => server.close());

test('a call without a body asks for JSON and sends no content type', () => {
  const init = requestInit('GET');
  assert.deepEqual(init, { method: 'GET', headers: { Accept: 'application/json' }, credentials: 'same-origin' });
});

test('a move is posted as JSON under the API prefix', async () => {
  const result = await request('POST', '/games/g1/roll', { hold: [0, 2], move: 3 }, { origin });
  assert.deepEqual(result, { ok: true, status: 200, data: { echo: { hold: [0, 2], move: 3 } } });
  const [sent] = seen;
  assert.equal(sent.method, 'POST');
  assert.equal(sent.url, `${PREFIX}/games/g1/roll`);
  assert.equal(sent.headers['content-type'], 'application/json');
  assert.equal(sent.headers.accept, 'application/json');
  assert.equal(sent.body, '{"hold":[0,2],"move":3}');
});

test('an error answer keeps its status and JSON, and is not sent again', async () => {
  const result = await request('GET', '/games/missing', undefined, { origin, waits: FAST });
  assert.deepEqual(result, { ok: false, status: 404, data: { error: { code: 'not_found' } } });
  assert.equal(seen.length, 1);
});

test('an answer that is not JSON (a proxy page) gives data null', async () => {
  const result = await request('GET', '/broken', undefined, { origin });
  assert.deepEqual(result, { ok: false, status: 502, data: null });
});

test('a read that got no answer is sent again, after each wait in turn', async () => {
  drops = 2;
  const result = await request('GET', '/games/g1', undefined, { origin, waits: FAST });
  assert.deepEqual(result, { ok: true, status: 200, data: { echo: null } });
  assert.deepEqual(seen.map((s) => s.url), Array(3).fill(`${PREFIX}/games/g1`));
  assert.equal(WAITS.length, 2); // on the page: three tries in all
});

test('a read that never gets an answer gives up with status 0', async () => {
  drops = 3;
  const result = await request('GET', '/games/g1', undefined, { origin, waits: FAST });
  assert.deepEqual(result, { ok: false, status: 0, data: null });
  assert.equal(seen.length, 3);
});

test('a move that got no answer is not sent again: it may have landed', async () => {
  drops = 1;
  const result = await request('POST', '/games/g1/score', { category: 'chance', move: 7 }, { origin, waits: FAST });
  assert.deepEqual(result, { ok: false, status: 0, data: null });
  assert.equal(seen.length, 1);
});

test('no server at all answers status 0, which the page words as no answer', async () => {
  const closed = createServer();
  await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = closed.address().port;
  await new Promise((resolve) => closed.close(resolve));
  const result = await request('GET', '/daily', undefined, { origin: `http://127.0.0.1:${port}`, waits: FAST });
  assert.deepEqual(result, { ok: false, status: 0, data: null });
});

test('without the network the page\'s call answers status 0, it never throws', async () => {
  // On the page the path is relative; in node (no page) fetch refuses it, as a dead network does.
  assert.deepEqual(await api('GET', '/daily'), { ok: false, status: 0, data: null });
});

test('a dropped call is asked again with a growing pause; a refusal is not', () => {
  assert.deepEqual([0, 1, 2, 3, 4, 5, 6].map(backoff), [1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  assert.ok(isTransient({ status: 0 }) && isTransient({ status: 503 }) && isTransient({ status: 429 }));
  assert.ok(!isTransient({ status: 409 }) && !isTransient({ status: 400 }) && !isTransient({ status: 200 }));
});

test('a move goes out until it is answered, telling each wait', async () => {
  const answers = [{ ok: false, status: 0, data: null }, { ok: false, status: 502, data: null }, { ok: true, status: 200, data: { moves: [1] } }];
  const calls = [];
  const waits = [];
  const call = async (...args) => { calls.push(args); return answers.shift(); };
  const result = await persist('POST', '/games/g/roll', { hold: [], move: 3 }, (r, attempt) => waits.push([r.status, attempt]), { call, wait: async () => {} });
  assert.deepEqual(result, { ok: true, status: 200, data: { moves: [1] }, retried: true });
  assert.equal(calls.length, 3);
  assert.ok(calls.every((c) => c[2].move === 3)); // the same move number every time: once only
  assert.deepEqual(waits, [[0, 0], [502, 1]]);
});

test('a read the page waits for is asked again while refused for now, a few times only', async () => {
  const answers = [{ ok: false, status: 429, data: null }, { ok: false, status: 503, data: null }, { ok: true, status: 200, data: { skill: 1 } }];
  const calls = [];
  const call = async (...args) => { calls.push(args); return answers.shift(); };
  const found = await readAgain('/games/g/analysis', READ_AGAIN, { call, wait: async () => {} });
  assert.deepEqual(found.data, { skill: 1 });
  assert.deepEqual(calls.map((c) => c[0] + ' ' + c[1]), Array(3).fill('GET /games/g/analysis'));
  const refusedForGood = async () => ({ ok: false, status: 404, data: null });
  assert.equal((await readAgain('/x', READ_AGAIN, { call: refusedForGood, wait: async () => {} })).status, 404);
  let asked = 0;
  const busy = async () => { asked += 1; return { ok: false, status: 503, data: null }; };
  await readAgain('/x', READ_AGAIN, { call: busy, wait: async () => {} });
  assert.equal(asked, 1 + READ_AGAIN); // then the page shows what it has
});

test('a repeat refused as past the move sent means an earlier copy landed', () => {
  const conflict = (moves) => ({ ok: false, status: 409, data: { error: { code: 'conflict', moves } }, retried: true });
  assert.ok(landed(conflict(4), 3));
  assert.ok(!landed(conflict(3), 3)); // the game is where it was: the move did not land
  assert.ok(!landed({ ...conflict(4), retried: undefined }, 3)); // a first try: a real clash
  assert.ok(!landed({ ok: false, status: 400, data: null, retried: true }, 3));
});

test('a 429 that asks for a proof of work is solved and sent again with the Altcha header', async () => {
  const heard = [];
  const prove = async (challenge, onProgress) => {
    onProgress(0.5);
    heard.push(challenge.maxnumber);
    return 'c29sdmVk';
  };
  const onProof = (p) => heard.push(p);
  const result = await request('POST', '/proof', { name: 'Ana' }, { origin, waits: FAST, prove, onProof });
  assert.equal(result.status, 200);
  assert.deepEqual(heard, [0.5, 5000]);
  assert.deepEqual(seen.map((r) => r.headers.altcha), [undefined, 'c29sdmVk']);
  assert.deepEqual(seen.map((r) => r.body), ['{"name":"Ana"}', '{"name":"Ana"}']);
});

test('a proof refused again is not solved a second time: the 429 is the answer', async () => {
  const prove = async () => 'c29sdmVk';
  const result = await request('POST', '/proof', {}, { origin, waits: FAST, prove, proof: 'old' });
  assert.equal(result.status, 200);  // the test server takes any header
  const unsolved = await request('POST', '/proof', {}, { origin, waits: FAST, prove: async () => null });
  assert.equal(unsolved.status, 429);
});
