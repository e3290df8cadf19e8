// When the page renders the state updates it has queued. The page runs on preact/compat
// (docs/ARCHITECTURE.md, "Start-up"), which by default renders them in a microtask, right
// after the script that made them. In the window every run event reaches the page as a
// script of its own, evaluated by the host (Wails' ExecJS), so a streaming answer meant one
// whole render per event: measured in the real window, thousands of renders while a long
// answer streamed, and WebKitGTK stopped painting until the mouse moved. Queued updates now
// render in a task of their own (a MessageChannel message, which React's scheduler uses too):
// the events that arrived meanwhile render once, and painting gets its turn between tasks.
import { options } from 'preact';

/**
 * Makes Preact render queued updates in the next task instead of a microtask (the rule
 * above), through options.debounceRendering. Call it once before the first render; calling it
 * again replaces the previous queue. Tests that use act are unaffected: act installs its own
 * queue while it runs.
 */
export function installRenderQueue(): void {
  const channel = new MessageChannel();
  let pending: (() => void) | null = null;
  channel.port1.onmessage = () => {
    const render = pending;
    pending = null;
    render?.();
  };
  options.debounceRendering = (render: () => void) => {
    pending = render;
    channel.port2.postMessage(null);
  };
}
