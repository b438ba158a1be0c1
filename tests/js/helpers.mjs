// The node tests' shared setup: the play script's modules, and the fixture the server made
// (tests/web/test_js.py checks it still matches sheets.sheet_meta and the English strings).
import { readFileSync } from 'node:fs';

export const FIXTURE = JSON.parse(readFileSync(new URL('./fixture.json', import.meta.url), 'utf8'));
export const module = (name) => import(new URL(`../../daily/static/js/${name}`, import.meta.url));

/** A scorecard of *sheet* with these rows scored (every other row open: null). */
export function scorecard(sheet, scored) {
  return Object.fromEntries(sheet.rows.map((r) => [r.id, r.id in scored ? scored[r.id] : null]));
}
