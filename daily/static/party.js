/* daily: the party page. Two to four players on one device take their turns in order;
   the server (/api/v1, mode "party") deals every player's dice and keeps every sheet.
   Strings come from the page's translated #strings and #party-strings blocks. */
(() => {
  'use strict';

  const { $, $$, readJson, fmt, api, showError, dieButton } = window.daily; // from app.js
  const S = { ...readJson('strings'), ...readJson('party-strings') };
  const BOOT = readJson('boot');

  /* -- set-up: names, ruleset, options ------------------------------------------------------- */

  function setupPage(form) {
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

  /* -- play: the dice of whoever's turn it is, every sheet ---------------------------------- */

  function playPage() {
    const sheet = BOOT.sheet;
    const diceBox = $('#dice');
    const rollButton = $('#roll');
    let state = null;
    let held = new Set();
    let busy = false;

    function holdButton(face, i) {
      const button = dieButton(face, i, held.has(i));
      button.disabled = state.finished || state.rolls_left === 0;
      button.addEventListener('click', () => {
        if (busy || button.disabled) return;
        if (held.has(i)) held.delete(i); else held.add(i);
        draw();
      });
      return button;
    }

    function drawSheets() {
      const mover = state.current;
      state.players.forEach((player, p) => {
        $(`th[data-player="${p}"]`).classList.toggle('current', p === mover);
        sheet.rows.forEach((row) => {
          const cell = $(`tr[data-row="${row.id}"] [data-cell="${p}"]`);
          cell.innerHTML = '';
          const points = player.scorecard[row.id];
          if (points !== null) { cell.textContent = points; return; }
          if (p !== mover || !(row.id in state.potential)) return;
          const button = document.createElement('button');
          button.type = 'button';
          button.className = 'pick';
          button.dataset.row = row.id;
          const value = state.potential[row.id];
          if (value === 0) button.classList.add('zero');
          button.setAttribute('aria-label', fmt(S.pickRow, { row: row.name, points: value }));
          button.textContent = value;
          button.addEventListener('click', () => pick(row.id));
          cell.appendChild(button);
        });
        $(`tr[data-sum="upper"] [data-cell="${p}"]`).textContent = player.upper;
        $(`tr[data-sum="bonus"] [data-cell="${p}"]`).textContent = player.bonus + (player.extra_bonus || 0);
        $(`tr[data-sum="total"] [data-cell="${p}"]`).textContent = player.total;
      });
    }

    function draw() {
      document.body.classList.toggle('playing', !state.finished);
      diceBox.innerHTML = '';
      if (!state.finished) state.dice.forEach((face, i) => diceBox.appendChild(holdButton(face, i)));
      const canRoll = !state.finished && state.rolls_left > 0 && held.size < state.dice.length;
      rollButton.disabled = busy || !canRoll;
      rollButton.textContent = state.rolls_left > 0 ? fmt(S.rollsLeft, { n: state.rolls_left }) : S.noRolls;
      drawSheets();
      if (state.finished) {
        $('#table .controls').hidden = true;
        $('#status').textContent = '';
        const winners = state.winners.map((i) => state.players[i].name);
        const total = state.players[state.winners[0]].total;
        $('#winner').textContent = winners.length === 1
          ? fmt(S.wins, { name: winners[0], total })
          : fmt(S.tie, { total, names: winners.join(', ') });
        $('#results').hidden = false;
        return;
      }
      const name = state.players[state.current].name;
      $('#status').textContent = fmt(S.turnOf, { name, turn: state.turn, turns: sheet.rows.length });
      const faces = state.dice.map((face) => S[`face${face}`]).join(', ');
      $('#announce').textContent = `${fmt(S.toPlay, { name })}. ${fmt(S.rolled, { faces, n: state.rolls_left })}`;
    }

    function accept(next) {
      if (!state || next.current !== state.current || next.turn !== state.turn) held = new Set();
      state = next;
      draw();
      document.body.dataset.moves = state.moves.length; // lets a reader (or a test) wait for a move
    }

    async function send(path, body) {
      busy = true;
      rollButton.disabled = true;
      const result = await api('POST', `/games/${state.id}/${path}`, { ...body, move: state.moves.length });
      busy = false;
      if (result.ok) accept(result.data);
      else { showError(result); await reload(); }
    }

    const roll = () => { if (!busy && !rollButton.disabled) send('roll', { hold: Array.from(held).sort((a, b) => a - b) }); };
    const pick = (row) => { if (!busy && !state.finished) send('score', { category: row }); };
    rollButton.addEventListener('click', roll);

    async function reload() {
      const result = await api('GET', `/games/${BOOT.game}`);
      if (result.ok) accept(result.data); else showError(result);
    }
    reload();
  }

  const form = $('#party-setup');
  if (form) setupPage(form);
  else if (BOOT.game) playPage();
})();
