// Parts of the first screen the first frame can do without (the right-hand panel's contents)
// render from the frame after it, so the window paints its first data sooner
// (docs/ARCHITECTURE.md, "Start-up"). Once the page has painted, they render at once.
import { useEffect, useState } from 'react';

let painted = false;

/**
 * False while the page's first frame is being rendered and painted, then true (a re-render
 * of the calling component only); always true once the page has painted, so a component
 * mounted later never waits. The flip is scheduled from a requestAnimationFrame callback to
 * a task after it, i.e. after that frame has been rendered.
 */
export function useAfterFirstPaint(): boolean {
  const [after, setAfter] = useState(painted);
  useEffect(() => {
    if (after) return;
    let timer = 0;
    const frame = requestAnimationFrame(() => {
      timer = window.setTimeout(() => {
        painted = true;
        setAfter(true);
      }, 0);
    });
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [after]);
  return after;
}

/**
 * Records that the page has painted, so useAfterFirstPaint is true from the first render
 * on: for a part rendered alone, where no first frame of the window's is to wait for (the
 * panel's tests render it by itself).
 */
export function firstPaintDone(): void {
  painted = true;
}
