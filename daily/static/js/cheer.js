/* The celebration of a finished game: a short burst of lines and confetti (a still banner
   under reduced motion), once per tab. Its own module, so a party's winner cheers without
   loading the results module, which the game screen fetches only when a game ends. */
import { $, reducedMotion, store, stored } from './page.js';

export function celebrate(lines) {
  const box = $('#celebrate');
  if (!lines.length || !box) return;
  box.innerHTML = '';
  lines.forEach((line) => {
    const p = document.createElement('p');
    p.textContent = line;
    box.appendChild(p);
  });
  const still = reducedMotion();
  if (!still) {
    for (let i = 0; i < 24; i += 1) {
      const bit = document.createElement('i');
      bit.style.setProperty('--x', `${(i * 37) % 100}vw`);
      bit.style.setProperty('--d', `${(i % 6) * 0.12}s`);
      bit.style.setProperty('--h', `${(i * 53) % 360}`);
      box.appendChild(bit);
    }
  }
  box.hidden = false; // seen, not read out: the facts under the score say the same
  setTimeout(() => { box.hidden = true; }, still ? 4000 : 2600);
}

/** Celebrates a finished game once per tab, not on every reload of its page. */
export function cheerOnce(gameId, lines) {
  const key = `daily.cheered.${gameId}`;
  if (stored('sessionStorage', key)) return;
  store('sessionStorage', key, 'yes');
  celebrate(lines);
}
