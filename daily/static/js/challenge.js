/* Friends' codes, watched while a page is open: a code's board (its page), or the codes the
   player made and who played them (the home page, and the result of the game that made the
   code). Each is fetched again every few seconds while the page is visible (less and less
   often, down to once a minute, while nothing changes), and at once when it shows again,
   sending back the last ETag so that an unchanged answer costs one small 304. The creator
   sees, for each friend who finished, who won ("Bo wins: 279 to your 274."). Nothing runs
   on import. */
import { $, fmt, playerName, S, sentence } from './page.js';
import { PREFIX } from './net.js';

/** How often an answer is asked for again, in milliseconds, while it keeps changing. */
export const POLL_MS = 4000;
/** Unchanged answers (or failed asks) in a row before the asking slows down: a minute. */
export const QUICK_POLLS = 15;
/** The longest wait between two asks, once nothing has changed for a while. */
export const SLOWEST_MS = 60000;

/** The wait before the next ask after *unchanged* unchanged answers in a row: *pollMs* for
    the first minute, then half as long again each time, up to SLOWEST_MS. A page left open
    on a code nobody plays asks once a minute, not fifteen times. */
export function nextDelay(unchanged, pollMs = POLL_MS) {
  if (unchanged < QUICK_POLLS) return pollMs;
  return Math.min(SLOWEST_MS, Math.round(pollMs * 1.5 ** (unchanged - QUICK_POLLS + 1)));
}

/** Each friend's verdict against the creator's *mine*, best score first (the creator left
    out); without a score of the creator's (null), what each friend scored. */
export function verdicts(entries, creator, mine) {
  return entries.filter((entry) => entry.player_id !== creator).map((entry) => {
    const values = { name: playerName(entry.name), theirs: entry.score, mine };
    let key = entry.score > mine ? 'friendWins' : entry.score < mine ? 'creatorWins' : 'friendTie';
    if (mine === null || mine === undefined) key = 'friendScored';
    return { key, text: sentence(fmt(S[key] || '', values)) };
  });
}

/** Calls *onAnswer* with the JSON at *path* (under the API) now and whenever it changes;
    returns a stop(). A hidden page asks nothing; shown again, or back online, it asks at
    once, and quickly again. Unchanged answers slow the asking down (nextDelay); a change speeds it up. */
export function watch(path, onAnswer, pollMs = POLL_MS) {
  let etag = null;
  let timer = null;
  let stopped = false;
  let busy = false;
  let unchanged = 0;
  const poll = async () => {
    if (stopped || busy) return;
    clearTimeout(timer);
    if (!document.hidden) {
      busy = true;
      const headers = { Accept: 'application/json' };
      if (etag) headers['If-None-Match'] = etag;
      try {
        const response = await fetch(PREFIX + path, { headers, credentials: 'same-origin', cache: 'no-store' });
        unchanged += 1;
        if (response.status === 200) {
          etag = response.headers.get('ETag');
          unchanged = 0;
          onAnswer(await response.json());
        }
      } catch (e) { unchanged += 1; /* offline for now: the next poll tries again */ }
      busy = false;
    }
    if (!stopped) timer = setTimeout(poll, nextDelay(unchanged, pollMs));
  };
  const shown = () => { if (!document.hidden) { unchanged = 0; poll(); } };
  document.addEventListener('visibilitychange', shown);
  window.addEventListener('online', shown); // back from a drop: not a minute later
  poll();
  return () => {
    stopped = true;
    clearTimeout(timer);
    document.removeEventListener('visibilitychange', shown);
    window.removeEventListener('online', shown);
  };
}

/** Calls *onBoard* with the board of *code* now and whenever it changes; returns a stop(). */
export const watchBoard = (code, onBoard, pollMs = POLL_MS) => watch(`/leaderboards/friend/${code}?limit=50`, onBoard, pollMs);

/** What a code's line says: its link and title, what it replays (*names*: ruleset names),
    how many played it, and each friend's verdict. */
export function describe(challenge, names = {}) {
  const { code, number, ruleset, players, plays, mine } = challenge;
  return {
    href: `/f/${code.replace('-', '')}`,
    title: fmt(S.challengeCode || '', { code }),
    label: number ? fmt(S.puzzle || '', { number }) : names[ruleset] || '',
    count: fmt((players === 1 ? S.playersOne : S.playersMany) || '', { n: players }),
    verdicts: verdicts(plays, null, mine),
  };
}

function element(tag, className, text) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (text !== undefined) el.textContent = text;
  return el;
}

function challengeItem(challenge, names) {
  const found = describe(challenge, names);
  const li = element('li', 'challenge');
  const head = element('p', 'row');
  const link = element('a', '', found.title);
  link.href = found.href;
  head.append(link);
  if (found.label) head.append(element('span', 'muted', found.label));
  head.append(element('span', 'count', found.count));
  const list = element('ul', 'challengers');
  list.append(...found.verdicts.map(({ key, text }) => element('li', `verdict ${key}`, text)));
  li.append(head, list);
  return li;
}

/** Keeps *card* listing who played the player's codes (only the code *only*, if given), from
    *first* (the page's own copy) and then the API; the card shows once anyone has played.
    Codes no longer ranked fold into the card's "older" box, if it has one. Stops when *only*
    is not one of the player's codes. */
export function followChallenges(card, first, names = {}, only = null) {
  const list = $('ul.challenges', card);
  const older = $('details.older', card); // codes past their ranked life fold in here
  const show = (challenges) => {
    const heard = challenges.filter((c) => c.players > 0 && (!only || c.code === only));
    const old = older ? heard.filter((c) => c.open === false) : [];
    list.replaceChildren(...heard.filter((c) => !old.includes(c)).map((c) => challengeItem(c, names)));
    if (older) {
      $('ul', older).replaceChildren(...old.map((c) => challengeItem(c, names)));
      older.hidden = !old.length;
    }
    card.hidden = !heard.length;
  };
  if (first) show(first);
  const stop = watch('/players/me/challenges', (data) => {
    show(data.challenges);
    if (only && !data.challenges.some((c) => c.code === only)) stop();
  });
  return stop;
}
