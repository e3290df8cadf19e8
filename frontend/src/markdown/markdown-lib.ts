// The Markdown renderer (markdown.ts with marked, DOMPurify and its extensions, about 90 KB)
// is a chunk of its own: the first screen of a new window shows no Markdown, so the page
// asks for it only when a Markdown view first renders, or right after the first paint
// (App), whichever is first (docs/ARCHITECTURE.md, "Start-up"). Until it has come, a view
// shows its text as plain, escaped text and renders again once it is in.
import { useEffect, useSyncExternalStore } from 'react';

/** The renderer module. */
export type MarkdownLib = typeof import('./markdown');

let lib: MarkdownLib | null = null;
let loading: Promise<MarkdownLib> | null = null;
const listeners = new Set<() => void>();

/**
 * Loads the renderer once per page; resolves with it (at once when it is in). A failed load
 * is tried again by the next call.
 */
export function loadMarkdownLib(): Promise<MarkdownLib> {
  if (lib !== null) return Promise.resolve(lib);
  loading ??= import('./markdown').then(
    (m) => {
      lib = m;
      for (const f of listeners) f();
      return m;
    },
    (e: unknown) => {
      loading = null;
      throw e;
    },
  );
  return loading;
}

/** The renderer when it has loaded; null before. */
export function markdownLib(): MarkdownLib | null {
  return lib;
}

function subscribe(f: () => void): () => void {
  listeners.add(f);
  return () => listeners.delete(f);
}

/** The renderer for a component: null until it has loaded (asking for it), then the module. */
export function useMarkdownLib(): MarkdownLib | null {
  const m = useSyncExternalStore(subscribe, markdownLib, markdownLib);
  useEffect(() => {
    if (m === null) loadMarkdownLib().catch(() => undefined); // a view without it keeps its plain text
  }, [m]);
  return m;
}

/** Text as HTML that shows it as it is (escaped, line breaks kept): a view's content until the renderer is in. */
export function plainTextHTML(text: string): string {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `<p class="markdown-pending" style="white-space: pre-wrap">${escaped}</p>`;
}
