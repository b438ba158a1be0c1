/* A proof of work for a new player (docs/api.md, "New players"): past an address's free new
   players the server answers 429 with an ALTCHA v1 challenge; the number n from 0 to maxnumber
   whose SHA-256(salt + n) is the challenge is found with WebCrypto, in a Web Worker so the
   page stays responsive, and sent back as ALTCHA's widget sends it (base64 JSON). */

/** Digests computed at once: WebCrypto answers a batch far faster than one by one. */
export const BATCH = 500;

const hex = (buffer) => Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');

/** The number that solves *challenge*, or null if none does; *onProgress* hears the share of
    the numbers searched (0 to 1). */
export async function search(challenge, { onProgress = () => {}, subtle = globalThis.crypto.subtle } = {}) {
  const encoder = new TextEncoder();
  const { algorithm, salt, maxnumber } = challenge;
  for (let start = 0; start <= maxnumber; start += BATCH) {
    const numbers = [];
    for (let n = start; n <= Math.min(maxnumber, start + BATCH - 1); n += 1) numbers.push(n);
    const digests = await Promise.all(numbers.map((n) => subtle.digest(algorithm, encoder.encode(salt + n))));
    const at = digests.findIndex((digest) => hex(digest) === challenge.challenge);
    if (at >= 0) return numbers[at];
    onProgress(Math.min(1, (start + BATCH) / (maxnumber + 1)));
  }
  return null;
}

/** What the request carries back (the Altcha header): ALTCHA's base64 JSON payload. */
export function payload(challenge, number) {
  const { algorithm, salt, signature } = challenge;
  return btoa(JSON.stringify({ algorithm, challenge: challenge.challenge, number, salt, signature }));
}

/** Solves *challenge* in a Web Worker (here, where there is none): its payload, or null. */
export function solve(challenge, onProgress = () => {}) {
  const done = (number) => (number === null ? null : payload(challenge, number));
  if (typeof Worker === 'undefined') return search(challenge, { onProgress }).then(done);
  return new Promise((resolve) => {
    const worker = new Worker(new URL('./proof-worker.js', import.meta.url), { type: 'module' });
    const end = (number) => { worker.terminate(); resolve(done(number)); };
    worker.onmessage = ({ data }) => ('progress' in data ? onProgress(data.progress) : end(data.number));
    worker.onerror = () => search(challenge, { onProgress }).then(end);
    worker.postMessage(challenge);
  });
}
