// When the page's passive effects (useEffect) run. The page is written against React's API
// and runs on preact/compat (docs/ARCHITECTURE.md, "Start-up"). React runs the effects of a
// render caused by an input event before the next event is handled, and others in a task
// soon after; Preact waits for the next animation frame (and up to 35 ms when none comes).
// A menu or dialog that moves the focus in an effect then let a key pressed right after
// the click reach the element behind it.

import { options } from 'preact';

/**
 * Makes Preact run the passive effects of each render in the page's next task (one
 * MessageChannel message for all the renders queued before it), as React's scheduler does,
 * instead of after the next animation frame. Returns the function that restores the
 * previous timing (for tests). Calling it while installed changes nothing more.
 */
export function runEffectsInNextTask(): () => void {
  const previous = Object.getOwnPropertyDescriptor(options, 'requestAnimationFrame');
  const channel = new MessageChannel();
  let queued: (() => void)[] = [];
  channel.port1.onmessage = () => {
    const calls = queued;
    queued = [];
    for (const call of calls) call(); // Preact reports an effect's error itself, per component
  };
  options.requestAnimationFrame = (flush) => {
    queued.push(flush);
    if (queued.length === 1) channel.port2.postMessage(null);
  };
  return () => {
    if (previous === undefined) delete options.requestAnimationFrame;
    else Object.defineProperty(options, 'requestAnimationFrame', previous);
    channel.port1.close();
  };
}
