() => {
  /* What a page shows that is cut, broken or too wide (tests/browser/test_holds_up.py):
     a list of problems, empty when the page holds up. */
  const problems = [];
  const shown = (el) => el.getClientRects().length > 0 && !el.closest('[hidden], .visually-hidden, svg');
  const where = (el) => `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}.${el.className || ''}`
    + ` "${el.textContent.trim().slice(0, 30)}"`;
  const clips = (el) => {
    // Its own box, then every box around it that hides what overflows (scrollers scroll).
    if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible') return true;
    const box = el.getBoundingClientRect();
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const o = getComputedStyle(a).overflowX;
      if (o === 'auto' || o === 'scroll') return false;
      if (o === 'hidden' || o === 'clip') {
        const r = a.getBoundingClientRect();
        if (box.right > r.right + 1 || box.left < r.left - 1) return true;
      }
    }
    return false;
  };
  // Every element with a digit in its own text: the number shows whole.
  for (const el of document.body.querySelectorAll('*')) {
    const own = Array.from(el.childNodes).filter((n) => n.nodeType === 3).map((n) => n.data).join('');
    if (!/\d/.test(own) || !shown(el)) continue;
    if (clips(el)) problems.push('number cut: ' + where(el));
  }
  // Labels that must read whole.
  for (const el of document.querySelectorAll('#pace, .banner summary, .game .controls button, '
      + '.die-btn .tag:not(:empty), .standings .pts, .podium li, #winner, #final-rank')) {
    if (shown(el) && clips(el)) problems.push('label cut: ' + where(el));
  }
  // A word is never broken inside a header. Players' names over a code's sheets are the one
  // exception, on purpose: at a phone's width a head-to-head of three shows every sheet whole,
  // and a long name breaks to make room (docs/web.md, the row of /f/<code>).
  for (const th of document.querySelectorAll('thead th, .standings li')) {
    if (!shown(th) || th.matches('.friends-sheet thead th.num')) continue;
    const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
        if (tops.size > 1) problems.push('word broken: ' + where(th));
      }
    }
  }
  // The game's buttons keep to one line; a held tag fits its die on one line.
  for (const b of document.querySelectorAll('.game .controls button, .handover button')) {
    if (!shown(b)) continue;
    const range = document.createRange();
    range.selectNodeContents(b);
    const tops = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
    if (tops.size > 1) problems.push('button wraps: ' + where(b));
  }
  for (const tag of document.querySelectorAll('.die-btn .tag:not(:empty)')) {
    if (!shown(tag)) continue;
    const die = tag.parentElement.getBoundingClientRect();
    const r = tag.getBoundingClientRect();
    const line = parseFloat(getComputedStyle(tag).fontSize) * 1.6;
    const cut = tag.scrollWidth > tag.clientWidth + 1;
    if (cut || r.width > die.width + 1 || r.height > line) problems.push('tag too big: ' + where(tag));
  }
  if (document.documentElement.scrollWidth > innerWidth) problems.push('page wider than the screen');
  return problems;
}
