/* daily: the pages' one script (every game mode plays on the same screen code). It plays through the JSON API (/api/v1, see docs/api.md);
   the server deals every die and checks every move, so nothing here decides a score.
   Every string shown comes from the page's translated #strings block. */
(() => {
  'use strict';

  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
  const readJson = (id) => {
    const el = document.getElementById(id);
    return el ? JSON.parse(el.textContent) : {};
  };
  const S = readJson('strings');
  const BOOT = readJson('boot');
  const fmt = (text, values) => text.replace(/\{(\w+)\}/g, (m, k) => (k in values ? values[k] : m));
  /* A player's name as shown: the API names a guest "Guest 1a2b" (as the server's player_name
     filter does, the script words it in the page's language); any other name stays as typed. */
  const playerName = (name) => {
    const guest = /^Guest ([0-9a-f]{4})$/.exec(name || '');
    return guest && S.guest ? fmt(S.guest, { n: guest[1] }) : name;
  };
  const REDUCED_MOTION = window.matchMedia('(prefers-reduced-motion: reduce)');
  const style = () => (document.body.classList.contains('dice-x') ? 'x' : 'f');

  /* -- the API ------------------------------------------------------------------------------ */

  async function api(method, path, body) {
    const init = { method, headers: { Accept: 'application/json' }, credentials: 'same-origin' };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const response = await fetch('/api/v1' + path, init);
    let data = null;
    try { data = await response.json(); } catch (e) { data = null; }
    return { ok: response.ok, status: response.status, data };
  }

  /* The player's words for a failed call: chosen by the error JSON's code (its message is
     English, for developers); no JSON at all means the server was not reached. */
  function errorText(result) {
    const error = result && result.data && result.data.error;
    if (!error) return S.errorNoAnswer;
    return S['error:' + error.code] || S.errorOther;
  }

  function showError(result) {
    const box = $('#message');
    if (box) box.textContent = errorText(result);
  }

  /* Starts a game ({"mode": ...}) and opens it; a game already started opens instead. */
  async function start(spec) {
    const result = await api('POST', '/games', spec);
    if (result.ok) { location.assign('/play/' + result.data.id); return; }
    const error = result.data && result.data.error;
    if (result.status === 409 && error && error.game_id) { location.assign('/play/' + error.game_id); return; }
    showError(result);
  }

  function wireStartButtons() {
    $$('[data-start]').forEach((el) => el.addEventListener('click', (event) => {
      event.preventDefault();
      el.setAttribute('aria-busy', 'true');
      start(JSON.parse(el.dataset.start)).finally(() => el.removeAttribute('aria-busy'));
    }));
  }

  /* -- header: the player's name ------------------------------------------------------------ */

  function wireName() {
    const form = $('#who');
    if (!form) return;
    const status = $('.who-status', form);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const result = await api('PATCH', '/players/me', { name: form.elements.name.value });
      if (result.ok) {
        form.elements.name.value = result.data.name;
        status.textContent = S.nameSaved;
      } else {
        status.textContent = errorText(result);
      }
    });
  }

  /* -- dice --------------------------------------------------------------------------------- */

  function dieSvg(face) {
    const ns = 'http://www.w3.org/2000/svg';
    const svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('class', 'die');
    svg.setAttribute('viewBox', '0 0 64 64');
    svg.setAttribute('aria-hidden', 'true');
    const use = document.createElementNS(ns, 'use');
    use.setAttribute('href', `#${style()}${face}`); // the page's inline sprite
    svg.appendChild(use);
    return svg;
  }

  /* The name a screen reader gives die i (0-based) showing face, held or not. */
  const dieLabel = (face, i, isHeld) => fmt(isHeld ? S.dieHeld : S.die, { n: i + 1, face: S[`face${face}`] });

  /* A die as a hold toggle: its face, pressed and tagged while held; the caller wires it. */
  function dieButton(face, i, isHeld) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'die-btn';
    button.dataset.index = i;
    button.dataset.face = face;
    button.setAttribute('aria-pressed', isHeld ? 'true' : 'false');
    button.setAttribute('aria-label', dieLabel(face, i, isHeld));
    button.appendChild(dieSvg(face));
    const tag = document.createElement('span');
    tag.className = 'tag';
    tag.setAttribute('aria-hidden', 'true');
    tag.textContent = isHeld ? S.held : '';
    button.appendChild(tag);
    return button;
  }

  /* -- share block -------------------------------------------------------------------------- */

  /* Fills the share block: the code, the link, and the text (given, or a line for *mode*). */
  function fillShare(box, { code, total, number, ruleset, mode, text: given }) {
    if (!box || !code || box.dataset.filled) return;
    box.dataset.filled = 'yes';
    const link = `${location.origin}/f/${code}`;
    $('[data-share-code]', box).textContent = code;
    $('[data-share-link]', box).value = link;
    const text = given || (mode === 'daily'
      ? fmt(S.shareText, { number, total, link })
      : fmt(S.shareFriend, { total, ruleset, link }));
    $('[data-share-text]', box).value = text;
    const values = { code, link, text };
    $$('[data-copy]', box).forEach((button) => button.addEventListener('click', async () => {
      const status = $('[data-copy-status]', box);
      try {
        await navigator.clipboard.writeText(values[button.dataset.copy]);
        status.textContent = S.copied;
      } catch (e) {
        status.textContent = S.copyFailed;
      }
    }));
  }

  /* -- today's page ------------------------------------------------------------------------- */

  function countdown(el, seconds) {
    const began = performance.now();
    const tick = () => {
      const left = Math.max(0, Math.round(seconds - (performance.now() - began) / 1000));
      if (left === 0) { el.textContent = S.newPuzzle; return; }
      const h = Math.floor(left / 3600);
      const m = Math.floor((left % 3600) / 60);
      el.textContent = fmt(S.timeLeft, { h, m: String(m).padStart(2, '0'), s: String(left % 60).padStart(2, '0') });
      setTimeout(tick, 1000 - ((performance.now() - began) % 1000));
    };
    tick();
  }

  async function showRank(el, board) {
    if (!el) return;
    const result = await api('GET', `/leaderboards/${board}?around=me&limit=1`);
    if (result.ok && result.data.me) {
      el.textContent = fmt(S.rank, { rank: result.data.me.rank, total: result.data.total });
    }
  }

  /* Draws the score distribution: one bar per band, the player's band marked. */
  async function showDistribution(date, total) {
    const chart = $('#chart');
    if (!chart) return;
    const result = await api('GET', `/daily/${date}/distribution?band=25`);
    if (!result.ok) return;
    const bands = result.data.bands || [];
    const most = Math.max(1, ...bands.map((b) => b.players));
    bands.forEach((band) => {
      const bar = document.createElement('div');
      bar.className = 'bar';
      bar.style.height = `${(100 * band.players) / most}%`;
      bar.title = `${band.from}–${band.to}: ${band.players}`;
      if (total >= band.from && total <= band.to) {
        bar.classList.add('you');
        bar.title += ` (${S.yourPlace})`;
      }
      chart.appendChild(bar);
    });
    if (bands.length) {
      $('#chart-axis').innerHTML = '';
      [bands[0].from, bands[bands.length - 1].to].forEach((label) => {
        const span = document.createElement('span');
        span.textContent = label;
        $('#chart-axis').appendChild(span);
      });
      const players = fmt(result.data.players === 1 ? S.playersOne : S.playersMany, { n: result.data.players });
      const mine = bands.find((b) => total >= b.from && total <= b.to);
      $('#chart-text').textContent = mine ? `${players}. ${fmt(S.yourBand, { low: mine.from, high: mine.to })}` : players;
      chart.setAttribute('aria-label', `${chart.getAttribute('aria-label')}: ${bands.map((b) => `${b.from}–${b.to}: ${b.players}`).join(', ')}`);
    }
  }

  function todayPage() {
    countdown($('#countdown'), BOOT.secondsLeft);
    const challenge = $('#challenge');
    if (challenge) {
      challenge.addEventListener('submit', (event) => {
        event.preventDefault();
        start({ mode: 'friend', ruleset: challenge.elements.ruleset.value });
      });
    }
    if (BOOT.finished) {
      const share = $('#share');
      fillShare(share, {
        code: share.dataset.code ? `${share.dataset.code.slice(0, 4)}-${share.dataset.code.slice(4)}` : '',
        total: share.dataset.total, number: share.dataset.number, mode: 'daily',
      });
      showRank($('#my-rank'), `daily/${BOOT.date}`);
      showDistribution(BOOT.date, Number(share.dataset.total));
    }
  }

  /* -- the game screen: every mode ------------------------------------------------------------ */

  /* One game screen for daily, friend, solo, computer and party games (templates/_game.html):
     the same dice, Roll, sheet, keyboard, scratch confirmation, pace and roll animation.
     A sheet is a column: yours; yours and the computer's; or one per party player. */
  function playPage() {
    const sheet = BOOT.sheet;
    const rowNames = Object.fromEntries(sheet.rows.map((r) => [r.id, r.name]));
    const diceBox = $('#dice');
    const rollButton = $('#roll');
    const holdsKey = `daily.holds.${BOOT.game}`;
    let state = null;
    let held = new Set();
    let busy = false;
    let current = -1; // index into the open rows picked with the arrow keys

    const isParty = () => Boolean(state && state.players);
    const sheets = () => (isParty() ? state.players : [state, state.computer].filter(Boolean));
    const mover = () => (isParty() ? state.current : 0);
    const openRows = () => sheet.rows.filter((r) => state && !state.finished && r.id in state.potential);
    const cell = (row, p) => $(`tr[data-row="${row}"] [data-cell="${p}"]`);
    const sum = (name, p) => $(`tr[data-sum="${name}"] [data-cell="${p}"]`);

    /* Holds wait in sessionStorage until the roll is sent, so a reload keeps them. */
    function saveHolds() {
      try {
        sessionStorage.setItem(holdsKey, JSON.stringify({ moves: state.move_count, hold: Array.from(held) }));
      } catch (e) { /* private mode: holds live as long as the page */ }
    }
    function loadHolds() {
      try {
        const saved = JSON.parse(sessionStorage.getItem(holdsKey) || 'null');
        if (saved && saved.moves === state.move_count) held = new Set(saved.hold.filter((i) => i < state.dice.length));
      } catch (e) { held = new Set(); }
    }

    function drawDice() {
      diceBox.innerHTML = '';
      if (state.finished) return;
      state.dice.forEach((face, i) => {
        const button = dieButton(face, i, held.has(i));
        button.disabled = state.rolls_left === 0;
        button.addEventListener('click', () => toggle(i));
        diceBox.appendChild(button);
      });
    }

    function toggle(i) {
      if (busy || !state || state.finished || state.rolls_left === 0 || i >= state.dice.length) return;
      if (held.has(i)) held.delete(i); else held.add(i);
      const button = diceBox.children[i];
      button.setAttribute('aria-pressed', held.has(i) ? 'true' : 'false');
      button.setAttribute('aria-label', dieLabel(state.dice[i], i, held.has(i)));
      $('.tag', button).textContent = held.has(i) ? S.held : '';
      saveHolds();
      learned();
      drawRoll();
    }

    function drawRoll() {
      const canRoll = !state.finished && state.rolls_left > 0 && held.size < state.dice.length;
      rollButton.disabled = busy || !canRoll;
      rollButton.textContent = state.rolls_left > 0 ? fmt(S.rollAgain, { n: state.rolls_left }) : S.noRolls;
    }

    function paceText(mine) {
      if (state.finished) return ['', '']; // the pace is a hint for play, not a verdict
      const upper = sheet.rows.filter((r) => r.face && mine.scorecard[r.id] !== null);
      if (!upper.length || mine.bonus > 0) return mine.bonus > 0 ? [S.bonusMade, 'pace-ahead'] : ['', ''];
      const ahead = Math.round(upper.reduce((total, r) => total + mine.scorecard[r.id] - r.face * sheet.par, 0));
      if (ahead > 0) return [fmt(S.ahead, { n: ahead }), 'pace-ahead'];
      if (ahead < 0) return [fmt(S.behind, { n: -ahead }), 'pace-behind'];
      return [S.onPace, ''];
    }

    function pickButton(row, open) {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'pick';
      const value = state.potential[row.id];
      if (value === 0) button.classList.add('zero');
      if (open[current] && open[current].id === row.id) button.classList.add('current');
      button.dataset.row = row.id;
      button.setAttribute('aria-label', fmt(S.pickRow, { row: row.name, points: value }));
      const pts = document.createElement('span');
      pts.className = 'pts';
      pts.textContent = value;
      button.appendChild(pts);
      button.addEventListener('click', () => pick(row.id));
      button.addEventListener('focus', () => { current = openRows().findIndex((r) => r.id === row.id); });
      return button;
    }

    function drawSheet() {
      const open = openRows();
      if (current >= open.length) current = open.length - 1;
      const who = mover();
      sheets().forEach((mine, p) => {
        const head = $(`th[data-player="${p}"]`);
        if (head) head.classList.toggle('current', isParty() && p === who && !state.finished);
        sheet.rows.forEach((row) => {
          const box = cell(row.id, p);
          box.innerHTML = '';
          box.classList.remove('zero');
          const points = mine.scorecard[row.id];
          if (points !== null) {
            box.textContent = points;
            box.classList.toggle('zero', points === 0);
          } else if (p === who && row.id in state.potential && !state.finished) {
            box.appendChild(pickButton(row, open));
          }
        });
        sum('upper', p).textContent = mine.upper;
        sum('bonus', p).textContent = mine.bonus;
        sum('extra', p).textContent = mine.extra_bonus || 0;
        sum('total', p).textContent = mine.total;
        if (mine.extra_bonus) $('tr[data-sum="extra"]').hidden = false;
      });
      if (isParty()) $('#sheet').dataset.current = state.finished ? '' : who;
      const [text, cls] = paceText(sheets()[who]);
      const pace = $('#pace');
      pace.textContent = text;
      pace.className = cls;
    }

    function drawStatus() {
      const faces = state.dice.map((face) => S[`face${face}`]).join(', ');
      const rolled = fmt(S.rolled, { faces, n: state.rolls_left });
      const turns = sheet.rows.length;
      if (state.finished) {
        $('#status').textContent = '';
        $('#announce').textContent = '';
      } else if (isParty()) {
        const name = state.players[state.current].name;
        $('#status').textContent = fmt(S.turnOf, { name, turn: state.turn, turns });
        $('#announce').textContent = `${fmt(S.toPlay, { name })}. ${rolled}`;
      } else {
        $('#status').textContent = fmt(S.turn, { turn: state.turn, turns });
        // Screen readers hear each roll: the faces in order, then how many rolls are left.
        $('#announce').textContent = rolled;
      }
      const versus = $('#versus');
      const target = BOOT.target;
      const scored = sheet.rows.filter((r) => state.scorecard && state.scorecard[r.id] !== null).length;
      if (target && scored > 0 && target.byTurn.length) {
        const t = Math.min(scored, target.byTurn.length);
        versus.hidden = false;
        versus.textContent = fmt(S.vs, { turn: t, you: state.total, name: playerName(target.name), them: target.byTurn[t - 1] });
      }
    }

    /* The computer's last turn step by step. */
    function drawOpponent() {
      const them = state.computer;
      const box = $('#opponent');
      if (!them || !box) return;
      box.hidden = them.turns === 0;
      const list = $('#their-turn');
      list.innerHTML = '';
      them.last_turn.forEach((step) => {
        const item = document.createElement('li');
        const dice = document.createElement('span');
        dice.className = step.hold ? 'dice small holding' : 'dice small';
        step.dice.forEach((face, i) => {
          const svg = dieSvg(face);
          if (step.hold && step.hold.includes(i)) svg.classList.add('kept');
          dice.appendChild(svg);
        });
        item.appendChild(dice);
        const text = step.score
          ? fmt(S.theirScore, { points: step.points, row: rowNames[step.score] })
          : fmt(S.theirKeep, { n: step.hold.length });
        item.appendChild(document.createTextNode(` ${text}`));
        list.appendChild(item);
      });
    }

    /* -- the first game: a lesson, once ---------------------------------------------------- */

    const TAUGHT = 'daily.taught';
    function teach() {
      const box = $('#teach');
      let taught = true;
      try { taught = localStorage.getItem(TAUGHT) === 'yes'; } catch (e) { taught = true; }
      box.hidden = taught || state.finished || state.move_count > 0;
      document.body.classList.toggle('teaching', !box.hidden);
    }
    function learned() {
      const box = $('#teach');
      if (box.hidden) return;
      box.hidden = true;
      document.body.classList.remove('teaching');
      try { localStorage.setItem(TAUGHT, 'yes'); } catch (e) { /* shown again next time */ }
    }

    /* -- party: the hand-over between players ---------------------------------------------- */

    function handOver() {
      const box = $('#handover');
      if (!box || state.finished) { if (box) box.hidden = true; return; }
      const key = `daily.handover.${BOOT.game}`;
      const turnKey = `${state.turn}:${state.current}`;
      let seen = '';
      try { seen = sessionStorage.getItem(key) || ''; } catch (e) { seen = turnKey; }
      if (seen === turnKey || state.players.length < 2) { box.hidden = true; return; }
      const name = state.players[state.current].name;
      $('#handover-text').textContent = fmt(S.passTo, { name });
      const go = $('#handover-go');
      go.textContent = fmt(S.iAm, { name });
      go.onclick = () => {
        try { sessionStorage.setItem(key, turnKey); } catch (e) { /* asks again on reload */ }
        box.hidden = true;
        document.body.classList.remove('handing-over');
        rollButton.focus();
      };
      box.hidden = false;
      document.body.classList.add('handing-over');
      go.focus();
    }

    /* -- the end ---------------------------------------------------------------------------- */

    function celebrate(lines) {
      const box = $('#celebrate');
      if (!lines.length || !box) return;
      box.innerHTML = '';
      lines.forEach((line) => {
        const p = document.createElement('p');
        p.textContent = line;
        box.appendChild(p);
      });
      if (!REDUCED_MOTION.matches) {
        for (let i = 0; i < 24; i += 1) {
          const bit = document.createElement('i');
          bit.style.setProperty('--x', `${(i * 37) % 100}vw`);
          bit.style.setProperty('--d', `${(i % 6) * 0.12}s`);
          bit.style.setProperty('--h', `${(i * 53) % 360}`);
          box.appendChild(bit);
        }
      }
      box.hidden = false; // seen, not read out: the facts under the score say the same
      setTimeout(() => { box.hidden = true; }, REDUCED_MOTION.matches ? 4000 : 2600);
    }

    /* The game as squares, row by row, without a die: green at or over par, yellow under,
       black for a zero; a star for the bonus. */
    function shareGrid(mine) {
      const mark = (row) => {
        const points = mine.scorecard[row.id];
        if (!points) return '⬛';
        if (row.face) return points >= row.face * sheet.par ? '🟩' : '🟨';
        return '🟩';
      };
      const upper = sheet.rows.slice(0, sheet.upperRows).map(mark).join('');
      const lower = sheet.rows.slice(sheet.upperRows).map(mark);
      const half = Math.ceil(lower.length / 2);
      const lines = [upper + (mine.bonus > 0 ? '⭐' : ''), lower.slice(0, half).join(''), lower.slice(half).join('')];
      return lines.filter(Boolean).join('\n');
    }

    async function myEntry(board) {
      const result = await api('GET', `/leaderboards/${board}?around=me&limit=1`);
      return result.ok ? { me: result.data.me, total: result.data.total } : { me: null, total: 0 };
    }

    function fact(text) {
      const item = document.createElement('li');
      item.textContent = text;
      $('#facts').appendChild(item);
    }

    /* Win, lose or tie against the friend's score, in words (target games). */
    function targetVerdict() {
      const target = BOOT.target;
      if (!target || !target.finished || !target.byTurn.length) return '';
      const them = target.byTurn[target.byTurn.length - 1];
      const values = { name: playerName(target.name), you: state.total, them };
      if (state.total > them) return fmt(S.beat, values);
      if (state.total < them) return fmt(S.lost, values);
      return fmt(S.tiedWith, values);
    }

    async function drawVerdict() {
      const rankBox = $('#final-rank');
      const yay = [];
      const allSame = sheet.rows[sheet.rows.length - 1];
      if (state.bonus > 0) { fact(fmt(S.bonusGot, { n: state.bonus })); yay.push(S.yayBonus); }
      else fact(fmt(S.bonusShort, { n: Math.max(0, sheet.threshold - state.upper) }));
      if (state.scorecard[allSame.id] > 0) yay.push(fmt(S.yayAllSame, { row: allSame.name }));
      const words = targetVerdict();
      if (words) rankBox.textContent = words;
      if (state.mode === 'computer') {
        const said = { you: S.youWin, computer: S.computerWins, tie: S.tie };
        $('#winner').textContent = state.winner ? said[state.winner] : '';
      }
      if (state.review) {
        // Held off the rankings: no rank, no percentile, nothing to celebrate yet.
        rankBox.textContent = state.review === 'held' ? S.underReview : S.reviewRemoved;
        return;
      }
      if (state.mode === 'daily') {
        const [day, streak, best] = await Promise.all([
          myEntry(`daily/${state.date}`), myEntry('streak'), myEntry('best-day'),
        ]);
        if (day.me) {
          const beaten = day.total > 1 ? Math.round((100 * (day.total - day.me.rank)) / (day.total - 1)) : 100;
          rankBox.textContent = `${fmt(S.rank, { rank: day.me.rank, total: day.total })}, ${fmt(S.percentile, { n: beaten })}`;
        }
        if (streak.me) {
          fact(fmt(S.streak, { n: streak.me.score }));
          if ([3, 7, 14, 30, 50, 100, 200, 365].includes(streak.me.score)) yay.push(fmt(S.yayStreak, { n: streak.me.score }));
        }
        if (best.me) {
          fact(fmt(S.bestDay, { n: best.me.score }));
          if (best.me.score === state.total && streak.me && streak.me.score > 1) yay.push(S.yayBest);
        }
        $('#dist').hidden = false;
        showDistribution(state.date, state.total);
      } else if (state.rank && !words) {
        rankBox.textContent = fmt(S.rankOnly, { rank: state.rank });
      } else if (state.mode === 'friend' && state.code && !words) {
        showRank(rankBox, `friend/${state.code.replace('-', '')}`);
      }
      cheerOnce(yay);
    }

    /* Celebrates a finished game once per tab, not on every reload of its page. */
    function cheerOnce(lines) {
      const key = `daily.cheered.${BOOT.game}`;
      try {
        if (sessionStorage.getItem(key)) return;
        sessionStorage.setItem(key, 'yes');
      } catch (e) { /* no storage: cheer anyway */ }
      celebrate(lines);
    }

    function drawResults() {
      $('#table .controls').hidden = true;
      $('.kbd-help').hidden = true;
      $('#results').hidden = false;
      if (isParty()) {
        const winners = state.winners.map((i) => state.players[i].name);
        state.winners.forEach((i) => $(`th[data-player="${i}"]`).classList.add('winner'));
        const total = state.players[state.winners[0]].total;
        $('#winner').textContent = winners.length === 1
          ? fmt(S.wins, { name: winners[0], total })
          : fmt(S.tieAt, { total, names: winners.join(', ') });
        cheerOnce([$('#winner').textContent]);
        return;
      }
      $('#final-total').textContent = state.total;
      if (!$('#results').dataset.drawn) {
        $('#results').dataset.drawn = 'yes';
        drawVerdict();
      }
      const share = $('#share');
      if (!state.share_code) { share.hidden = true; return; }
      const grid = shareGrid(state);
      $('#share-grid').textContent = grid;
      const head = state.mode === 'daily'
        ? fmt(S.shareDaily, { number: state.number, total: state.total })
        : fmt(S.shareGame, { ruleset: share.dataset.ruleset, total: state.total });
      const link = `${location.origin}/f/${state.share_code}`;
      const text = `${head}\n${grid}\n${link}`;
      fillShare(share, { code: state.share_code, text });
      $('#share-now').onclick = async () => {
        const status = $('[data-copy-status]', share);
        try {
          if (navigator.share) { await navigator.share({ text }); status.textContent = S.shared; return; }
          await navigator.clipboard.writeText(text);
          status.textContent = S.copied;
        } catch (e) {
          if (e && e.name === 'AbortError') return; // the player closed the share sheet
          status.textContent = S.copyFailed;
        }
      };
    }

    /* "Best move": the ranked actions with their expected final scores; a keep can be picked. */
    async function showHints() {
      learned(); // asking for the best move is a way in too
      const list = $('#hints');
      const result = await api('GET', `/games/${state.id}/hint`);
      if (!result.ok) { showError(result); return; }
      list.innerHTML = '';
      result.data.actions.slice(0, 5).forEach((action) => {
        const item = document.createElement('li');
        let label = fmt(S.hintScore, { row: rowNames[action.score] });
        if (!action.score) label = action.keep.length ? fmt(S.hintKeep, { dice: action.keep.join(' ') }) : S.hintRollAll;
        const value = fmt(S.hintValue, { value: action.value.toFixed(1) });
        const loss = action.loss > 0 ? ` (${fmt(S.hintLoss, { loss: action.loss.toFixed(1) })})` : '';
        item.textContent = `${label}: ${value}${loss}`;
        item.dataset.hold = action.hold ? action.hold.join(',') : '';
        if (action.hold) {
          item.classList.add('pickable');
          item.addEventListener('click', () => {
            held = new Set(action.hold);
            saveHolds();
            drawDice();
            drawRoll();
          });
        }
        list.appendChild(item);
      });
      list.hidden = false;
    }

    function draw() {
      document.body.classList.toggle('playing', !state.finished);
      drawDice();
      drawRoll();
      drawSheet();
      drawStatus();
      drawOpponent();
      const hints = $('#hints');
      if (hints) hints.hidden = true;
      const hintButton = $('#hint');
      if (hintButton) hintButton.hidden = state.finished;
      if (state.finished) drawResults();
    }

    // A move's answer carries what the move changed (of the scorecard, the row it scored).
    function changed(data) {
      return { ...state, ...data, scorecard: { ...state.scorecard, ...data.scorecard } };
    }

    function accept(next) {
      const before = state;
      const newTurn = !before || next.turn !== before.turn || next.finished
        || (next.players && next.current !== before.current);
      state = next;
      if (newTurn) { held = new Set(); loadHolds(); }
      draw();
      teach();
      if (isParty() && (!before || before.current !== state.current || before.turn !== state.turn)) handOver();
      // How many moves the page shows: lets a reader (or a test) wait for a move to land.
      document.body.dataset.moves = state.move_count;
    }

    async function roll() {
      if (busy || rollButton.disabled) return;
      busy = true;
      learned();
      drawRoll();
      const hold = Array.from(held).sort((a, b) => a - b);
      $$('.die-btn', diceBox).forEach((b, i) => { if (!held.has(i)) b.classList.add('rolling'); });
      const [result] = await Promise.all([
        api('POST', `/games/${state.id}/roll`, { hold, move: state.move_count }),
        new Promise((resolve) => setTimeout(resolve, REDUCED_MOTION.matches ? 0 : 450)),
      ]);
      busy = false;
      if (!result.ok) { showError(result); await reload(); return; }
      const rolled = state.dice.map((_, i) => !held.has(i));
      accept(changed(result.data));
      saveHolds();
      // The fresh dice land with a small bounce; the held ones stay still.
      $$('.die-btn', diceBox).forEach((b, i) => { if (rolled[i]) b.classList.add('landed'); });
      // Focus stays on Roll while it can roll; after the last roll, on the best row to score.
      if (!rollButton.disabled) rollButton.focus();
      else {
        const first = $('button.pick');
        if (first) first.focus();
      }
    }

    async function pick(row) {
      if (busy || state.finished) return;
      if (state.potential[row] === 0 && !(await confirmScratch(row))) return;
      busy = true;
      learned();
      const result = await api('POST', `/games/${state.id}/score`, { category: row, move: state.move_count });
      busy = false;
      if (result.ok) {
        current = -1;
        accept(changed(result.data));
        if (!state.finished && !document.body.classList.contains('handing-over')) rollButton.focus();
        else if (state.finished) $('#results').focus();
      } else { showError(result); await reload(); }
    }

    function confirmScratch(row) {
      const dialog = $('#confirm');
      $('#confirm-text').textContent = fmt(S.scratch, { row: rowNames[row] });
      return new Promise((resolve) => {
        dialog.addEventListener('close', () => resolve(dialog.returnValue === 'yes'), { once: true });
        dialog.returnValue = '';
        dialog.showModal();
      });
    }

    function move(step) {
      const open = openRows();
      if (!open.length) return;
      current = current < 0 ? (step > 0 ? 0 : open.length - 1) : (current + step + open.length) % open.length;
      drawSheet();
      const button = $(`button.pick[data-row="${open[current].id}"]`);
      if (button) button.focus();
    }

    document.addEventListener('keydown', (event) => {
      if (!state || state.finished || event.ctrlKey || event.metaKey || event.altKey) return;
      if (document.body.classList.contains('handing-over')) return;
      const target = event.target;
      if (target.closest('input, textarea, select, dialog, form')) return;
      const key = event.key;
      const onDie = target.closest('.die-btn');
      if (/^[1-9]$/.test(key)) {
        toggle(Number(key) - 1);
        event.preventDefault();
      } else if (key === ' ' && onDie) {
        // Space on a focused die holds it (as a button should), it does not roll.
        toggle(Number(onDie.dataset.index));
        event.preventDefault();
      } else if (key === 'r' || key === 'R' || (key === ' ' && !target.closest('button, a'))) {
        roll();
        event.preventDefault();
      } else if (key === 'ArrowDown' || key === 'ArrowUp') {
        move(key === 'ArrowDown' ? 1 : -1);
        event.preventDefault();
      } else if (key === 'Enter' && !target.closest('button, a')) {
        const open = openRows();
        if (open[current]) { pick(open[current].id); event.preventDefault(); }
      }
    });
    rollButton.addEventListener('click', roll);
    const hintButton = $('#hint');
    if (hintButton) hintButton.addEventListener('click', showHints);
    $('#teach-ok').addEventListener('click', () => { learned(); rollButton.focus(); });

    async function reload() {
      const result = await api('GET', `/games/${BOOT.game}`);
      if (result.ok) accept(result.data); else showError(result);
    }
    reload();
  }

  /* -- party set-up: names, ruleset, options -------------------------------------------------- */

  function partySetup(form) {
    const ruleset = form.elements.ruleset;
    const showOptions = () => $$('.party-options', form).forEach((box) => {
      box.hidden = box.dataset.ruleset !== ruleset.value;
    });
    ruleset.addEventListener('change', showOptions);
    showOptions();
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const players = $$('input[name="player"]', form).map((i) => i.value.trim()).filter(Boolean);
      if (players.length < 2) { $('#message').textContent = S.needTwo; return; }
      const options = {};
      $$(`.party-options[data-ruleset="${ruleset.value}"] select`, form).forEach((select) => {
        options[select.name] = JSON.parse(select.value);
      });
      const result = await api('POST', '/games', { mode: 'party', ruleset: ruleset.value, options, players });
      if (result.ok) location.assign('/party/' + result.data.id); else showError(result);
    });
  }

  /* -- friend page -------------------------------------------------------------------------- */

  async function friendPage() {
    const share = $('#share');
    if (share) {
      const code = share.dataset.code;
      fillShare(share, {
        code: `${code.slice(0, 4)}-${code.slice(4)}`, total: share.dataset.total,
        ruleset: share.dataset.ruleset, mode: 'friend',
      });
    }
    const result = await api('GET', `/leaderboards/friend/${BOOT.code}?limit=50`);
    if (!result.ok || !result.data.entries.length) return;
    const table = $('#code-board');
    const body = $('tbody', table);
    result.data.entries.forEach((entry) => {
      const tr = document.createElement('tr');
      if (result.data.me && result.data.me.player_id === entry.player_id) tr.className = 'me';
      [entry.rank, playerName(entry.name), entry.score].forEach((value, i) => {
        const td = document.createElement(i === 1 ? 'th' : 'td');
        // The leaderboards' look (templates/leaderboard.html): rank, name, score.
        if (i === 1) { td.scope = 'row'; td.className = 'name'; } else td.className = i === 0 ? 'rank' : 'score';
        td.textContent = value;
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    table.hidden = false;
    $('#code-board-empty').hidden = true;
  }

  /* -- solo page: a ruleset and its edition options ------------------------------------------ */

  function soloPage() {
    $$('form.solo').forEach((form) => form.addEventListener('submit', (event) => {
      event.preventDefault();
      const options = {};
      $$('select:not([data-level])', form).forEach((select) => { options[select.name] = JSON.parse(select.value); });
      const spec = { mode: form.dataset.mode || 'solo', ruleset: form.dataset.ruleset, options };
      const level = $('select[data-level]', form);
      if (level) spec.level = level.value; // the computer's level (the /computer page)
      start(spec);
    }));
  }

  /* A strategy table being built (the /computer page): reload when it should be ready, so
     the note goes and the exact computer plays; not once the player has started choosing. */
  function waitForTables() {
    const waits = $$('[data-wait]');
    if (!waits.length) return;
    const seconds = Math.min(...waits.map((note) => Number(note.dataset.refresh) || 30));
    let touched = false;
    ['change', 'input', 'submit'].forEach((type) => document.addEventListener(type, () => { touched = true; }, true));
    setTimeout(() => { if (!touched) window.location.reload(); }, seconds * 1000);
  }

  /* -- start -------------------------------------------------------------------------------- */

  wireName();
  wireStartButtons();
  const page = document.body.dataset.page;
  if (page === 'today') todayPage();
  else if (page === 'play' || (page === 'party' && BOOT.game)) playPage();
  else if (page === 'party' && $('#party-setup')) partySetup($('#party-setup'));
  else if (page === 'friend') friendPage();
  else if (page === 'solo' || page === 'computer') soloPage();
  if (page === 'computer') waitForTables();
})();
