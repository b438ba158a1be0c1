/* The celebration of a finished game: a short burst of lines and confetti (a still banner
   under reduced motion), once per tab, beside the result and never over it. Its own module, so a party's winner cheers without
   loading the results module, which the game screen fetches only when a game ends. */
import { $, $$, reducedMotion, store, stored } from './page.js';

/* What a celebration never covers: the site's header, the result's title, the score, skill and
   luck, the verdict lines, and a party's winner and podium. */
const KEEP_CLEAR = 'header.top, #results-title, #final-total, #skill-line, #final-rank, #day-rank, #winner, .podium';
const GAP = 8; // px between the lowest of those and the celebration
const LEAST = 96; // px the celebration needs: with less room under them, it takes the foot

/** Where the celebration's band starts (px from the top of a screen *height* high): under the
    lowest of the *boxes* it keeps clear that shows on screen, or, with too little room left
    there, over the screen's lowest *LEAST* px. */
export function bandTop(boxes, height) {
  const shown = boxes.filter((b) => b.height > 0 && b.bottom > 0 && b.top < height);
  const top = Math.max(0, ...shown.map((b) => b.bottom)) + GAP;
  return Math.min(top, height - LEAST);
}

/* Fits the band under what it keeps clear, again whenever the page scrolls (the result is
   scrolled into view as it opens); gives the function that stops following. */
function fit(box) {
  const place = () => {
    const boxes = $$(KEEP_CLEAR).filter((el) => !el.closest('[hidden]')).map((el) => el.getBoundingClientRect());
    box.style.top = `${bandTop(boxes, window.innerHeight)}px`;
  };
  place();
  window.addEventListener('scroll', place, { passive: true });
  window.addEventListener('resize', place);
  return () => { window.removeEventListener('scroll', place); window.removeEventListener('resize', place); };
}

/** Cheers *lines* beside the result, never over it: the lines at the foot of the screen and the
    confetti in the band between them and the verdict (none under reduced motion), for a
    moment. */
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
  const unfit = fit(box);
  setTimeout(() => { box.hidden = true; unfit(); }, still ? 4000 : 2600);
}

/** Celebrates a finished game once per tab, not on every reload of its page. */
export function cheerOnce(gameId, lines) {
  const key = `daily.cheered.${gameId}`;
  if (stored('sessionStorage', key)) return;
  store('sessionStorage', key, 'yes');
  celebrate(lines);
}
