// The network client against a real HTTP server on loopback: what it sends, what it answers.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { module } from './helpers.mjs';

const { PREFIX, request, requestInit } = await module('net.js');

let server;
let origin;
const seen = [];

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      if (req.url.endsWith('/broken')) { res.writeHead(502, { 'Content-Type': 'text/html' }); res.end('<h1>Bad gateway</h1>'); return; }
      const status = req.url.endsWith('/missing') ? 404 : 200;
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(status === 200 ? { echo: body ? JSON.parse(body) : null } : { error: { code: 'not_found' } }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${server.address().port}`;
});

after(() => server.close());

test('a call without a body asks for JSON and sends no content type', () => {
  const init = requestInit('GET');
  assert.deepEqual(init, { method: 'GET', headers: { Accept: 'application/json' }, credentials: 'same-origin' });
});

test('a move is posted as JSON under the API prefix', async () => {
  const result = await request('POST', '/games/g1/roll', { hold: [0, 2], move: 3 }, origin);
  assert.deepEqual(result, { ok: true, status: 200, data: { echo: { hold: [0, 2], move: 3 } } });
  const sent = seen.at(-1);
  assert.equal(sent.method, 'POST');
  assert.equal(sent.url, `${PREFIX}/games/g1/roll`);
  assert.equal(sent.headers['content-type'], 'application/json');
  assert.equal(sent.headers.accept, 'application/json');
  assert.equal(sent.body, '{"hold":[0,2],"move":3}');
});

test('an error answer keeps its status and JSON', async () => {
  const result = await request('GET', '/games/missing', undefined, origin);
  assert.deepEqual(result, { ok: false, status: 404, data: { error: { code: 'not_found' } } });
});

test('an answer that is not JSON (a proxy page) gives data null, not an exception', async () => {
  const result = await request('GET', '/broken', undefined, origin);
  assert.deepEqual(result, { ok: false, status: 502, data: null });
});

test('no server at all rejects, as fetch does (no network)', async () => {
  const closed = createServer();
  await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = closed.address().port;
  await new Promise((resolve) => closed.close(resolve));
  await assert.rejects(request('GET', '/daily', undefined, `http://127.0.0.1:${port}`));
});
