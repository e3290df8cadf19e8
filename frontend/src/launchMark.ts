// The launch mark `make bench` reads (bench/cmd/measure, "window launch-to-usable"): once the
// window's first data (the conversation list) has rendered, the page prints LAUNCH_MARK once
// through the Wails runtime's LogPrint, which the Go side writes to its output at every log
// level. In browser mode (no window.runtime.LogPrint) it does nothing.
import { useEffect } from 'react';

/** The line the window prints once its first data has rendered. */
export const LAUNCH_MARK = 'artifactflow: usable';

let marked = false;

/** Prints LAUNCH_MARK once per page, the first time `rendered` is true (after that paint). */
export function useLaunchMark(rendered: boolean): void {
  useEffect(() => {
    if (!rendered || marked) return;
    marked = true;
    const rt = (window as unknown as { runtime?: { LogPrint?: (m: string) => void } }).runtime;
    requestAnimationFrame(() => rt?.LogPrint?.(LAUNCH_MARK));
  }, [rendered]);
}
