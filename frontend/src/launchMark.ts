// The launch mark `make bench` reads (bench/cmd/measure, "window launch-to-usable"): once the
// window's first data (the conversation list) has rendered, the page prints LAUNCH_MARK once
// through the Wails runtime's LogPrint, which the Go side writes to its output at every log
// level. Right after it, the page prints its start-up timeline (TIMELINE_PREFIX and a JSON
// array of steps), which the window drops unless ARTIFACTFLOW_TIMELINE=1 (`measure
// -timeline` reads it). In browser mode (no window.runtime.LogPrint) it does nothing.
import { useLayoutEffect } from 'react';

/** The line the window prints once its first data has rendered. */
export const LAUNCH_MARK = 'artifactflow: usable';

/** Starts the page's timeline line (Go: internal/timeline.PagePrefix). */
export const TIMELINE_PREFIX = 'artifactflow: timeline';

/** One step of the page's start-up: its name and when, in ms since the Unix epoch. */
export interface TimelineStep {
  step: string;
  at: number;
}

const markPrefix = 'af:';
let marked = false;

/** Notes a step of the page's start-up (a performance mark). */
export function markStep(step: string): void {
  performance.mark(markPrefix + step);
}

/**
 * The page's start-up so far, in time order: the navigation's request, response and DOM
 * interactive moments, when each script and stylesheet finished loading, and the steps
 * markStep noted (the first of each name), as epoch ms.
 */
export function timelineSteps(): TimelineStep[] {
  const origin = performance.timeOrigin;
  const out: TimelineStep[] = [];
  const seen = new Set<string>();
  const add = (step: string, t: number) => {
    if (t > 0 && !seen.has(step)) {
      seen.add(step);
      out.push({ step, at: origin + t });
    }
  };
  const get = (type: string) => performance.getEntriesByType(type);
  for (const n of get('navigation') as PerformanceNavigationTiming[]) {
    add('page: request sent', n.requestStart);
    add('page: HTML received', n.responseEnd);
    add('page: DOM interactive', n.domInteractive);
  }
  for (const r of get('resource') as PerformanceResourceTiming[]) {
    if (r.initiatorType === 'script' || r.initiatorType === 'link' || r.initiatorType === 'css') {
      add(`page: loaded ${r.name.replace(/^.*\//, '')}`, r.responseEnd);
    }
  }
  for (const m of get('mark')) {
    if (m.name.startsWith(markPrefix)) add(`page: ${m.name.slice(markPrefix.length)}`, m.startTime);
  }
  return out.sort((a, b) => a.at - b.at);
}

/**
 * Notes the first commit of its component, then prints LAUNCH_MARK once per page, and the
 * timeline after it, in the animation frame that first shows the data: scheduled from the
 * layout effect of the first commit where `rendered` is true, so it runs at the start of the
 * next frame, before that frame paints, as the empty Wails window's mark does (its page
 * prints from its first requestAnimationFrame). The bench compares the two moments.
 */
export function useLaunchMark(rendered: boolean): void {
  useLayoutEffect(() => markStep('first render committed'), []);
  useLayoutEffect(() => {
    if (!rendered || marked) return;
    marked = true;
    const rt = (window as unknown as { runtime?: { LogPrint?: (m: string) => void } }).runtime;
    requestAnimationFrame(() => {
      markStep('first data frame');
      rt?.LogPrint?.(LAUNCH_MARK);
      rt?.LogPrint?.(`${TIMELINE_PREFIX} ${JSON.stringify(timelineSteps())}`);
    });
  }, [rendered]);
}
