// The parts of the panel's "Links & files" (DeclaredList): its message, one item with its
// ⋯ button, the item menu, and the confirmation of a removal.

import type { KeyboardEvent as ReactKeyboardEvent, MouseEvent as ReactMouseEvent, ReactNode, RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import type { DeclaredArtifact } from '../api/artifacts';
import { copyable, isWorkspace, locationText, type Status } from './declared';
import type { RemoveState } from './useDeclaredActions';
import { formatBytes } from '../shared/format';
import { CopyIcon, FolderIcon, kindIcon, OpenIcon, TrashIcon } from './declared-icons';
import { DotsIcon, XIcon } from '../shared/icons';
import { ConfirmDialog } from '../shared/Modal';

// Who declared an artifact: a badge and its hint, under artifacts:declared.source.<source> and
// artifacts:declared.sourceHint.<source>; other sources show as written, without a hint.
// i18n-keys: artifacts:declared.source.tool artifacts:declared.source.hook artifacts:declared.source.client
// i18n-keys: artifacts:declared.sourceHint.tool artifacts:declared.sourceHint.hook artifacts:declared.sourceHint.client
const SOURCES: ReadonlySet<string> = new Set(['tool', 'hook', 'client']);

/** The section's message (role alert for errors, status otherwise) with its dismiss button. */
export function DeclaredStatus({ status, onDismiss }: { status: NonNullable<Status>; onDismiss: () => void }) {
  const { t } = useTranslation('artifacts');
  return (
    <div className={`declared-status ${status.kind}`} role={status.kind === 'error' ? 'alert' : 'status'}>
      <span className="declared-status-text">{status.text}</span>
      <button type="button" className="icon-btn" onClick={onDismiss} aria-label={t('viewer.dismiss')}>
        <XIcon size={13} />
      </button>
    </div>
  );
}

/** The title an item shows: its own, else where it points, else its id. */
export const itemTitle = (a: DeclaredArtifact) => a.title || locationText(a) || a.id;

/** Props of DeclaredItem. */
export interface DeclaredItemProps {
  item: DeclaredArtifact;
  /** Its menu is open. */
  menuOpen: boolean;
  /** Registers (or, with null, forgets) the item's row button and ⋯ button. */
  rowRef: (el: HTMLButtonElement | null) => void;
  moreRef: (el: HTMLButtonElement | null) => void;
  onOpen: () => void;
  onRowKey: (e: ReactKeyboardEvent<HTMLButtonElement>) => void;
  /** A right-click at the pointer's viewport coordinates. */
  onContextMenu: (pointer: { x: number; y: number }) => void;
  /** The ⋯ button: toggles the menu. */
  onMore: () => void;
  /** The open menu, if any. */
  children?: ReactNode;
}

/** One declared artifact: kind icon, title, host or path, size, source badge, the missing reason greyed, and its ⋯ button. */
export function DeclaredItem({ item: a, menuOpen, rowRef, moreRef, onOpen, onRowKey, onContextMenu, onMore, children }: DeclaredItemProps) {
  const { t } = useTranslation('artifacts');
  const { Icon, label } = kindIcon(a.kind);
  const missing = a.status === 'missing';
  const where = locationText(a);
  const reason = missing ? a.missingReason || t('declared.missingUnknown') : '';
  const missingText = missing ? t('declared.missing', { reason }) : '';
  const known = SOURCES.has(a.source);
  const source = known ? t(`declared.source.${a.source}`) : a.source;
  const title = itemTitle(a);
  const hint = [a.description, missingText, a.url !== '' ? a.url : ''].filter((x) => x !== '').join('\n');
  return (
    <li className={`declared-item${missing ? ' missing' : ''}`}>
      <button
        ref={rowRef}
        type="button"
        className="declared-row"
        title={hint || undefined}
        aria-haspopup="menu"
        aria-description={missing ? missingText : undefined}
        onClick={onOpen}
        onKeyDown={onRowKey}
        onContextMenu={(e: ReactMouseEvent) => {
          e.preventDefault();
          onContextMenu({ x: e.clientX, y: e.clientY });
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
        ref={moreRef}
        type="button"
        className="icon-btn declared-more"
        aria-label={t('declared.moreActions', { title })}
        aria-haspopup="menu"
        aria-expanded={menuOpen}
        onClick={onMore}
      >
        <DotsIcon size={15} />
      </button>
      {children}
    </li>
  );
}

/** Props of DeclaredMenu. */
export interface DeclaredMenuProps {
  item: DeclaredArtifact;
  menuRef: RefObject<HTMLDivElement | null>;
  /** Closes the menu, focusing the item's row again when `refocus`. */
  onClose: (refocus: boolean) => void;
  onOpen: () => void;
  onCopy: () => void;
  onReveal: () => void;
  onRemove: () => void;
}

/** An item's menu: Open, copy the link or path, reveal the file, remove; arrows, Home, End, Esc and Tab as in a menu. */
export function DeclaredMenu({ item: a, menuRef, onClose, onOpen, onCopy, onReveal, onRemove }: DeclaredMenuProps) {
  const { t } = useTranslation('artifacts');
  const onMenuKey = (e: ReactKeyboardEvent<HTMLDivElement>) => {
    const buttons = Array.from(menuRef.current?.querySelectorAll<HTMLButtonElement>('button:not(:disabled)') ?? []);
    const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onClose(true);
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      buttons[(i + (e.key === 'ArrowDown' ? 1 : buttons.length - 1)) % buttons.length]?.focus();
    } else if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      buttons[e.key === 'Home' ? 0 : buttons.length - 1]?.focus();
    } else if (e.key === 'Tab') {
      onClose(false);
    }
  };
  const { text, what } = copyable(a);
  return (
    <div className="menu declared-menu" role="menu" ref={menuRef} aria-label={t('declared.actions', { title: itemTitle(a) })} onKeyDown={onMenuKey}>
      <button type="button" role="menuitem" onClick={onOpen}>
        <OpenIcon size={13} /> {t('common:open')}
      </button>
      <button type="button" role="menuitem" onClick={onCopy} disabled={text === ''}>
        <CopyIcon size={13} /> {what === 'path' ? t('declared.copyPath') : t('declared.copyLink')}
      </button>
      {isWorkspace(a) ? (
        <button type="button" role="menuitem" onClick={onReveal}>
          <FolderIcon size={13} /> {t('declared.reveal')}
        </button>
      ) : null}
      <button type="button" role="menuitem" className="danger" onClick={onRemove}>
        <TrashIcon size={13} /> {t('declared.removeMenu')}
      </button>
    </div>
  );
}

/** The confirmation of removing `rm.removing` from the conversation; `onCancel` after it closes unconfirmed. */
export function RemoveDeclaredDialog({ rm, removing, onCancel }: { rm: RemoveState; removing: DeclaredArtifact; onCancel: () => void }) {
  const { t } = useTranslation('artifacts');
  return (
    <ConfirmDialog
      title={isWorkspace(removing) ? t('declared.removeFileTitle') : t('declared.removeLinkTitle')}
      message={
        <p>
          <strong>{removing.title || locationText(removing)}</strong>
          {t('declared.removeMessage')}{' '}
          {isWorkspace(removing) ? t('declared.removeFileNote') : t('declared.removeLinkNote')}
        </p>
      }
      confirmLabel={rm.busy ? t('declared.removing') : t('declared.remove')}
      danger
      busy={rm.busy}
      error={rm.error}
      onConfirm={rm.confirm}
      onCancel={() => {
        rm.cancel();
        onCancel();
      }}
    />
  );
}
