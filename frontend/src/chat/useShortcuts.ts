import { useEffect } from 'react';
import type { Column } from '../layout/useLayout';

/**
 * Layout shortcuts: Ctrl/Cmd+B shows or hides the sidebar, Ctrl/Cmd+J the panel (not while
 * a dialog is open); Ctrl/Cmd+K (search) shows a hidden sidebar and focuses its search box.
 */
export function useLayoutShortcuts(toggleColumn: (c: Column) => void, sidebarCollapsed: boolean): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || e.shiftKey) return;
      const key = e.key.toLowerCase();
      if (key === 'k' && sidebarCollapsed) {
        toggleColumn('sidebar');
        window.setTimeout(() => {
          const input = document.querySelector<HTMLInputElement>('nav.sidebar input');
          input?.focus();
          input?.select();
        }, 0);
        return;
      }
      if ((key !== 'b' && key !== 'j') || e.defaultPrevented) return;
      if (document.querySelector('dialog[open]') !== null) return;
      e.preventDefault();
      toggleColumn(key === 'b' ? 'sidebar' : 'panel');
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [toggleColumn, sidebarCollapsed]);
}

/** What the window's own shortcuts act on. */
export interface AppShortcuts {
  newResearch: () => void;
  openSettings: () => void;
  stop: () => void;
  running: boolean;
  settingsOpen: boolean;
}

/** Keyboard shortcuts: Ctrl/Cmd+N new research, Ctrl/Cmd+, settings, Esc stops the run. */
export function useAppShortcuts({ newResearch, openSettings, stop, running, settingsOpen }: AppShortcuts): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.ctrlKey || e.metaKey;
      if (mod && !e.shiftKey && !e.altKey && e.key.toLowerCase() === 'n') {
        e.preventDefault();
        newResearch();
      } else if (mod && e.key === ',') {
        e.preventDefault();
        openSettings();
      } else if (e.key === 'Escape' && !e.defaultPrevented && running && !settingsOpen && document.querySelector('dialog[open]') === null) {
        e.preventDefault();
        stop();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [newResearch, openSettings, running, settingsOpen, stop]);
}
