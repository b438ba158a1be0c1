import assert from 'node:assert/strict';
import { test } from 'node:test';
import { module } from './helpers.mjs';

const { copyInvite, inviteData, shareInvite } = await module('league.js');

const LINK = 'https://example.org/leagues/AbCdEfGhIjK?invite=QrStUvWxYz0';

/** A navigator whose clipboard and share sheet record what they get, or fail with *errors*. */
function fakeNavigator({ clipboard = null, share = null } = {}) {
  const got = { copied: [], shared: [] };
  const nav = {
    clipboard: { writeText: async (text) => { if (clipboard) throw clipboard; got.copied.push(text); } },
    share: async (data) => { if (share) throw share; got.shared.push(data); },
  };
  return { nav, got };
}

const abort = Object.assign(new Error('closed'), { name: 'AbortError' });

test('the share sheet gets the league name, the words and the link', () => {
  const data = inviteData({ shareTitle: 'Family', shareText: 'Join my league Family' }, LINK);
  assert.deepEqual(data, { title: 'Family', text: 'Join my league Family', url: LINK });
});

test('copying says whether the link reached the clipboard', async () => {
  const { nav, got } = fakeNavigator();
  assert.equal(await copyInvite(nav, LINK), 'copied');
  assert.deepEqual(got.copied, [LINK]);
  const refused = fakeNavigator({ clipboard: new Error('NotAllowedError') });
  assert.equal(await copyInvite(refused.nav, LINK), 'copyFailed');
  assert.deepEqual(refused.got.copied, []);
});

test('sharing opens the sheet; closing it says nothing; a failing sheet copies instead', async () => {
  const data = inviteData({ shareTitle: 'Family', shareText: 'Join' }, LINK);
  const shared = fakeNavigator();
  assert.equal(await shareInvite(shared.nav, data), 'shared');
  assert.deepEqual([shared.got.shared, shared.got.copied], [[data], []]);
  const closed = fakeNavigator({ share: abort });
  assert.equal(await shareInvite(closed.nav, data), '');
  assert.deepEqual(closed.got.copied, []);
  const broken = fakeNavigator({ share: new TypeError('bad data') });
  assert.equal(await shareInvite(broken.nav, data), 'copied');
  assert.deepEqual(broken.got.copied, [LINK]);
  const neither = fakeNavigator({ share: new Error('x'), clipboard: new Error('y') });
  assert.equal(await shareInvite(neither.nav, data), 'copyFailed');
});
