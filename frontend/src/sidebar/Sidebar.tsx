import { useEffect, useEffectEvent, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Conversation } from '../api/conversations';
import { relativeTime } from '../shared/format';
import '../i18n/i18n'; // the UI's language, set up before the first render
import { ChevronIcon, DotsIcon, GearIcon, LogoIcon, PinIcon, PlusIcon, Spinner } from '../shared/icons';
import { ConfirmDialog } from '../shared/Modal';
import { SearchBox } from './SearchBox';
import { focusOnMount } from '../shared/focus';

/** Props of Sidebar. */
export interface SidebarProps {
  conversations: Conversation[];
  selectedId: string | null;
  /** Ids of conversations with a run going (from the list and from live events). */
  runningIds: ReadonlySet<string>;
  loading: boolean;
  error: string;
  /** Current time in ms since epoch, for relative times. */
  now: number;
  onSelect: (id: string) => void;
  onNew: () => void;
  onSettings: () => void;
  /** Renames; rejects with an Error whose message is shown. */
  onRename: (id: string, title: string) => Promise<void>;
  /** Deletes; rejects with an Error whose message is shown. */
  onDelete: (id: string) => Promise<void>;
  /** The menu's Pin / Unpin (absent: no such item); rejects with an Error whose message is shown. */
  onPin?: (id: string, pinned: boolean) => Promise<void>;
  /** The menu's Archive / Unarchive (absent: no such item); rejects with an Error whose message is shown. */
  onArchive?: (id: string, archived: boolean) => Promise<void>;
  /** The menu's "Export…": saves the conversation to one file (absent: no such item). */
  onExport?: (id: string) => void;
  /** The list's "Import…": stores a conversation file as a new conversation (absent: no button). */
  onImport?: () => void;
  /** An import is under way (the button shows a spinner and is disabled). */
  importing?: boolean;
  /** Shown above the settings button: the message after an export or import. */
  notice?: ReactNode;
}

const isMac = typeof navigator !== 'undefined' && /Mac OS X|Macintosh|iPhone|iPad/.test(navigator.userAgent);
/** The modifier key name shown in shortcut hints ("Ctrl" or "⌘"). */
export const MOD_KEY = isMac ? '⌘' : 'Ctrl';

/**
 * The conversations in the sidebar's groups, each in the list's order (most recently
 * updated first): `pinned` (pinned, not archived), `recent` (the others not archived) and
 * `archived` (every archived one, pinned or not).
 */
export function groupConversations(cs: readonly Conversation[]): { pinned: Conversation[]; recent: Conversation[]; archived: Conversation[] } {
  return {
    pinned: cs.filter((c) => c.pinned && !c.archived),
    recent: cs.filter((c) => !c.pinned && !c.archived),
    archived: cs.filter((c) => c.archived),
  };
}

/**
 * The left column: brand, "New research", the search box (its results replace the list
 * while a query is entered), the conversation list and the settings button.
 * The list has a "Pinned" group at the top when any conversation is pinned, then the others,
 * then an "Archived" toggle (collapsed by default, with the count) opening the archived
 * ones. It is keyboard navigable (Up/Down/Home/End move between the conversations shown,
 * Enter opens); each row has a menu to rename (inline), pin or unpin, archive or unarchive,
 * export (to one file) or delete (after confirmation); "Import…" beside the list's label
 * stores a conversation file.
 */
export function Sidebar(p: SidebarProps) {
  const { t } = useTranslation('sidebar');
  const [menuFor, setMenuFor] = useState<string | null>(null);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Conversation | null>(null);
  const [deleteBusy, setDeleteBusy] = useState(false);
  const [deleteError, setDeleteError] = useState('');
  const [searching, setSearching] = useState(false);
  const [actionError, setActionError] = useState('');

  /** Runs a pin or archive change, showing its failure above the list. */
  const organise = (change: Promise<void>) => {
    setActionError('');
    change.catch((e: unknown) => setActionError(e instanceof Error ? e.message : String(e)));
  };

  const confirmDelete = () => {
    if (!deleting) return;
    setDeleteBusy(true);
    setDeleteError('');
    p.onDelete(deleting.id).then(
      () => {
        setDeleteBusy(false);
        setDeleting(null);
      },
      (e: unknown) => {
        setDeleteBusy(false);
        setDeleteError(e instanceof Error ? e.message : String(e));
      },
    );
  };

  const row = (c: Conversation) => (
    <ConversationRow
      key={c.id}
      c={c}
      now={p.now}
      selected={c.id === p.selectedId}
      running={p.runningIds.has(c.id)}
      menuOpen={menuFor === c.id}
      renaming={renaming === c.id}
      onSelect={() => p.onSelect(c.id)}
      onMenu={(open) => setMenuFor(open ? c.id : null)}
      onStartRename={() => {
        setMenuFor(null);
        setRenaming(c.id);
      }}
      onRename={async (title) => {
        await p.onRename(c.id, title);
        setRenaming(null);
      }}
      onCancelRename={() => setRenaming(null)}
      onDelete={() => {
        setMenuFor(null);
        setDeleteError('');
        setDeleting(c);
      }}
      onPin={
        p.onPin
          ? () => {
              setMenuFor(null);
              organise(p.onPin?.(c.id, !c.pinned) ?? Promise.resolve());
            }
          : undefined
      }
      onArchive={
        p.onArchive
          ? () => {
              setMenuFor(null);
              organise(p.onArchive?.(c.id, !c.archived) ?? Promise.resolve());
            }
          : undefined
      }
      onExport={
        p.onExport
          ? () => {
              setMenuFor(null);
              p.onExport?.(c.id);
            }
          : undefined
      }
    />
  );

  return (
    <nav className="sidebar" aria-label={t('conversations')}>
      <div className="brand">
        <span className="brand-mark">
          <LogoIcon size={16} />
        </span>
        <span className="brand-name">ArtifactFlow</span>
      </div>
      <button type="button" className="btn btn-new" onClick={p.onNew} title={t('newResearchTitle', { shortcut: `${MOD_KEY}+N` })}>
        <PlusIcon />
        <span>{t('newResearch')}</span>
        <kbd>{MOD_KEY}+N</kbd>
      </button>
      <SearchBox selectedId={p.selectedId} now={p.now} onOpen={p.onSelect} onActive={setSearching} />
      <div className="sidebar-label-row" hidden={searching}>
        <div className="sidebar-label">{t('research')}</div>
        {p.onImport ? (
          <button type="button" className="btn btn-sm btn-ghost sidebar-import" onClick={p.onImport} disabled={p.importing} title={t('data:import.title')}>
            {p.importing ? <Spinner size={11} /> : null}
            {p.importing ? t('data:import.busy') : t('data:import.button')}
          </button>
        ) : null}
      </div>
      <div className="conv-scroll" hidden={searching}>
        {p.error ? (
          <p className="sidebar-note error-text" role="alert">{p.error}</p>
        ) : p.loading && p.conversations.length === 0 ? (
          <p className="sidebar-note">{t('common:loading')}</p>
        ) : p.conversations.length === 0 ? (
          <p className="sidebar-note">{t('empty')}</p>
        ) : (
          <>
            {actionError ? (
              <p className="sidebar-note error-text" role="alert">
                {actionError}
              </p>
            ) : null}
          <ConversationGroups conversations={p.conversations} row={row} />
          </>
        )}
      </div>
      {p.notice}
      <button type="button" className="btn btn-ghost btn-settings" onClick={p.onSettings} title={t('settingsTitle', { shortcut: `${MOD_KEY}+,` })}>
        <GearIcon />
        <span>{t('settings')}</span>
      </button>
      {deleting ? (
        <ConfirmDialog
          title={t('deleteTitle')}
          message={
            <>
              <strong>{deleting.title || t('common:untitled')}</strong>
              {t('deleteMessage')}
            </>
          }
          confirmLabel={deleteBusy ? t('deleting') : t('common:delete')}
          danger
          busy={deleteBusy}
          error={deleteError}
          onConfirm={confirmDelete}
          onCancel={() => setDeleting(null)}
        />
      ) : null}
    </nav>
  );
}

/**
 * The badge of a conversation whose latest run did not finish: "Failed" for a run that
 * ended in error or was interrupted, "Stopped" for one the user cancelled; nothing
 * otherwise.
 */
export function RunBadge({ status }: { status: Conversation['last_status'] }) {
  const { t } = useTranslation('sidebar');
  if (status === 'error' || status === 'interrupted') {
    return (
      <span className="conv-badge conv-badge-failed" title={status === 'error' ? t('badge.failedTitle') : t('badge.interruptedTitle')}>
        {t('badge.failed')}
      </span>
    );
  }
  if (status === 'cancelled') {
    return (
      <span className="conv-badge conv-badge-stopped" title={t('badge.stoppedTitle')}>
        {t('badge.stopped')}
      </span>
    );
  }
  return null;
}

/**
 * The conversation list's groups (groupConversations): Pinned with its label when any,
 * the others (labelled Recent when Pinned is shown), and the Archived toggle, collapsed at
 * first, opening the archived ones. Up/Down/Home/End move between the rows shown.
 */
function ConversationGroups({ conversations, row }: { conversations: readonly Conversation[]; row: (c: Conversation) => ReactNode }) {
  const { t } = useTranslation('sidebar');
  const [archivedOpen, setArchivedOpen] = useState(false);
  const listRef = useRef<HTMLDivElement>(null);
  const groups = groupConversations(conversations);
  const onListKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if ((e.target as Element).closest('.rename')) return;
    const buttons = Array.from(listRef.current?.querySelectorAll<HTMLButtonElement>('.conv-open') ?? []);
    const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
    let next = -1;
    if (e.key === 'ArrowDown') next = Math.min(buttons.length - 1, i + 1);
    else if (e.key === 'ArrowUp') next = i < 0 ? buttons.length - 1 : Math.max(0, i - 1);
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = buttons.length - 1;
    const target = buttons[next];
    if (target) {
      e.preventDefault();
      target.focus();
    }
  };

  return (
    <div className="conv-groups" ref={listRef} onKeyDown={onListKey}>
      {groups.pinned.length > 0 ? (
        <ConversationGroup id="conv-group-pinned" label={t('groups.pinned')}>
          {groups.pinned.map(row)}
        </ConversationGroup>
      ) : null}
      {groups.recent.length > 0 ? (
        <ConversationGroup id="conv-group-recent" label={groups.pinned.length > 0 ? t('groups.recent') : ''}>
          {groups.recent.map(row)}
        </ConversationGroup>
      ) : null}
      {groups.archived.length > 0 ? (
        <div className="conv-archived">
          <button type="button" className="conv-archived-toggle" aria-expanded={archivedOpen} aria-controls="conv-group-archived" onClick={() => setArchivedOpen((o) => !o)}>
            <ChevronIcon size={12} />
            <span>{t('groups.archived', { count: groups.archived.length })}</span>
          </button>
          {archivedOpen ? (
            <ConversationGroup id="conv-group-archived" label="">
              {groups.archived.map(row)}
            </ConversationGroup>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

/** One group of the conversation list: its label (none when "") and its rows. */
function ConversationGroup({ id, label, children }: { id: string; label: string; children: ReactNode }) {
  return (
    <div className="conv-group">
      {label ? (
        <div className="conv-group-label" id={`${id}-label`}>
          {label}
        </div>
      ) : null}
      <ul className="conv-list" id={id} aria-labelledby={label ? `${id}-label` : undefined}>
        {children}
      </ul>
    </div>
  );
}

interface RowProps {
  c: Conversation;
  now: number;
  selected: boolean;
  running: boolean;
  menuOpen: boolean;
  renaming: boolean;
  onSelect: () => void;
  onMenu: (open: boolean) => void;
  onStartRename: () => void;
  onRename: (title: string) => Promise<void>;
  onCancelRename: () => void;
  onDelete: () => void;
  onPin?: () => void;
  onArchive?: () => void;
  onExport?: () => void;
}

function ConversationRow(r: RowProps) {
  const { t } = useTranslation('sidebar');
  const title = r.c.title || t('common:untitled');
  const menuRef = useRef<HTMLDivElement>(null);
  const closeMenu = useEffectEvent(() => r.onMenu(false));

  useEffect(() => {
    if (!r.menuOpen) return;
    menuRef.current?.querySelector<HTMLButtonElement>('button')?.focus();
    const close = (e: MouseEvent) => {
      const el = e.target as Element;
      if (!menuRef.current?.contains(el) && !el.closest('.conv-menu-btn')) closeMenu();
    };
    document.addEventListener('mousedown', close);
    return () => document.removeEventListener('mousedown', close);
  }, [r.menuOpen]);

  return (
    <li className={`conv-row${r.selected ? ' selected' : ''}${r.menuOpen ? ' menu-open' : ''}`}>
      {r.renaming ? (
        <RenameField initial={r.c.title} onSave={r.onRename} onCancel={r.onCancelRename} />
      ) : (
        <button
          type="button"
          className="conv-open"
          aria-current={r.selected ? 'page' : undefined}
          onClick={r.onSelect}
          title={title}
        >
          <span className="conv-title">
            {r.c.pinned && !r.c.archived ? <PinIcon size={11} className="conv-pin" /> : null}
            {title}
          </span>
          <span className="conv-meta">
            {r.running ? (
              <span className="conv-running">
                <Spinner size={11} />
                {t('researching')}
              </span>
            ) : (
              <>
                <RunBadge status={r.c.last_status} />
                {relativeTime(r.c.updated_at || r.c.created_at, r.now)}
              </>
            )}
          </span>
        </button>
      )}
      {r.renaming ? null : (
        <button
          type="button"
          className="icon-btn conv-menu-btn"
          aria-label={t('actionsFor', { title })}
          aria-haspopup="menu"
          aria-expanded={r.menuOpen}
          onClick={() => r.onMenu(!r.menuOpen)}
        >
          <DotsIcon />
        </button>
      )}
      {r.menuOpen ? (
        <div
          className="menu"
          role="menu"
          ref={menuRef}
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.stopPropagation();
              r.onMenu(false);
            }
            if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
              e.preventDefault();
              e.stopPropagation();
              const items = Array.from(menuRef.current?.querySelectorAll<HTMLButtonElement>('button') ?? []);
              const i = items.indexOf(document.activeElement as HTMLButtonElement);
              items[(i + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length]?.focus();
            }
          }}
        >
          <button type="button" role="menuitem" onClick={r.onStartRename}>
            {t('common:rename')}
          </button>
          {r.onPin && !r.c.archived ? (
            <button type="button" role="menuitem" onClick={r.onPin}>
              {r.c.pinned ? t('unpin') : t('pin')}
            </button>
          ) : null}
          {r.onArchive ? (
            <button type="button" role="menuitem" onClick={r.onArchive}>
              {r.c.archived ? t('unarchive') : t('archive')}
            </button>
          ) : null}
          {r.onExport ? (
            <button type="button" role="menuitem" onClick={r.onExport}>
              {t('data:export.menu')}
            </button>
          ) : null}
          <button type="button" role="menuitem" className="danger" onClick={r.onDelete}>
            {t('deleteMenu')}
          </button>
        </div>
      ) : null}
    </li>
  );
}

function RenameField({ initial, onSave, onCancel }: { initial: string; onSave: (t: string) => Promise<void>; onCancel: () => void }) {
  const { t } = useTranslation('sidebar');
  const [value, setValue] = useState(initial);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const save = () => {
    const title = value.trim();
    if (title === '' || title === initial) {
      onCancel();
      return;
    }
    setBusy(true);
    onSave(title).catch((e: unknown) => {
      setBusy(false);
      setError(e instanceof Error ? e.message : String(e));
    });
  };
  return (
    <div className="rename">
      <input
        className="input"
        value={value}
        ref={focusOnMount}
        disabled={busy}
        aria-label={t('titleField')}
        aria-invalid={error !== ''}
        onChange={(e) => setValue(e.target.value)}
        onFocus={(e) => e.target.select()}
        onBlur={() => {
          if (!busy && error === '') save();
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            save();
          } else if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            onCancel();
          }
        }}
      />
      {error ? <p className="field-error" role="alert">{error}</p> : null}
    </div>
  );
}
