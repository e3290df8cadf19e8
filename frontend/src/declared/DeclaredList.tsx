import { useRef, useState, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { DeclaredArtifact } from '../api/artifacts';
import { useMenuEffects, type MenuAt, type Status } from './declared';
import { useFadingStatus } from '../artifacts/useFadingStatus';
import { useDeclaredActions, useRemoveDeclared } from './useDeclaredActions';
import { LinkIcon } from './declared-icons';
import { DeclaredItem, DeclaredMenu, DeclaredStatus, RemoveDeclaredDialog } from './DeclaredParts';

export { locationText, webUrl } from './declared';

/** Props of DeclaredList. */
export interface DeclaredListProps {
  conversationId: string;
  /** The conversation's declared artifacts, oldest first. */
  items: DeclaredArtifact[];
  /** An artifact was removed from the conversation (the event follows; the list may drop it now). */
  onRemoved: (artifactId: string) => void;
}

/**
 * The "Links & files" section of the artifact panel: the conversation's declared
 * artifacts, each a button showing its kind icon, title, host (links) or
 * workspace-relative path (files), source badge and, when missing, the reason, greyed.
 * Click or Enter opens it: a link in the system browser (never previewed or fetched by the
 * app), a workspace file with the system's default application through the backend's
 * containment check (in browser mode, which never opens files, it says so instead). The ⋯
 * button, a right-click, the Menu key or Shift+F10 open its menu: copy the link or path,
 * reveal the file in its folder, remove (after confirmation). Titles and descriptions are
 * plain text: React text nodes only.
 */
export function DeclaredList({ conversationId, items, onRemoved }: DeclaredListProps) {
  const { t } = useTranslation('artifacts');
  const [menu, setMenu] = useState<MenuAt | null>(null);
  const menuFor = menu?.id ?? null;
  const [status, setStatus] = useFadingStatus<NonNullable<Status>>(5000);
  const rowRefs = useRef(new Map<string, HTMLButtonElement>());
  const moreRefs = useRef(new Map<string, HTMLButtonElement>());
  const menuRef = useRef<HTMLDivElement>(null);
  const listRef = useRef<HTMLUListElement>(null);
  const actions = useDeclaredActions(conversationId, setStatus);
  const rm = useRemoveDeclared(conversationId, onRemoved);
  useMenuEffects(menu, menuRef, listRef, setMenu);

  /** Opens the menu of `a` below its ⋯ button, or at the pointer of a right-click. */
  const openMenu = (a: DeclaredArtifact, pointer?: { x: number; y: number }) => {
    if (pointer) {
      setMenu({ id: a.id, x: pointer.x, y: pointer.y, above: pointer.y, alignRight: false });
      return;
    }
    const r = (moreRefs.current.get(a.id) ?? rowRefs.current.get(a.id))?.getBoundingClientRect();
    setMenu({ id: a.id, x: r?.right ?? 0, y: r?.bottom ?? 0, above: r?.top ?? 0, alignRight: true });
  };

  // An artifact that went away (removed, evicted) takes its menu with it.
  const menuItem = items.find((a) => a.id === menuFor);

  const closeMenu = (refocus: boolean) => {
    const id = menuFor;
    setMenu(null);
    if (refocus && id !== null) rowRefs.current.get(id)?.focus();
  };

  const onRowKey = (e: ReactKeyboardEvent<HTMLButtonElement>, a: DeclaredArtifact) => {
    if (e.key === 'ContextMenu' || (e.shiftKey && e.key === 'F10')) {
      e.preventDefault();
      openMenu(a);
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const i = items.findIndex((x) => x.id === a.id);
      const next = items[(i + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length];
      if (next) rowRefs.current.get(next.id)?.focus();
    }
  };

  return (
    <section className="declared" aria-label={t('declared.title')}>
      <header className="panel-head declared-head">
        <LinkIcon size={15} />
        <h2>{t('declared.title')}</h2>
        <span className="count">{items.length}</span>
      </header>
      {status ? <DeclaredStatus status={status} onDismiss={() => setStatus(null)} /> : null}
      <ul className="declared-list" aria-label={t('declared.title')} ref={listRef}>
        {items.map((a) => (
          <DeclaredItem
            key={a.id}
            item={a}
            menuOpen={menuFor === a.id}
            rowRef={(el) => {
              if (el) rowRefs.current.set(a.id, el);
              else rowRefs.current.delete(a.id);
            }}
            moreRef={(el) => {
              if (el) moreRefs.current.set(a.id, el);
              else moreRefs.current.delete(a.id);
            }}
            onOpen={() => actions.open(a)}
            onRowKey={(e) => onRowKey(e, a)}
            onContextMenu={(pointer) => openMenu(a, pointer)}
            onMore={() => (menuFor === a.id ? setMenu(null) : openMenu(a))}
          >
            {menuFor === a.id && menuItem ? (
              <DeclaredMenu
                item={a}
                menuRef={menuRef}
                onClose={closeMenu}
                onOpen={() => {
                  closeMenu(true);
                  actions.open(a);
                }}
                onCopy={() => {
                  closeMenu(true);
                  actions.copy(a);
                }}
                onReveal={() => {
                  closeMenu(true);
                  actions.reveal(a);
                }}
                onRemove={() => {
                  setMenu(null);
                  rm.ask(a);
                }}
              />
            ) : null}
          </DeclaredItem>
        ))}
      </ul>
      {rm.removing ? <RemoveDeclaredDialog rm={rm} removing={rm.removing} onCancel={() => rowRefs.current.get(rm.removing?.id ?? '')?.focus()} /> : null}
    </section>
  );
}
