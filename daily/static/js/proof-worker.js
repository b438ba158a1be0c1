/* The Web Worker that solves a new player's proof of work (proof.js): it posts the share of
   numbers searched as it goes, then the number found (null if none). */
import { search } from './proof.js';

globalThis.onmessage = async ({ data }) => {
  let said = 0;
  const onProgress = (progress) => {
    if (progress - said < 0.01 && progress < 1) return;  // a message a percent at most
    said = progress;
    globalThis.postMessage({ progress });
  };
  globalThis.postMessage({ number: await search(data, { onProgress }) });
};
