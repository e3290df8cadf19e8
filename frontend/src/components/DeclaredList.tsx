import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent as ReactKeyboardEvent, type MouseEvent as ReactMouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { copyText, isBrowserMode, openExternal, toApiError } from '../api';
import { openDeclared, removeDeclared, revealDeclared, type DeclaredArtifact } from '../api-declared';
import { formatBytes } from '../format';
import { i18n } from '../i18n';
import { CopyIcon, FolderIcon, kindIcon, LinkIcon, OpenIcon, TrashIcon } from './declared-icons';
import { DotsIcon, XIcon } from './icons';
import { ConfirmDialog } from './Modal';

/**
 * The web address of a declared artifact that may be opened in the system browser: its
 * `url` when that parses as http(s), else "" (seed 002: only http and https links; a
 * `file:` or any other scheme is never opened from the panel).
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
 * fetched: seed 002 shows icon, title and host only), the workspace-relative path of a
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
function copyable(a: DeclaredArtifact): { text: string; what: 'path' | 'link' } {
  if (a.storage === 'workspace' || (a.workspacePath !== '' && a.url === '')) return { text: a.workspacePath, what: 'path' };
  if (a.url !== '') return { text: a.url, what: 'link' };
  return { text: '', what: 'link' };
}

const isWorkspace = (a: DeclaredArtifact) => a.storage === 'workspace' || (a.workspacePath !== '' && a.url === '');

// Who declared an artifact: a badge and its hint, under artifacts:declared.source.<source> and
// artifacts:declared.sourceHint.<source>; other sources show as written, without a hint.
// i18n-keys: artifacts:declared.source.tool artifacts:declared.source.hook artifacts:declared.source.client
// i18n-keys: artifacts:declared.sourceHint.tool artifacts:declared.sourceHint.hook artifacts:declared.sourceHint.client
const SOURCES: ReadonlySet<string> = new Set(['tool', 'hook', 'client']);

/** Props of DeclaredList. */
export interface DeclaredListProps {
  conversationId: string;
  /** The conversation's declared artifacts, oldest first. */
  items: DeclaredArtifact[];
  /** An artifact was removed from the conversation (the event follows; the list may drop it now). */
  onRemoved: (artifactId: string) => void;
}

type Status = { kind: 'ok' | 'error'; text: string } | null;

/**
 * An open item menu: whose, and where (viewport coordinates). From the ⋯ button or the
 * keyboard it hangs below the button's right edge (`x` = that edge, `above` = the button's
 * top, for flipping up near the bottom of the window); from a right-click it opens at the
 * pointer. It is positioned fixed so that the list's scrolling box does not clip it.
 */
interface MenuAt {
  id: string;
  x: number;
  y: number;
  above: number;
  alignRight: boolean;
}

/** Margin kept between a menu and the window's edges, in px. */
const EDGE = 8;

/**
 * The "Links & files" section of the artifact panel (issue 8, item 10): the conversation's
 * declared artifacts (seed 002), each a button showing its kind icon, title, host (links)
 * or workspace-relative path (files), source badge and, when missing, the reason, greyed.
 * Click or Enter opens it: a link in the system browser (never previewed or fetched by the
 * app), a workspace file with the system's default application through the backend's
 * containment check (in browser mode, which never opens files, it says so instead). The
 * ⋯ button, a right-click, the Menu key or Shift+F10 open its menu:
 * copy the link or path, reveal the file in its folder, remove (after confirmation).
 * Titles and descriptions are plain text: React text nodes only.
 */
export function DeclaredList({ conversationId, items, onRemoved }: DeclaredListProps) {
  const { t } = useTranslation('artifacts');
  const [menu, setMenu] = useState<MenuAt | null>(null);
  const menuFor = menu?.id ?? null;
  const moreRefs = useRef(new Map<string, HTMLButtonElement>());
  const [removing, setRemoving] = useState<DeclaredArtifact | null>(null);
  const [removeBusy, setRemoveBusy] = useState(false);
  const [removeError, setRemoveError] = useState('');
  const [status, setStatus] = useState<Status>(null);
  const rowRefs = useRef(new Map<string, HTMLButtonElement>());
  const menuRef = useRef<HTMLDivElement>(null);
  const listRef = useRef<HTMLUListElement>(null);

  // OK messages fade; errors stay until dismissed or replaced.
  useEffect(() => {
    if (status?.kind !== 'ok') return;
    const timer = window.setTimeout(() => setStatus(null), 5000);
    return () => window.clearTimeout(timer);
  }, [status]);

  // An open menu: placed inside the window before it is painted (flipped above its button,
  // or shifted left, when it would not fit), its first item focused; a click elsewhere,
  // scrolling the list or resizing the window closes it.
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
  }, [menu]);
  useEffect(() => {
    if (menuFor === null) return;
    const onDown = (e: MouseEvent) => {
      if (!menuRef.current?.contains(e.target as Node)) setMenu(null);
    };
    const close = () => setMenu(null);
    const list = listRef.current;
    window.addEventListener('mousedown', onDown);
    window.addEventListener('resize', close);
    list?.addEventListener('scroll', close);
    return () => {
      window.removeEventListener('mousedown', onDown);
      window.removeEventListener('resize', close);
      list?.removeEventListener('scroll', close);
    };
  }, [menuFor]);

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

  const fail = (what: string, e: unknown) => setStatus({ kind: 'error', text: t('declared.failed', { what, error: toApiError(e).message }) });

  const open = (a: DeclaredArtifact) => {
    setStatus(null);
    const url = webUrl(a);
    if (url !== '') {
      if (!openExternal(url)) setStatus({ kind: 'error', text: t('declared.cannotOpenLink') });
      return;
    }
    if (isWorkspace(a)) {
      if (isBrowserMode()) {
        setStatus({ kind: 'error', text: t('declared.browserNoFiles', { path: a.workspacePath }) });
        return;
      }
      openDeclared(conversationId, a.id).then(
        () => undefined,
        (e: unknown) => fail(t('declared.couldNotOpen', { path: a.workspacePath }), e),
      );
      return;
    }
    setStatus({
      kind: 'error',
      text: a.url !== '' ? t('declared.onlyWebLinks') : t('declared.clientKeeps'),
    });
  };

  const copy = (a: DeclaredArtifact) => {
    closeMenu(true);
    const { text, what } = copyable(a);
    void copyText(text).then((ok) =>
      setStatus(ok ? { kind: 'ok', text: what === 'path' ? t('declared.pathCopied') : t('declared.linkCopied') } : { kind: 'error', text: t('declared.copyFailed') }),
    );
  };

  const reveal = (a: DeclaredArtifact) => {
    closeMenu(true);
    setStatus(null);
    if (isBrowserMode()) {
      setStatus({ kind: 'error', text: t('declared.browserNoFolders', { path: a.workspacePath }) });
      return;
    }
    revealDeclared(conversationId, a.id).then(
      () => undefined,
      (e: unknown) => fail(t('declared.couldNotReveal', { path: a.workspacePath }), e),
    );
  };

  const confirmRemove = () => {
    if (removing === null) return;
    const a = removing;
    setRemoveBusy(true);
    setRemoveError('');
    removeDeclared(conversationId, a.id).then(
      () => {
        setRemoveBusy(false);
        setRemoving(null);
        onRemoved(a.id);
      },
      (e: unknown) => {
        setRemoveBusy(false);
        setRemoveError(toApiError(e).message);
      },
    );
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

  const onMenuKey = (e: ReactKeyboardEvent<HTMLDivElement>) => {
    const buttons = Array.from(menuRef.current?.querySelectorAll<HTMLButtonElement>('button:not(:disabled)') ?? []);
    const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      closeMenu(true);
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      buttons[(i + (e.key === 'ArrowDown' ? 1 : buttons.length - 1)) % buttons.length]?.focus();
    } else if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      buttons[e.key === 'Home' ? 0 : buttons.length - 1]?.focus();
    } else if (e.key === 'Tab') {
      setMenu(null);
    }
  };

  return (
    <section className="declared" aria-label={t('declared.title')}>
      <header className="panel-head declared-head">
        <LinkIcon size={15} />
        <h2>{t('declared.title')}</h2>
        <span className="count">{items.length}</span>
      </header>
      {status ? (
        <div className={`declared-status ${status.kind}`} role={status.kind === 'error' ? 'alert' : 'status'}>
          <span className="declared-status-text">{status.text}</span>
          <button type="button" className="icon-btn" onClick={() => setStatus(null)} aria-label={t('viewer.dismiss')}>
            <XIcon size={13} />
          </button>
        </div>
      ) : null}
      <ul className="declared-list" aria-label={t('declared.title')} ref={listRef}>
        {items.map((a) => {
          const { Icon, label } = kindIcon(a.kind);
          const missing = a.status === 'missing';
          const where = locationText(a);
          const reason = missing ? a.missingReason || t('declared.missingUnknown') : '';
          const missingText = missing ? t('declared.missing', { reason }) : '';
          const known = SOURCES.has(a.source);
          const source = known ? t(`declared.source.${a.source}`) : a.source;
          const title = a.title || where || a.id;
          const hint = [a.description, missingText, a.url !== '' ? a.url : ''].filter((x) => x !== '').join('\n');
          return (
            <li key={a.id} className={`declared-item${missing ? ' missing' : ''}`}>
              <button
                ref={(el) => {
                  if (el) rowRefs.current.set(a.id, el);
                  else rowRefs.current.delete(a.id);
                }}
                type="button"
                className="declared-row"
                title={hint || undefined}
                aria-haspopup="menu"
                aria-description={missing ? missingText : undefined}
                onClick={() => open(a)}
                onKeyDown={(e) => onRowKey(e, a)}
                onContextMenu={(e: ReactMouseEvent) => {
                  e.preventDefault();
                  openMenu(a, { x: e.clientX, y: e.clientY });
                }}
              >
                <span className={`declared-icon kind-${a.kind}`} role="img" aria-label={label}>
                  <Icon size={16} />
                </span>
                <span className="declared-text">
                  <span className="declared-title">{title}</span>
                  <span className="declared-sub">
                    <span className="declared-where">{where}</span>
                    {a.sizeBytes !== null && !missing && isWorkspace(a) ? <span className="declared-size">{formatBytes(a.sizeBytes)}</span> : null}
                  </span>
                  {missing ? <span className="declared-reason">{missingText}</span> : null}
                </span>
                {source !== '' ? (
                  <span className={`badge declared-source source-${a.source}`} title={known ? t(`declared.sourceHint.${a.source}`) : undefined}>
                    {source}
                  </span>
                ) : null}
              </button>
              <button
                ref={(el) => {
                  if (el) moreRefs.current.set(a.id, el);
                  else moreRefs.current.delete(a.id);
                }}
                type="button"
                className="icon-btn declared-more"
                aria-label={t('declared.moreActions', { title })}
                aria-haspopup="menu"
                aria-expanded={menuFor === a.id}
                onClick={() => (menuFor === a.id ? setMenu(null) : openMenu(a))}
              >
                <DotsIcon size={15} />
              </button>
              {menuFor === a.id && menuItem ? (
                <div className="menu declared-menu" role="menu" ref={menuRef} aria-label={t('declared.actions', { title })} onKeyDown={onMenuKey}>
                  <button
                    type="button"
                    role="menuitem"
                    onClick={() => {
                      closeMenu(true);
                      open(a);
                    }}
                  >
                    <OpenIcon size={13} /> {t('common:open')}
                  </button>
                  <button type="button" role="menuitem" onClick={() => copy(a)} disabled={copyable(a).text === ''}>
                    <CopyIcon size={13} /> {copyable(a).what === 'path' ? t('declared.copyPath') : t('declared.copyLink')}
                  </button>
                  {isWorkspace(a) ? (
                    <button type="button" role="menuitem" onClick={() => reveal(a)}>
                      <FolderIcon size={13} /> {t('declared.reveal')}
                    </button>
                  ) : null}
                  <button
                    type="button"
                    role="menuitem"
                    className="danger"
                    onClick={() => {
                      setMenu(null);
                      setRemoveError('');
                      setRemoving(a);
                    }}
                  >
                    <TrashIcon size={13} /> {t('declared.removeMenu')}
                  </button>
                </div>
              ) : null}
            </li>
          );
        })}
      </ul>
      {removing ? (
        <ConfirmDialog
          title={isWorkspace(removing) ? t('declared.removeFileTitle') : t('declared.removeLinkTitle')}
          message={
            <p>
              <strong>{removing.title || locationText(removing)}</strong>
              {t('declared.removeMessage')}{' '}
              {isWorkspace(removing) ? t('declared.removeFileNote') : t('declared.removeLinkNote')}
            </p>
          }
          confirmLabel={removeBusy ? t('declared.removing') : t('declared.remove')}
          danger
          busy={removeBusy}
          error={removeError}
          onConfirm={confirmRemove}
          onCancel={() => {
            const id = removing.id;
            setRemoving(null);
            rowRefs.current.get(id)?.focus();
          }}
        />
      ) : null}
    </section>
  );
}
