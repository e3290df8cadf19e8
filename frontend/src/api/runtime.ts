// What the page gets from the Wails runtime rather than from a bound service
// (frontend/wailsjs/runtime; in browser mode app/shim/shim.js provides the same): run events
// and their subscription, the browser-mode stream's reconnects, telling browser mode from
// the window, files dropped on the window, opening links in the system browser and the
// clipboard.

import { BrowserOpenURL, ClipboardSetText, EventsOn, OnFileDrop, OnFileDropOff } from '../../wailsjs/runtime/runtime';
import type { RunEvent } from '../run/event-types';
import { parseEvent } from '../run/parse-event';
import { isObject } from './call';
import { indexProgress, type IndexProgress } from './conversations';
import { nextTaskQueue, type TaskQueue } from '../shared/task-queue';

/** The runtime event on which every run event arrives (app.RunEventName). */
export const RUN_EVENT_NAME = 'run:event';

/** window.runtime exists. */
function runtimeAttached(): boolean {
  return isObject((window as unknown as Record<string, unknown>).runtime);
}

/**
 * Calls `handler` with every run event (RUN_EVENT_NAME); payloads that are not events are
 * dropped. Returns the function that unsubscribes. Without a backend it does nothing.
 */
export function onRunEvent(handler: (ev: RunEvent) => void): () => void {
  if (!runtimeAttached()) return () => undefined;
  return EventsOn(RUN_EVENT_NAME, (payload: unknown) => {
    const ev = parseEvent(payload);
    if (ev !== null) deliver(() => handler(ev));
  });
}

// Run events in batches. In the window every run event reaches the page as a script of its
// own (Wails' ExecJS), and the page's runtime (preact/compat) renders the state an event
// changed in a microtask right after it: a streaming answer meant one whole render per
// event, thousands for a long answer, and WebKitGTK stopped painting until the mouse moved.
// Batched, the events that arrive before the page's next task are handed on together in
// that task (in order, to every subscriber), and render once.
let batch: TaskQueue | null = null;

function deliver(call: () => void): void {
  if (batch === null) call();
  else batch.push(call);
}

/**
 * From now on, hands run events to onRunEvent's handlers in batches, one per task of the
 * page (the rule above), instead of each as it arrives; a handler that throws is reported
 * and the rest of the batch still runs. main.tsx calls it in the desktop window; browser
 * mode's events arrive as tasks already, and tests call it themselves.
 */
export function batchRunEvents(): void {
  batch ??= nextTaskQueue('a run event handler');
}

/** The event the browser-mode shim emits each time its event stream (re)connects. */
export const CONNECTED_EVENT_NAME = 'browser:connected';

/**
 * Calls `handler` whenever the browser-mode event stream (re)connects; events may have been
 * missed meanwhile, so the UI reloads from the store. The desktop window never emits it.
 * Returns the function that unsubscribes.
 */
export function onReconnect(handler: () => void): () => void {
  if (!runtimeAttached()) return () => undefined;
  return EventsOn(CONNECTED_EVENT_NAME, () => handler());
}

/**
 * Reports whether the page runs in browser mode (`artifactflow serve`'s shim sets
 * window.runtime.__browserMode) or without any runtime (a plain dev server), as opposed to
 * the desktop window. Dropped files then arrive as HTML5 drop events with File objects;
 * in the window they arrive only through the runtime's OnFileDrop, as paths.
 */
export function isBrowserMode(): boolean {
  const rt: unknown = (window as unknown as Record<string, unknown>).runtime;
  return !isObject(rt) || rt.__browserMode === true;
}

/**
 * In the desktop window, calls `handler` with the absolute paths of files dropped anywhere
 * on it and the drop point in window coordinates (runtime.OnFileDrop, not limited to drop
 * targets). Returns the function that stops
 * listening. In browser mode it does nothing: drops come as HTML5 events there.
 */
export function onDesktopFileDrop(handler: (paths: string[], x: number, y: number) => void): () => void {
  if (isBrowserMode()) return () => undefined;
  OnFileDrop((x, y, paths) => {
    const ps = Array.isArray(paths) ? paths.filter((p): p is string => typeof p === 'string' && p !== '') : [];
    if (ps.length > 0) handler(ps, x, y);
  }, false);
  return () => OnFileDropOff();
}

/** Reports whether `href` is a link the system browser may open (http, https or mailto). */
export function isExternalUrl(href: string): boolean {
  try {
    const u = new URL(href);
    return u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'mailto:';
  } catch {
    return false;
  }
}

/**
 * Opens `href` in the system browser (runtime.BrowserOpenURL) when it is an external link;
 * returns whether it did. The app window itself never navigates away.
 */
export function openExternal(href: string): boolean {
  if (!isExternalUrl(href)) return false;
  if (!runtimeAttached()) {
    window.open(href, '_blank', 'noopener,noreferrer');
    return true;
  }
  BrowserOpenURL(href);
  return true;
}

/**
 * Copies text to the system clipboard: through the runtime in the desktop window, through
 * navigator.clipboard in a browser. Resolves whether it worked; never rejects.
 */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (!isBrowserMode()) return await ClipboardSetText(text);
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Calls `handler` with the conversation id and progress of every index_progress event.
 * Returns the function that unsubscribes.
 */
export function onIndexProgress(handler: (conversationId: string, p: IndexProgress) => void): () => void {
  return onRunEvent((ev) => {
    if (ev.type !== 'index_progress') return;
    handler(ev.conversation_id, indexProgress(ev.data));
  });
}
