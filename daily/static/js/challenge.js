/* A friend's code, watched while its page is open: the code's board is fetched again every
   few seconds (only while the page is visible), sending back the last ETag so that an
   unchanged board costs one small 304; the creator of the code also sees, for each friend who
   finished, who won ("Bo wins: 279 to your 274."). Nothing runs on import. */
import { fmt, playerName, S } from './page.js';
import { PREFIX } from './net.js';

/** How often the board is asked for again, in milliseconds. */
export const POLL_MS = 4000;

/** Each friend's verdict against the creator's *mine*, best score first (the creator left out). */
export function verdicts(entries, creator, mine) {
  return entries.filter((entry) => entry.player_id !== creator).map((entry) => {
    const values = { name: playerName(entry.name), theirs: entry.score, mine };
    const key = entry.score > mine ? 'friendWins' : entry.score < mine ? 'creatorWins' : 'friendTie';
    return { key, text: fmt(S[key] || '', values) };
  });
}

/** Calls *onBoard* with the board of *code* now and whenever it changes; returns a stop(). */
export function watchBoard(code, onBoard, pollMs = POLL_MS) {
  let etag = null;
  let timer = null;
  let stopped = false;
  const poll = async () => {
    if (stopped) return;
    if (!document.hidden) {
      const headers = { Accept: 'application/json' };
      if (etag) headers['If-None-Match'] = etag;
      try {
        const response = await fetch(`${PREFIX}/leaderboards/friend/${code}?limit=50`,
          { headers, credentials: 'same-origin', cache: 'no-store' });
        if (response.status === 200) {
          etag = response.headers.get('ETag');
          onBoard(await response.json());
        }
      } catch (e) { /* offline for now: the next poll tries again */ }
    }
    timer = setTimeout(poll, pollMs);
  };
  poll();
  return () => { stopped = true; clearTimeout(timer); };
}
