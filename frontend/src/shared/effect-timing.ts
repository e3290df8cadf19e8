// When the page's passive effects (useEffect) run. The page is written against React's API
// and runs on preact/compat (docs/ARCHITECTURE.md, "Start-up"). React runs the effects of a
// render caused by a discrete input event (a click, a key, typing) before the browser
// handles the next event, and other effects in a task soon after the render; Preact waits
// for the next animation frame (and up to 35 ms when none comes). A menu or dialog that
// moves the focus in an effect then let a key pressed right after the click reach the
// element behind it.

import { options } from 'preact';
import { nextTaskQueue } from './task-queue';

/** Input events after which effects run before the next event, as React treats discrete events. */
const DISCRETE_EVENTS = ['click', 'keydown', 'keyup', 'input', 'change', 'pointerdown', 'pointerup', 'mousedown', 'mouseup', 'focusin', 'focusout', 'submit', 'drop', 'paste'];

/**
 * Makes Preact run passive effects as React does: those of a render that a discrete input
 * event caused in a microtask after it, so they are done before the browser handles the
 * next event; all others in the page's next task (one MessageChannel message for every
 * render queued before it), instead of after the next animation frame. Returns the
 * function that restores the previous timing (for tests).
 */
export function adoptReactEffectTiming(): () => void {
  const previous = Object.getOwnPropertyDescriptor(options, 'requestAnimationFrame');
  const effects = nextTaskQueue('an effect flush'); // Preact reports an effect's own error itself
  // An input event marks the rest of its task (its handlers and the renders they queue) as
  // discrete; the mark is cleared in the next task.
  let inDiscreteEvent = false;
  const endOfEvent = nextTaskQueue('clearing the input mark');
  const onInput = () => {
    if (inDiscreteEvent) return;
    inDiscreteEvent = true;
    endOfEvent.push(() => {
      inDiscreteEvent = false;
    });
  };
  for (const type of DISCRETE_EVENTS) window.addEventListener(type, onInput, { capture: true });
  options.requestAnimationFrame = (run) => {
    effects.push(run);
    if (inDiscreteEvent) queueMicrotask(effects.flush);
  };
  return () => {
    for (const type of DISCRETE_EVENTS) window.removeEventListener(type, onInput, { capture: true });
    if (previous === undefined) delete options.requestAnimationFrame;
    else Object.defineProperty(options, 'requestAnimationFrame', previous);
    effects.close();
    endOfEvent.close();
  };
}
