import { useCallback, useEffect, useState } from 'react';

/**
 * The window's column layout the user controls: the widths of the sidebar and of the
 * artifacts panel in CSS pixels, null for the default, and whether each is collapsed.
 * Stored in localStorage under LAYOUT_KEY, so it survives restarts.
 */
export interface Layout {
  /** The sidebar's width in px; null: the default for the window's width. */
  sidebar: number | null;
  /** The panel's width in px; null: the default for the window's width. */
  panel: number | null;
  sidebarCollapsed: boolean;
  panelCollapsed: boolean;
}

/** The column a splitter resizes. */
export type Column = 'sidebar' | 'panel';

/** The localStorage key of the stored layout (JSON of Layout plus a version). */
export const LAYOUT_KEY = 'artifactflow.layout';

/** Bounds of each column in px; the chat column keeps at least CHAT_MIN between them. */
export const BOUNDS: Readonly<Record<Column, { min: number; max: number }>> = {
  sidebar: { min: 180, max: 480 },
  panel: { min: 280, max: 960 },
};

/** The narrowest the chat column may become, in px. */
export const CHAT_MIN = 380;

/** The layout with nothing stored: default widths, nothing collapsed. */
export const DEFAULT_LAYOUT: Layout = { sidebar: null, panel: null, sidebarCollapsed: false, panelCollapsed: false };

/**
 * The default width of a column for a window `viewport` px wide: the sidebar 252 px (220
 * under 1120 px), the panel 31% of the window within 340-480 px (330 under 1120 px), as
 * the fixed layout had.
 */
export function defaultWidth(column: Column, viewport: number): number {
  if (column === 'sidebar') return viewport < 1120 ? 220 : 252;
  if (viewport < 1120) return 330;
  return Math.min(480, Math.max(340, Math.round(viewport * 0.31)));
}

/**
 * The range a column's width may take in a window `viewport` px wide, given the other
 * column's width (0 when collapsed): its own bounds, and at most what leaves the chat
 * column CHAT_MIN. The maximum never falls under the minimum.
 */
export function widthRange(column: Column, viewport: number, other: number): { min: number; max: number } {
  const b = BOUNDS[column];
  const room = viewport - other - CHAT_MIN;
  return { min: b.min, max: Math.max(b.min, Math.min(b.max, Math.floor(room))) };
}

/** Clamps `width` (rounded to whole px) into `range`; a non-finite width gives the minimum. */
export function clampWidth(width: number, range: { min: number; max: number }): number {
  if (!Number.isFinite(width)) return range.min;
  return Math.min(range.max, Math.max(range.min, Math.round(width)));
}

/** The widths the columns get in a window `viewport` px wide (0 for a collapsed one). */
export interface Widths {
  sidebar: number;
  panel: number;
}

/**
 * The widths shown for `layout` in a window `viewport` px wide: a collapsed column is 0; the
 * panel is clamped first against the sidebar's own bounded width, then the sidebar against
 * the panel's, so the chat column keeps CHAT_MIN whenever the window allows it.
 */
export function effectiveWidths(layout: Layout, viewport: number): Widths {
  const sidebarWant = layout.sidebarCollapsed ? 0 : clampWidth(layout.sidebar ?? defaultWidth('sidebar', viewport), BOUNDS.sidebar);
  const panel = layout.panelCollapsed
    ? 0
    : clampWidth(layout.panel ?? defaultWidth('panel', viewport), widthRange('panel', viewport, sidebarWant));
  const sidebar = layout.sidebarCollapsed ? 0 : clampWidth(sidebarWant, widthRange('sidebar', viewport, panel));
  return { sidebar, panel };
}

/**
 * Reads a stored layout from its JSON text. Anything unreadable (no text, bad JSON, wrong
 * types) falls back field by field to DEFAULT_LAYOUT; widths are clamped to BOUNDS.
 */
export function parseLayout(text: string | null): Layout {
  if (text === null || text === '') return { ...DEFAULT_LAYOUT };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ...DEFAULT_LAYOUT };
  }
  if (typeof raw !== 'object' || raw === null) return { ...DEFAULT_LAYOUT };
  const r = raw as Record<string, unknown>;
  const width = (c: Column): number | null => {
    const v = r[c];
    return typeof v === 'number' && Number.isFinite(v) ? clampWidth(v, BOUNDS[c]) : null;
  };
  return {
    sidebar: width('sidebar'),
    panel: width('panel'),
    sidebarCollapsed: r.sidebarCollapsed === true,
    panelCollapsed: r.panelCollapsed === true,
  };
}

/** The JSON stored for `layout`. */
export function serializeLayout(layout: Layout): string {
  return JSON.stringify({ v: 1, ...layout });
}

/**
 * The CSS zoom of the whole page (the root element's, set by the zoom shortcuts), 1 when
 * none. Column widths are in the page's CSS pixels, so the window's width in those pixels
 * is its inner width divided by this, and a pointer moving d screen pixels moves a
 * splitter by d / zoom.
 */
export function pageZoom(): number {
  const z = parseFloat(getComputedStyle(document.documentElement).getPropertyValue('zoom'));
  return Number.isFinite(z) && z > 0 ? z : 1;
}

/** The window's width in the page's CSS pixels (see pageZoom). */
function viewportWidth(): number {
  return Math.round(window.innerWidth / pageZoom());
}

function readStored(): Layout {
  try {
    return parseLayout(window.localStorage.getItem(LAYOUT_KEY));
  } catch {
    // Storage may be unavailable (privacy settings): the layout is then not remembered.
    return { ...DEFAULT_LAYOUT };
  }
}

/** What useLayout returns. */
export interface LayoutControls {
  layout: Layout;
  /** The widths shown now (0 for a collapsed column). */
  widths: Widths;
  /** The window's width in the page's CSS px (its inner width over the page's zoom). */
  viewport: number;
  /** Sets a column's width in px (clamped to what the window allows). */
  setWidth: (column: Column, width: number) => void;
  /** Back to the default width of a column. */
  resetWidth: (column: Column) => void;
  /** Collapses or expands a column. */
  toggle: (column: Column) => void;
}

/**
 * The layout state of the window: read from localStorage once, written back on every
 * change, with the widths recomputed when the window is resized or the page zoomed (the
 * stored widths stay as the user set them; only what is shown is clamped).
 */
export function useLayout(): LayoutControls {
  const [layout, setLayout] = useState<Layout>(readStored);
  const [viewport, setViewport] = useState(viewportWidth);

  // The window's width changes with a resize and with the page's zoom (a style on <html>).
  useEffect(() => {
    const onResize = () => setViewport(viewportWidth());
    window.addEventListener('resize', onResize);
    const zoom = new MutationObserver(onResize);
    zoom.observe(document.documentElement, { attributes: true, attributeFilter: ['style'] });
    return () => {
      window.removeEventListener('resize', onResize);
      zoom.disconnect();
    };
  }, []);

  useEffect(() => {
    try {
      window.localStorage.setItem(LAYOUT_KEY, serializeLayout(layout));
    } catch {
      // Not remembered; the layout still works for this session.
    }
  }, [layout]);

  const widths = effectiveWidths(layout, viewport);

  const setWidth = useCallback(
    (column: Column, width: number) => {
      setLayout((l) => {
        const other = column === 'sidebar' ? effectiveWidths(l, viewport).panel : effectiveWidths(l, viewport).sidebar;
        const w = clampWidth(width, widthRange(column, viewport, other));
        return l[column] === w ? l : { ...l, [column]: w };
      });
    },
    [viewport],
  );
  const resetWidth = useCallback((column: Column) => setLayout((l) => ({ ...l, [column]: null })), []);
  const toggle = useCallback(
    (column: Column) =>
      setLayout((l) => (column === 'sidebar' ? { ...l, sidebarCollapsed: !l.sidebarCollapsed } : { ...l, panelCollapsed: !l.panelCollapsed })),
    [],
  );

  return { layout, widths, viewport, setWidth, resetWidth, toggle };
}
