import { lazy, Suspense, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { exportArtifact, restoreVersion, toApiError, type ArtifactVersion, type ExportFormat } from '../api';
import { revealExport } from '../api-export';
import { downloadBase64 } from '../files';
import { formatBytes, relativeTime } from '../format';
import { currentLocale } from '../i18n';
import { offlineHTML } from '../markdown';
import { resolveLanguage } from '../highlight';
import {
  currentIsExtra,
  defaultComparePair,
  updateTypeLabel,
  versionChoices,
  versionQuestion,
  versionTitle,
  draftExplained,
  draftsNote,
  type CurrentState,
  type VersionRef,
} from '../versions';
import { CaretIcon, CompareIcon, DownloadIcon, EyeIcon, PencilIcon, RestoreIcon } from './artifact-icons';
import { useRestoredFrom, useVersionContent, useVersions, type ContentState } from './artifactData';
import { TrashIcon } from './declared-icons';
import { Spinner, XIcon } from './icons';
import { ArtifactReader } from './ArtifactReader';
import { ExpandIcon } from './layout-icons';
import { CopyButton } from './CopyButton';
import { CodeView, Markdown } from './Markdown';

// The dialogs (and the diff code they use) load on first use, outside the main bundle.
const CompareDialog = lazy(() => import('./CompareDialog').then((m) => ({ default: m.CompareDialog })));
const EditorDialog = lazy(() => import('./EditorDialog').then((m) => ({ default: m.EditorDialog })));

/** The tabs of the artifact viewer. */
export type ViewerTab = 'preview' | 'source' | 'history';

const TABS: readonly ViewerTab[] = ['preview', 'source', 'history'];
// The tabs' names are artifacts:viewer.tab.<id>.
// i18n-keys: artifacts:viewer.tab.preview artifacts:viewer.tab.source artifacts:viewer.tab.history

const EXPORTS: { format: ExportFormat; label: string; hint: string }[] = [
  { format: 'markdown', label: 'Markdown', hint: '.md' },
  { format: 'html', label: 'HTML', hint: '.html' },
  { format: 'docx', label: 'Word', hint: '.docx' },
];

/** The artifact the viewer shows (the panel's merged row). */
export interface ViewerArtifact {
  id: string;
  title: string;
  contentType: string;
  version: number;
  source: string;
  unsaved: boolean;
}

/** Props of ArtifactViewer. */
export interface ArtifactViewerProps {
  conversationId: string;
  artifact: ViewerArtifact;
  /** The current content (live snapshot or loaded from the store). */
  current: ContentState;
  /** The stored artifacts changed (a save or restore): reload them. */
  onChanged: () => void;
  /** Asks to delete the artifact (the caller confirms first); no Delete button when absent. */
  onDelete?: () => void;
}

/** How a content type is previewed. */
function previewKind(contentType: string): 'markdown' | 'html' | 'code' | 'binary' | 'text' {
  const t = contentType.toLowerCase();
  if (t === '' || t.includes('markdown') || t === 'md') return 'markdown';
  if (t.includes('html')) return 'html';
  if (t === 'binary') return 'binary';
  if (resolveLanguage(t) !== null) return 'code';
  return 'text';
}

/**
 * The selected artifact: tabs Preview | Source | History, a version selector (older
 * versions are read-only and say so), and the actions Edit, Compare, Export (Markdown,
 * HTML, Word), Delete (when onDelete is given) and, on an old version, Restore. Edit,
 * Restore and Delete are disabled while the running research holds unsaved changes to the
 * artifact.
 */
export function ArtifactViewer({ conversationId, artifact, current, onChanged, onDelete }: ArtifactViewerProps) {
  const { t } = useTranslation('artifacts');
  const tabLabel = (id: ViewerTab) => t(`viewer.tab.${id}`);
  const [tab, setTab] = useState<ViewerTab>('preview');
  const [viewing, setViewing] = useState<VersionRef>('current');
  const [editing, setEditing] = useState(false);
  const [compare, setCompare] = useState<[VersionRef, VersionRef] | null>(null);
  const [menu, setMenu] = useState(false);
  const [reading, setReading] = useState(false);
  const [busy, setBusy] = useState<'' | 'export' | 'restore'>('');
  const [status, setStatus] = useState<{ kind: 'ok' | 'error'; text: string; savedPath?: string } | null>(null);
  const tabRefs = useRef<(HTMLButtonElement | null)[]>([]);
  const menuRef = useRef<HTMLDivElement>(null);
  const exportBtn = useRef<HTMLButtonElement>(null);

  const state: CurrentState = { version: artifact.version, unsaved: artifact.unsaved };
  const { versions, error: versionsError, loading: versionsLoading } = useVersions(
    conversationId,
    artifact.id,
    `${String(artifact.version)}/${String(artifact.unsaved)}`,
  );
  const choices = versionChoices(versions, state);
  // A viewed version that no longer exists (e.g. the list changed) falls back to current.
  const shown: VersionRef = viewing !== 'current' && choices.some((c) => c.ref === viewing) ? viewing : 'current';
  const content = useVersionContent(conversationId, artifact.id, shown, current);
  const restoredFrom = useRestoredFrom(conversationId, artifact.id, versions);
  const old = shown !== 'current';
  const viewedVersion = versions.find((v) => v.version === shown);

  // OK messages fade; errors stay until dismissed or replaced.
  useEffect(() => {
    if (status?.kind !== 'ok') return;
    const timer = window.setTimeout(() => setStatus(null), 8000);
    return () => window.clearTimeout(timer);
  }, [status]);

  // The export menu: focus its first item, close on outside click.
  useEffect(() => {
    if (!menu) return;
    menuRef.current?.querySelector<HTMLButtonElement>('button')?.focus();
    const onDown = (e: MouseEvent) => {
      const target = e.target as Node;
      if (!menuRef.current?.contains(target) && !exportBtn.current?.contains(target)) setMenu(false);
    };
    window.addEventListener('mousedown', onDown);
    return () => window.removeEventListener('mousedown', onDown);
  }, [menu]);

  const kind = previewKind(artifact.contentType);
  const unsavedReason = t('viewer.unsavedReason');
  const editBlocked = artifact.unsaved
    ? unsavedReason
    : old
      ? t('viewer.editOld')
      : kind === 'binary'
        ? t('viewer.editBinary')
        : current.loading || current.error !== ''
          ? t('viewer.notLoaded')
          : '';
  const compareBlocked = choices.length < 2 ? t('viewer.oneVersion') : '';

  const selectTab = (i: number) => {
    const next = TABS[(i + TABS.length) % TABS.length];
    if (!next) return;
    setTab(next);
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

  const doExport = (format: ExportFormat) => {
    setMenu(false);
    setBusy('export');
    setStatus(null);
    exportArtifact(conversationId, artifact.id, shown === 'current' ? 0 : shown, format).then(
      (r) => {
        setBusy('');
        if (r.data !== '') {
          try {
            downloadBase64(r.filename, r.mime, r.data);
            setStatus({ kind: 'ok', text: t('viewer.downloaded', { file: r.filename }) });
          } catch (e) {
            setStatus({ kind: 'error', text: t('viewer.exportFailed', { error: toApiError(e).message }) });
          }
        } else if (r.saved_path !== '') {
          setStatus({ kind: 'ok', text: t('viewer.savedTo', { path: r.saved_path }), savedPath: r.saved_path });
        }
        // Neither: the user cancelled the save dialog; nothing to say.
      },
      (e: unknown) => {
        setBusy('');
        setStatus({ kind: 'error', text: t('viewer.exportFailed', { error: toApiError(e).message }) });
      },
    );
  };

  // The exported notice's "Show in folder" (window only: a browser downloads instead).
  const showInFolder = (path: string) => {
    revealExport(path).catch((e: unknown) => setStatus({ kind: 'error', text: t('viewer.revealFailed', { error: toApiError(e).message }) }));
  };

  const doRestore = (version: number) => {
    setBusy('restore');
    setStatus(null);
    restoreVersion(conversationId, artifact.id, version, artifact.version).then(
      (a) => {
        setBusy('');
        setViewing('current');
        setStatus({ kind: 'ok', text: t('viewer.restored', { from: version, to: a.version }) });
        onChanged();
      },
      (e: unknown) => {
        setBusy('');
        const err = toApiError(e);
        setStatus({ kind: 'error', text: err.code === 'conflict' ? t('viewer.notRestored', { error: err.message }) : t('viewer.restoreFailed', { error: err.message }) });
        if (err.code === 'conflict') onChanged();
      },
    );
  };

  const openCompare = (pair?: [VersionRef, VersionRef]) => setCompare(pair ?? defaultComparePair(versions, state, shown));

  const panelId = `artifact-panel-${tab}`;
  return (
    <div className="viewer">
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
              onClick={() => setTab(id)}
              onKeyDown={(e) => onTabKey(e, i)}
            >
              {tabLabel(id)}
              {id === 'history' && versions.length > 0 ? <span className="tab-count">{versions.length}</span> : null}
            </button>
          ))}
        </div>
      </div>
      <div className="viewer-actions">
        <select
          className="select select-sm version-select"
          aria-label={t('viewer.version')}
          title={choices.find((c) => c.ref === shown)?.title}
          value={shown === 'current' ? 'current' : String(shown)}
          onChange={(e) => setViewing(e.target.value === 'current' ? 'current' : Number(e.target.value))}
        >
          {choices.map((c) => (
            <option key={String(c.ref)} value={String(c.ref)} title={c.title}>
              {c.label}
            </option>
          ))}
        </select>
        <span className="viewer-actions-gap" />
        <button
          type="button"
          className="btn btn-sm btn-ghost"
          onClick={() => setEditing(true)}
          disabled={editBlocked !== ''}
          title={editBlocked || t('viewer.editTitle')}
        >
          <PencilIcon /> <span className="btn-label">{t('viewer.edit')}</span>
        </button>
        <button
          type="button"
          className="btn btn-sm btn-ghost"
          onClick={() => openCompare()}
          disabled={compareBlocked !== '' || versionsLoading}
          title={compareBlocked || t('viewer.compareTitle')}
        >
          <CompareIcon /> <span className="btn-label">{t('viewer.compare')}</span>
        </button>
        <CopyButton
          text={() => content.content}
          label={old ? t('viewer.copyVersion', { version: shown }) : t('viewer.copyArtifact')}
          disabled={content.loading || content.error !== '' || kind === 'binary'}
        />
        <button
          type="button"
          className="btn btn-sm btn-ghost"
          onClick={() => setReading(true)}
          disabled={content.loading || content.error !== ''}
          title={old ? t('viewer.readVersionTitle', { version: shown }) : t('viewer.readTitle')}
        >
          <ExpandIcon /> <span className="btn-label">{t('viewer.reader')}</span>
        </button>
        <span className="menu-anchor">
          <button
            ref={exportBtn}
            type="button"
            className="btn btn-sm btn-ghost"
            aria-haspopup="menu"
            aria-expanded={menu}
            disabled={busy === 'export'}
            onClick={() => setMenu((m) => !m)}
            title={old ? t('viewer.exportVersionTitle', { version: shown }) : t('viewer.exportTitle')}
          >
            {busy === 'export' ? <Spinner size={13} /> : <DownloadIcon />} <span className="btn-label">{t('common:export')}</span> <CaretIcon />
          </button>
          {menu ? (
            <div
              className="menu menu-export"
              role="menu"
              ref={menuRef}
              aria-label={t('viewer.exportAs')}
              onKeyDown={(e) => {
                const items = Array.from(menuRef.current?.querySelectorAll<HTMLButtonElement>('button') ?? []);
                const i = items.indexOf(document.activeElement as HTMLButtonElement);
                if (e.key === 'Escape') {
                  e.preventDefault();
                  e.stopPropagation();
                  setMenu(false);
                  exportBtn.current?.focus();
                } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
                  e.preventDefault();
                  items[(i + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length]?.focus();
                } else if (e.key === 'Tab') {
                  setMenu(false);
                }
              }}
            >
              {EXPORTS.map((x) => (
                <button key={x.format} type="button" role="menuitem" onClick={() => doExport(x.format)}>
                  {x.label} <span className="muted">{x.hint}</span>
                </button>
              ))}
            </div>
          ) : null}
        </span>
        {onDelete ? (
          <button
            type="button"
            className="btn btn-sm btn-ghost viewer-delete"
            onClick={onDelete}
            disabled={artifact.unsaved}
            aria-label={t('common:delete')}
            title={artifact.unsaved ? unsavedReason : t('viewer.deleteTitle')}
          >
            <TrashIcon />
          </button>
        ) : null}
      </div>
      {status ? (
        <div className={`viewer-status ${status.kind}`} role={status.kind === 'error' ? 'alert' : 'status'}>
          <span className="viewer-status-text">{status.text}</span>
          {status.savedPath !== undefined ? (
            <button type="button" className="btn btn-sm btn-ghost viewer-reveal" onClick={() => showInFolder(status.savedPath ?? '')}>
              {t('viewer.showInFolder')}
            </button>
          ) : null}
          <button type="button" className="icon-btn" onClick={() => setStatus(null)} aria-label={t('viewer.dismiss')}>
            <XIcon size={13} />
          </button>
        </div>
      ) : null}
      {artifact.unsaved && !old ? (
        <div className="viewer-note" role="note">
          <span className="unsaved-dot" aria-hidden="true" /> {unsavedReason}
        </div>
      ) : null}
      {old ? (
        <div className="version-banner" role="note">
          <span className="version-banner-text">
            <strong>v{shown}</strong>
            {viewedVersion ? ` · ${updateTypeLabel(viewedVersion.update_type)}` : ''}
            {viewedVersion?.created_at ? ` · ${relativeTime(viewedVersion.created_at)}` : ''}
            {t('viewer.olderReadOnly')}
          </span>
          <span className="version-banner-actions">
            <button
              type="button"
              className="btn btn-sm"
              onClick={() => doRestore(shown)}
              disabled={busy === 'restore' || artifact.unsaved}
              title={artifact.unsaved ? unsavedReason : t('viewer.restoreTitle', { version: shown })}
            >
              {busy === 'restore' ? <Spinner size={12} /> : <RestoreIcon size={13} />} {t('viewer.restore')}
            </button>
            <button type="button" className="btn btn-sm btn-ghost" onClick={() => setViewing('current')}>
              {t('viewer.backToCurrent')}
            </button>
          </span>
        </div>
      ) : null}
      <div
        className={`preview tab-${tab}`}
        role="tabpanel"
        id={panelId}
        aria-label={old ? t('viewer.panelOfVersion', { view: tabLabel(tab), id: artifact.id, version: shown }) : t('viewer.panelOf', { view: tabLabel(tab), id: artifact.id })}
        tabIndex={0}
      >
        {tab === 'history' ? (
          <History
            versions={versions}
            loading={versionsLoading}
            error={versionsError}
            state={state}
            restoredFrom={restoredFrom}
            shown={shown}
            onView={(v) => {
              setViewing(v);
              setTab('preview');
            }}
            onCompare={(v) => openCompare(v === 'current' ? undefined : [v, 'current'])}
          />
        ) : content.loading ? (
          <p className="placeholder">
            <Spinner size={12} /> {t('common:loading')}
          </p>
        ) : content.error ? (
          <p className="error-text">{content.error}</p>
        ) : tab === 'source' ? (
          <SourceView text={content.content} />
        ) : (
          <ArtifactBody kind={kind} contentType={artifact.contentType} content={content.content} />
        )}
      </div>
      {reading && !content.loading && content.error === '' ? (
        <ArtifactReader
          title={artifact.title || artifact.id}
          meta={`${artifact.id} · v${String(old ? shown : artifact.version)}${old ? t('viewer.readerOlder') : ''}${tab === 'source' ? t('viewer.readerSource') : ''}`}
          onClose={() => setReading(false)}
        >
          {tab === 'source' ? <SourceView text={content.content} /> : <ArtifactBody kind={kind} contentType={artifact.contentType} content={content.content} />}
        </ArtifactReader>
      ) : null}
      <Suspense fallback={null}>
        {editing ? (
          <EditorDialog
            conversationId={conversationId}
            artifactId={artifact.id}
            title={artifact.title || artifact.id}
            baseVersion={artifact.version}
            initialContent={current.content}
            onClose={() => setEditing(false)}
            onSaved={(a) => {
              setStatus({ kind: 'ok', text: t('viewer.savedAs', { version: a.version }) });
              onChanged();
            }}
          />
        ) : null}
        {compare ? (
          <CompareDialog
            conversationId={conversationId}
            artifactId={artifact.id}
            title={artifact.title || artifact.id}
            versions={versions}
            current={state}
            currentContent={current}
            initial={compare}
            onClose={() => setCompare(null)}
          />
        ) : null}
      </Suspense>
    </div>
  );
}

/** Props of History. */
interface HistoryProps {
  versions: ArtifactVersion[];
  loading: boolean;
  error: string;
  state: CurrentState;
  restoredFrom: ReadonlyMap<number, number>;
  shown: VersionRef;
  onView: (v: VersionRef) => void;
  onCompare: (v: VersionRef) => void;
}

function History({ versions, loading, error, state, restoredFrom, shown, onView, onCompare }: HistoryProps) {
  const { t } = useTranslation('artifacts');
  const extra = currentIsExtra(versions, state);
  if (error) return <p className="error-text">{t('history.loadFailed', { error })}</p>;
  if (loading && versions.length === 0) {
    return (
      <p className="placeholder">
        <Spinner size={12} /> {t('history.loading')}
      </p>
    );
  }
  return (
    <ol className="history" aria-label={t('history.label')}>
      {extra ? (
        <li className={`history-item current${shown === 'current' ? ' viewing' : ''}`}>
          <div className="history-head">
            <span className="history-v">v{state.version}</span>
            <span className="history-type">{state.unsaved ? t('history.changing') : t('history.current')}</span>
            <span className="badge badge-warn">{state.unsaved ? t('history.badgeDraft') : t('history.badgeCurrent')}</span>
          </div>
          <div className="history-q muted">{state.unsaved ? draftExplained() : t('history.notStored')}</div>
        </li>
      ) : null}
      {[...versions].reverse().map((v) => {
        const isCurrent = !extra && v.version === state.version;
        const ref: VersionRef = isCurrent ? 'current' : v.version;
        const question = versionQuestion(v);
        const drafts = draftsNote(versions, v);
        const exact = new Date(v.created_at);
        return (
          <li key={v.version} className={`history-item${shown === ref ? ' viewing' : ''}`}>
            <div className="history-head">
              <span className="history-v">v{v.version}</span>
              <span className="history-type">{versionTitle(v, restoredFrom.get(v.version))}</span>
              {isCurrent ? <span className="badge badge-agent">{t('history.badgeCurrent')}</span> : null}
              <time className="history-time" dateTime={v.created_at} title={Number.isNaN(exact.getTime()) ? v.created_at : exact.toLocaleString(currentLocale())}>
                {relativeTime(v.created_at)}
              </time>
            </div>
            {question ? (
              <div className="history-q" title={t('history.questionTitle')}>
                “{question}”
              </div>
            ) : null}
            {drafts ? <div className="history-q muted history-drafts">{drafts}</div> : null}
            <div className="history-foot">
              <span className="muted">{formatBytes(v.size)}</span>
              <span className="history-actions">
                <button type="button" className="link-btn" onClick={() => onView(ref)} aria-label={t('history.viewAria', { version: v.version })}>
                  <EyeIcon size={13} /> {t('history.view')}
                </button>
                {!isCurrent ? (
                  <button type="button" className="link-btn" onClick={() => onCompare(ref)} aria-label={t('history.compareAria', { version: v.version })}>
                    <CompareIcon size={13} /> {t('history.compareWithCurrent')}
                  </button>
                ) : null}
              </span>
            </div>
          </li>
        );
      })}
      {versions.length === 0 && !extra ? <li className="placeholder">{t('history.none')}</li> : null}
    </ol>
  );
}

/** The raw text with line numbers; the numbers are not selectable. */
function SourceView({ text }: { text: string }) {
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

function ArtifactBody({ kind, contentType, content }: { kind: ReturnType<typeof previewKind>; contentType: string; content: string }) {
  const { t } = useTranslation('artifacts');
  switch (kind) {
    case 'html':
      // HTML artifacts only in a sandboxed frame without scripts (DESIGN.md, "Frontend").
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
