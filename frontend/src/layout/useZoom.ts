// Zoom of the whole UI: Ctrl/Cmd + and − step through ZOOM_LEVELS, Ctrl/Cmd 0 resets; the
// level is remembered in localStorage. WebKitGTK (the Linux window) has no zoom shortcut of
// its own, and a browser's zoom would not be remembered by the app, so the page does it
// with CSS `zoom` on the root element, which both engines support.

import { useEffect } from 'react';

/** The zoom levels the shortcuts step through (1 = 100 %). */
export const ZOOM_LEVELS = [0.5, 0.67, 0.75, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 1.75, 2] as const;

/** The smallest and largest zoom levels. */
const MIN_ZOOM = 0.5;
const MAX_ZOOM = 2;

/** The localStorage key of the remembered zoom level. */
export const ZOOM_KEY = 'artifactflow.zoom';

/**
 * The zoom level after one shortcut: "in" and "out" move to the next listed level above or
 * below `current` (from an unlisted value, the nearest in that direction; staying at the
 * ends), "reset" gives 1.
 */
export function nextZoom(current: number, action: 'in' | 'out' | 'reset'): number {
  if (action === 'reset') return 1;
  if (action === 'in') return ZOOM_LEVELS.find((z) => z > current + 1e-6) ?? MAX_ZOOM;
  return [...ZOOM_LEVELS].reverse().find((z) => z < current - 1e-6) ?? MIN_ZOOM;
}

/**
 * The shortcut a key event is, or null: Ctrl/Cmd with "+", "=" (the unshifted plus key)
 * or numpad + for "in", "-" or numpad − for "out", "0" for "reset".
 */
export function zoomAction(e: Pick<KeyboardEvent, 'ctrlKey' | 'metaKey' | 'altKey' | 'key' | 'code'>): 'in' | 'out' | 'reset' | null {
  if (!(e.ctrlKey || e.metaKey) || e.altKey) return null;
  if (e.key === '+' || e.key === '=' || e.code === 'NumpadAdd') return 'in';
  if (e.key === '-' || e.key === '_' || e.code === 'NumpadSubtract') return 'out';
  if (e.key === '0' || e.code === 'Numpad0') return 'reset';
  return null;
}

/** The remembered zoom level (1 when none, or when what is stored is not a listed level). */
export function storedZoom(): number {
  let raw: string | null;
  try {
    raw = window.localStorage.getItem(ZOOM_KEY);
  } catch {
    return 1;
  }
  const z = Number(raw);
  return ZOOM_LEVELS.some((l) => Math.abs(l - z) < 1e-6) ? z : 1;
}

/** Applies a zoom level to the whole page (CSS zoom on <html>) and remembers it. */
export function applyZoom(z: number): void {
  document.documentElement.style.setProperty('zoom', z === 1 ? '' : String(z));
  try {
    if (z === 1) window.localStorage.removeItem(ZOOM_KEY);
    else window.localStorage.setItem(ZOOM_KEY, String(z));
  } catch {
    // Storage unavailable: the level holds for this session only.
  }
}

/**
 * Restores the remembered zoom and handles Ctrl/Cmd + / − / 0 for the page's lifetime
 * (the browser's own zoom for these keys is prevented, so the two never stack).
 */
export function useZoom(): void {
  useEffect(() => {
    let z = storedZoom();
    applyZoom(z);
    const onKey = (e: KeyboardEvent) => {
      const action = zoomAction(e);
      if (action === null) return;
      e.preventDefault();
      z = nextZoom(z, action);
      applyZoom(z);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
