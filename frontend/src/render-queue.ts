// When Preact renders the state updates it has queued (the page runs on preact/compat,
// docs/ARCHITECTURE.md "Start-up"). Preact's own choice is a microtask. In the window,
// WebKitGTK runs the page's run events and bound calls' results as scripts evaluated by the
// host (Wails' ExecJS), and a microtask queued there can wait until the next task of the
// page (a key press, a timer) before it runs: a streaming answer stopped on screen until the
// mouse moved. So each batch is also posted as a task (a MessageChannel message, as React's
// scheduler does); whichever comes first renders the batch, the other finds nothing to do.
import { options } from 'preact';

/**
 * Installs the render queue described above as Preact's options.debounceRendering. Call it
 * once, before the first render. Safe to call again (it replaces the previous one).
 */
export function installRenderQueue(): void {
  const channel = new MessageChannel();
  let pending: (() => void) | null = null;
  const run = () => {
    const cb = pending;
    pending = null;
    cb?.();
  };
  channel.port1.onmessage = run;
  options.debounceRendering = (cb: () => void) => {
    pending = cb;
    queueMicrotask(run);
    channel.port2.postMessage(null);
  };
}
