// What the panel's "Links & files" shows and does for a declared artifact: where it points,
// what can be copied, and the state of its item menu and messages.

import { useEffect, useLayoutEffect, type Dispatch, type RefObject, type SetStateAction } from 'react';
import type { DeclaredArtifact } from '../api/artifacts';
import { i18n } from '../i18n/i18n';

/**
 * The web address of a declared artifact that may be opened in the system browser: its
 * `url` when that parses as http(s), else "" (only http and https links; a `file:` or
 * any other scheme is never opened from the panel).
 */
export function webUrl(a: DeclaredArtifact): string {
  if (a.url === '' || a.storage === 'workspace') return '';
  try {
    const u = new URL(a.url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : '';
  } catch {
    return '';
  }
}

/**
 * Where a declared artifact points, as shown under its title: the host of a link (never
 * fetched: icon, title and host only), the workspace-relative path of a
 * workspace file, "kept by a client" (in the UI's language) otherwise.
 */
export function locationText(a: DeclaredArtifact): string {
  if (a.storage === 'workspace' || (a.workspacePath !== '' && a.url === '')) return a.workspacePath;
  if (a.url !== '') {
    try {
      return new URL(a.url).host || a.url;
    } catch {
      return a.url;
    }
  }
  return a.managedId !== '' ? i18n.t('artifacts:declared.keptByClient') : '';
}

/** What the user can copy for an artifact: its link or its workspace path ("" for neither). */
export function copyable(a: DeclaredArtifact): { text: string; what: 'path' | 'link' } {
  if (a.storage === 'workspace' || (a.workspacePath !== '' && a.url === '')) return { text: a.workspacePath, what: 'path' };
  if (a.url !== '') return { text: a.url, what: 'link' };
  return { text: '', what: 'link' };
}

/** Whether a declared artifact is a file in the conversation's workspace. */
export const isWorkspace = (a: DeclaredArtifact) => a.storage === 'workspace' || (a.workspacePath !== '' && a.url === '');

/** A message under a section's head: OK messages fade, errors stay until dismissed or replaced. */
export type Status = { kind: 'ok' | 'error'; text: string } | null;

/**
 * An open item menu: whose, and where (viewport coordinates). From the ⋯ button or the
 * keyboard it hangs below the button's right edge (`x` = that edge, `above` = the button's
 * top, for flipping up near the bottom of the window); from a right-click it opens at the
 * pointer. It is positioned fixed so that the list's scrolling box does not clip it.
 */
export interface MenuAt {
  id: string;
  x: number;
  y: number;
  above: number;
  alignRight: boolean;
}

/** Margin kept between a menu and the window's edges, in px. */
const EDGE = 8;

/**
 * An open menu: placed inside the window before it is painted (flipped above its button,
 * or shifted left, when it would not fit), its first item focused; a click elsewhere,
 * scrolling the list or resizing the window closes it (through `setMenu`).
 */
export function useMenuEffects(
  menu: MenuAt | null,
  menuRef: RefObject<HTMLDivElement | null>,
  listRef: RefObject<HTMLUListElement | null>,
  setMenu: Dispatch<SetStateAction<MenuAt | null>>,
): void {
  useLayoutEffect(() => {
    const el = menuRef.current;
    if (menu === null || el === null) return;
    const w = el.offsetWidth;
    const h = el.offsetHeight;
    let left = menu.alignRight ? menu.x - w : menu.x;
    let top = menu.y + 2;
    left = Math.max(EDGE, Math.min(left, window.innerWidth - w - EDGE));
    if (top + h > window.innerHeight - EDGE) top = Math.max(EDGE, menu.above - h - 2);
    el.style.left = `${String(left)}px`;
    el.style.top = `${String(top)}px`;
    el.querySelector<HTMLButtonElement>('button')?.focus();
  }, [menu, menuRef]);
  const menuFor = menu?.id ?? null;
  useEffect(() => {
    if (menuFor === null) return;
    const close = () => setMenu(null);
    const onDown = (e: MouseEvent) => {
      if (!menuRef.current?.contains(e.target as Node)) close();
    };
    const list = listRef.current;
    window.addEventListener('mousedown', onDown);
    window.addEventListener('resize', close);
    list?.addEventListener('scroll', close);
    return () => {
      window.removeEventListener('mousedown', onDown);
      window.removeEventListener('resize', close);
      list?.removeEventListener('scroll', close);
    };
  }, [menuFor, menuRef, listRef, setMenu]);
}
