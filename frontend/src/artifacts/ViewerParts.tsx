// The parts of the artifact viewer (ArtifactViewer): its tabs, toolbar, message, old-version
// banner, and the content as source or preview.

import { useRef, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { ArtifactVersion, ExportFormat } from '../api/artifacts';
import type { ViewerStatus } from './useViewerActions';
import { relativeTime } from '../shared/format';
import { resolveLanguage } from '../markdown/highlight';
import { offlineHTML } from '../markdown/markdown';
import { updateTypeLabel, type VersionChoice, type VersionRef } from './versions';
import { CompareIcon, PencilIcon, RestoreIcon } from './artifact-icons';
import { CopyButton } from '../markdown/CopyButton';
import { TrashIcon } from '../declared/declared-icons';
import { ExportMenu } from './ExportMenu';
import { Spinner, XIcon } from '../shared/icons';
import { ExpandIcon } from '../layout/layout-icons';
import { CodeView, Markdown } from '../markdown/Markdown';

/** The tabs of the artifact viewer. */
export type ViewerTab = 'preview' | 'source' | 'history';

/** The viewer's tabs, in order. */
export const TABS: readonly ViewerTab[] = ['preview', 'source', 'history'];
// The tabs' names are artifacts:viewer.tab.<id>.
// i18n-keys: artifacts:viewer.tab.preview artifacts:viewer.tab.source artifacts:viewer.tab.history

/** How a content type is previewed. */
export type PreviewKind = 'markdown' | 'html' | 'code' | 'binary' | 'text';

/** How a content type is previewed. */
export function previewKind(contentType: string): PreviewKind {
  const t = contentType.toLowerCase();
  if (t === '' || t.includes('markdown') || t === 'md') return 'markdown';
  if (t.includes('html')) return 'html';
  if (t === 'binary') return 'binary';
  if (resolveLanguage(t) !== null) return 'code';
  return 'text';
}

/** Preview | Source | History (arrow keys, Home and End move between them); History shows its count. */
export function ViewerTabs({ tab, onTab, historyCount }: { tab: ViewerTab; onTab: (tab: ViewerTab) => void; historyCount: number }) {
  const { t } = useTranslation('artifacts');
  const tabRefs = useRef<(HTMLButtonElement | null)[]>([]);
  const selectTab = (i: number) => {
    const next = TABS[(i + TABS.length) % TABS.length];
    if (!next) return;
    onTab(next);
    tabRefs.current[TABS.indexOf(next)]?.focus();
  };
  const onTabKey = (e: KeyboardEvent<HTMLButtonElement>, i: number) => {
    if (e.key === 'ArrowRight') selectTab(i + 1);
    else if (e.key === 'ArrowLeft') selectTab(i - 1);
    else if (e.key === 'Home') selectTab(0);
    else if (e.key === 'End') selectTab(TABS.length - 1);
    else return;
    e.preventDefault();
  };
  return (
    <div className="viewer-bar">
      <div className="tabs" role="tablist" aria-label={t('viewer.views')}>
        {TABS.map((id, i) => (
          <button
            key={id}
            ref={(el) => {
              tabRefs.current[i] = el;
            }}
            type="button"
            role="tab"
            id={`artifact-tab-${id}`}
            aria-selected={tab === id}
            aria-controls={`artifact-panel-${id}`}
            tabIndex={tab === id ? 0 : -1}
            className={`tab${tab === id ? ' active' : ''}`}
            onClick={() => onTab(id)}
            onKeyDown={(e) => onTabKey(e, i)}
          >
            {t(`viewer.tab.${id}`)}
            {id === 'history' && historyCount > 0 ? <span className="tab-count">{historyCount}</span> : null}
          </button>
        ))}
      </div>
    </div>
  );
}

/** Props of ViewerToolbar. */
export interface ViewerToolbarProps {
  choices: VersionChoice[];
  shown: VersionRef;
  onVersion: (v: VersionRef) => void;
  /** Why Edit is disabled ("" when it is not). */
  editBlocked: string;
  onEdit: () => void;
  /** Why Compare is disabled ("" when it is not). */
  compareBlocked: string;
  versionsLoading: boolean;
  onCompare: () => void;
  /** The shown content, for Copy. */
  text: () => string;
  /** The shown content cannot be copied (loading, failed, binary). */
  copyDisabled: boolean;
  /** The shown content is not there to read (loading, failed). */
  readDisabled: boolean;
  onRead: () => void;
  exportBusy: boolean;
  onExport: (format: ExportFormat) => void;
  /** Why Delete is disabled ("" when it is not). */
  deleteBlocked: string;
  /** No Delete button when absent. */
  onDelete?: () => void;
}

/** The version selector and the actions Edit, Compare, Copy, Reader, Export and Delete. */
export function ViewerToolbar(p: ViewerToolbarProps) {
  const { t } = useTranslation('artifacts');
  const old = p.shown !== 'current';
  return (
    <div className="viewer-actions">
      <select
        className="select select-sm version-select"
        aria-label={t('viewer.version')}
        title={p.choices.find((c) => c.ref === p.shown)?.title}
        value={p.shown === 'current' ? 'current' : String(p.shown)}
        onChange={(e) => p.onVersion(e.target.value === 'current' ? 'current' : Number(e.target.value))}
      >
        {p.choices.map((c) => (
          <option key={String(c.ref)} value={String(c.ref)} title={c.title}>
            {c.label}
          </option>
        ))}
      </select>
      <span className="viewer-actions-gap" />
      <button type="button" className="btn btn-sm btn-ghost" onClick={p.onEdit} disabled={p.editBlocked !== ''} title={p.editBlocked || t('viewer.editTitle')}>
        <PencilIcon /> <span className="btn-label">{t('viewer.edit')}</span>
      </button>
      <button
        type="button"
        className="btn btn-sm btn-ghost"
        onClick={p.onCompare}
        disabled={p.compareBlocked !== '' || p.versionsLoading}
        title={p.compareBlocked || t('viewer.compareTitle')}
      >
        <CompareIcon /> <span className="btn-label">{t('viewer.compare')}</span>
      </button>
      <CopyButton text={p.text} label={old ? t('viewer.copyVersion', { version: p.shown }) : t('viewer.copyArtifact')} disabled={p.copyDisabled} />
      <button
        type="button"
        className="btn btn-sm btn-ghost"
        onClick={p.onRead}
        disabled={p.readDisabled}
        title={old ? t('viewer.readVersionTitle', { version: p.shown }) : t('viewer.readTitle')}
      >
        <ExpandIcon /> <span className="btn-label">{t('viewer.reader')}</span>
      </button>
      <ExportMenu busy={p.exportBusy} title={old ? t('viewer.exportVersionTitle', { version: p.shown }) : t('viewer.exportTitle')} onExport={p.onExport} />
      {p.onDelete ? (
        <button
          type="button"
          className="btn btn-sm btn-ghost viewer-delete"
          onClick={p.onDelete}
          disabled={p.deleteBlocked !== ''}
          aria-label={t('common:delete')}
          title={p.deleteBlocked || t('viewer.deleteTitle')}
        >
          <TrashIcon />
        </button>
      ) : null}
    </div>
  );
}

/** The viewer's message, with "Show in folder" after an export saved to disk, and its dismiss button. */
export function ViewerStatusBar({ status, onReveal, onDismiss }: { status: ViewerStatus; onReveal: (path: string) => void; onDismiss: () => void }) {
  const { t } = useTranslation('artifacts');
  return (
    <div className={`viewer-status ${status.kind}`} role={status.kind === 'error' ? 'alert' : 'status'}>
      <span className="viewer-status-text">{status.text}</span>
      {status.savedPath !== undefined ? (
        <button type="button" className="btn btn-sm btn-ghost viewer-reveal" onClick={() => onReveal(status.savedPath ?? '')}>
          {t('viewer.showInFolder')}
        </button>
      ) : null}
      <button type="button" className="icon-btn" onClick={onDismiss} aria-label={t('viewer.dismiss')}>
        <XIcon size={13} />
      </button>
    </div>
  );
}

/** Props of VersionBanner. */
export interface VersionBannerProps {
  version: number;
  /** The version is the one the shown branch's run produced (a later run of another branch changed the artifact). */
  ofBranch?: boolean;
  /** The stored version shown, when the list has it. */
  viewed: ArtifactVersion | undefined;
  restoring: boolean;
  /** Why Restore is disabled ("" when it is not). */
  restoreBlocked: string;
  onRestore: () => void;
  onBack: () => void;
}

/**
 * Over an older version: which one, that it is read-only, Restore and Back to current; for
 * the version of the shown branch, that this branch's run produced it and "Show latest".
 */
export function VersionBanner({ version, ofBranch = false, viewed, restoring, restoreBlocked, onRestore, onBack }: VersionBannerProps) {
  const { t } = useTranslation('artifacts');
  return (
    <div className={`version-banner${ofBranch ? ' version-banner-branch' : ''}`} role="note">
      {ofBranch ? (
        <span className="version-banner-text">{t('viewer.ofBranch', { version })}</span>
      ) : (
      <span className="version-banner-text">
        <strong>v{version}</strong>
        {viewed ? ` · ${updateTypeLabel(viewed.update_type)}` : ''}
        {viewed?.created_at ? ` · ${relativeTime(viewed.created_at)}` : ''}
        {t('viewer.olderReadOnly')}
      </span>
      )}
      <span className="version-banner-actions">
        <button type="button" className="btn btn-sm" onClick={onRestore} disabled={restoring || restoreBlocked !== ''} title={restoreBlocked || t('viewer.restoreTitle', { version })}>
          {restoring ? <Spinner size={12} /> : <RestoreIcon size={13} />} {t('viewer.restore')}
        </button>
        <button type="button" className="btn btn-sm btn-ghost" onClick={onBack}>
          {ofBranch ? t('viewer.showLatest') : t('viewer.backToCurrent')}
        </button>
      </span>
    </div>
  );
}

/** The raw text with line numbers; the numbers are not selectable. */
export function SourceView({ text }: { text: string }) {
  const { t } = useTranslation('artifacts');
  const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
  return (
    <div className="source-view">
      {lines.map((l, i) => (
        <div className="src-line" key={i}>
          <span className="src-ln" aria-hidden="true">
            {i + 1}
          </span>
          <span className="src-tx">{l === '' ? '\u200b' : l}</span>
        </div>
      ))}
      {lines.length === 0 ? <p className="placeholder">{t('viewer.empty')}</p> : null}
    </div>
  );
}

/** An artifact's content as its kind is previewed: a sandboxed HTML frame, Markdown, highlighted code, a binary note or plain text. */
export function ArtifactBody({ kind, contentType, content }: { kind: PreviewKind; contentType: string; content: string }) {
  const { t } = useTranslation('artifacts');
  switch (kind) {
    case 'html':
      // HTML artifacts only in a sandboxed frame without scripts (docs/ARCHITECTURE.md,
      // "Security").
      return <iframe className="html-frame" title={t('viewer.htmlFrame')} sandbox="" srcDoc={offlineHTML(content)} />;
    case 'markdown':
      return <Markdown source={content} className="doc" highlight cite />;
    case 'code':
      return <CodeView code={content} language={contentType} />;
    case 'binary':
      return <p className="binary-note">{content}</p>;
    default:
      return <pre className="plain">{content}</pre>;
  }
}
