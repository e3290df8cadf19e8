import { lazy, Suspense, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { exportArtifact, restoreVersion, toApiError, type ArtifactVersion, type ExportFormat } from '../api';
import { revealExport } from '../api-export';
import { downloadBase64 } from '../files';
import { formatBytes, relativeTime } from '../format';
import { offlineHTML } from '../markdown';
import { resolveLanguage } from '../highlight';
import {
  currentIsExtra,
  defaultComparePair,
  updateTypeLabel,
  versionChoices,
  versionQuestion,
  versionTitle,
  DRAFT_EXPLAINED,
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

const TABS: { id: ViewerTab; label: string }[] = [
  { id: 'preview', label: 'Preview' },
  { id: 'source', label: 'Source' },
  { id: 'history', label: 'History' },
];

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
    const t = window.setTimeout(() => setStatus(null), 8000);
    return () => window.clearTimeout(t);
  }, [status]);

  // The export menu: focus its first item, close on outside click.
  useEffect(() => {
    if (!menu) return;
    menuRef.current?.querySelector<HTMLButtonElement>('button')?.focus();
    const onDown = (e: MouseEvent) => {
      const t = e.target as Node;
      if (!menuRef.current?.contains(t) && !exportBtn.current?.contains(t)) setMenu(false);
    };
    window.addEventListener('mousedown', onDown);
    return () => window.removeEventListener('mousedown', onDown);
  }, [menu]);

  const kind = previewKind(artifact.contentType);
  const unsavedReason = 'The running research is changing this artifact; you can edit it when the run has finished.';
  const editBlocked = artifact.unsaved
    ? unsavedReason
    : old
      ? 'Old versions are read-only: restore this version, or switch to the current one, to edit.'
      : kind === 'binary'
        ? 'The text of this file could not be read, so there is nothing to edit.'
        : current.loading || current.error !== ''
          ? 'The content has not loaded.'
          : '';
  const compareBlocked = choices.length < 2 ? 'There is only one version so far.' : '';

  const selectTab = (i: number) => {
    const t = TABS[(i + TABS.length) % TABS.length];
    if (!t) return;
    setTab(t.id);
    tabRefs.current[TABS.indexOf(t)]?.focus();
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
            setStatus({ kind: 'ok', text: `Downloaded ${r.filename}` });
          } catch (e) {
            setStatus({ kind: 'error', text: `Export failed: ${toApiError(e).message}` });
          }
        } else if (r.saved_path !== '') {
          setStatus({ kind: 'ok', text: `Saved to ${r.saved_path}`, savedPath: r.saved_path });
        }
        // Neither: the user cancelled the save dialog; nothing to say.
      },
      (e: unknown) => {
        setBusy('');
        setStatus({ kind: 'error', text: `Export failed: ${toApiError(e).message}` });
      },
    );
  };

  // The exported notice's "Show in folder" (window only: a browser downloads instead).
  const showInFolder = (path: string) => {
    revealExport(path).catch((e: unknown) => setStatus({ kind: 'error', text: `Could not show the file: ${toApiError(e).message}` }));
  };

  const doRestore = (version: number) => {
    setBusy('restore');
    setStatus(null);
    restoreVersion(conversationId, artifact.id, version, artifact.version).then(
      (a) => {
        setBusy('');
        setViewing('current');
        setStatus({ kind: 'ok', text: `Restored v${String(version)} as v${String(a.version)}.` });
        onChanged();
      },
      (e: unknown) => {
        setBusy('');
        const err = toApiError(e);
        setStatus({ kind: 'error', text: err.code === 'conflict' ? `Not restored: ${err.message}` : `Restore failed: ${err.message}` });
        if (err.code === 'conflict') onChanged();
      },
    );
  };

  const openCompare = (pair?: [VersionRef, VersionRef]) => setCompare(pair ?? defaultComparePair(versions, state, shown));

  const panelId = `artifact-panel-${tab}`;
  return (
    <div className="viewer">
      <div className="viewer-bar">
        <div className="tabs" role="tablist" aria-label="Artifact views">
          {TABS.map((t, i) => (
            <button
              key={t.id}
              ref={(el) => {
                tabRefs.current[i] = el;
              }}
              type="button"
              role="tab"
              id={`artifact-tab-${t.id}`}
              aria-selected={tab === t.id}
              aria-controls={`artifact-panel-${t.id}`}
              tabIndex={tab === t.id ? 0 : -1}
              className={`tab${tab === t.id ? ' active' : ''}`}
              onClick={() => setTab(t.id)}
              onKeyDown={(e) => onTabKey(e, i)}
            >
              {t.label}
              {t.id === 'history' && versions.length > 0 ? <span className="tab-count">{versions.length}</span> : null}
            </button>
          ))}
        </div>
      </div>
      <div className="viewer-actions">
        <select
          className="select select-sm version-select"
          aria-label="Version"
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
          title={editBlocked || 'Edit the source (a new version)'}
        >
          <PencilIcon /> <span className="btn-label">Edit</span>
        </button>
        <button
          type="button"
          className="btn btn-sm btn-ghost"
          onClick={() => openCompare()}
          disabled={compareBlocked !== '' || versionsLoading}
          title={compareBlocked || 'Compare two versions'}
        >
          <CompareIcon /> <span className="btn-label">Compare</span>
        </button>
        <CopyButton
          text={() => content.content}
          label={old ? `Copy v${String(shown)}` : 'Copy artifact'}
          disabled={content.loading || content.error !== '' || kind === 'binary'}
        />
        <button
          type="button"
          className="btn btn-sm btn-ghost"
          onClick={() => setReading(true)}
          disabled={content.loading || content.error !== ''}
          title={old ? `Read v${String(shown)} full-window (Esc closes)` : 'Read full-window (Esc closes)'}
        >
          <ExpandIcon /> <span className="btn-label">Reader</span>
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
            title={old ? `Export v${String(shown)}` : 'Export the current version'}
          >
            {busy === 'export' ? <Spinner size={13} /> : <DownloadIcon />} <span className="btn-label">Export</span> <CaretIcon />
          </button>
          {menu ? (
            <div
              className="menu menu-export"
              role="menu"
              ref={menuRef}
              aria-label="Export as"
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
            aria-label="Delete"
            title={artifact.unsaved ? unsavedReason : 'Delete this artifact and all its versions'}
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
              Show in folder
            </button>
          ) : null}
          <button type="button" className="icon-btn" onClick={() => setStatus(null)} aria-label="Dismiss">
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
            {viewedVersion?.created_at ? ` · ${relativeTime(viewedVersion.created_at)}` : ''} — an older version, read-only
          </span>
          <span className="version-banner-actions">
            <button
              type="button"
              className="btn btn-sm"
              onClick={() => doRestore(shown)}
              disabled={busy === 'restore' || artifact.unsaved}
              title={artifact.unsaved ? unsavedReason : `Make v${String(shown)} the current version (a new version; nothing is lost)`}
            >
              {busy === 'restore' ? <Spinner size={12} /> : <RestoreIcon size={13} />} Restore
            </button>
            <button type="button" className="btn btn-sm btn-ghost" onClick={() => setViewing('current')}>
              Back to current
            </button>
          </span>
        </div>
      ) : null}
      <div
        className={`preview tab-${tab}`}
        role="tabpanel"
        id={panelId}
        aria-label={`${TABS.find((t) => t.id === tab)?.label ?? ''} of ${artifact.id}${old ? ` v${String(shown)}` : ''}`}
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
            <Spinner size={12} /> Loading…
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
          meta={`${artifact.id} · v${String(old ? shown : artifact.version)}${old ? ' (an older version)' : ''}${tab === 'source' ? ' · source' : ''}`}
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
              setStatus({ kind: 'ok', text: `Saved as v${String(a.version)}.` });
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
  const extra = currentIsExtra(versions, state);
  if (error) return <p className="error-text">Could not load the versions: {error}</p>;
  if (loading && versions.length === 0) {
    return (
      <p className="placeholder">
        <Spinner size={12} /> Loading versions…
      </p>
    );
  }
  return (
    <ol className="history" aria-label="Versions, newest first">
      {extra ? (
        <li className={`history-item current${shown === 'current' ? ' viewing' : ''}`}>
          <div className="history-head">
            <span className="history-v">v{state.version}</span>
            <span className="history-type">{state.unsaved ? 'Changing' : 'Current'}</span>
            <span className="badge badge-warn">{state.unsaved ? 'draft' : 'current'}</span>
          </div>
          <div className="history-q muted">{state.unsaved ? DRAFT_EXPLAINED : 'Not stored as a version yet.'}</div>
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
              {isCurrent ? <span className="badge badge-agent">current</span> : null}
              <time className="history-time" dateTime={v.created_at} title={Number.isNaN(exact.getTime()) ? v.created_at : exact.toLocaleString()}>
                {relativeTime(v.created_at)}
              </time>
            </div>
            {question ? (
              <div className="history-q" title="The question whose research wrote this version">
                “{question}”
              </div>
            ) : null}
            {drafts ? <div className="history-q muted history-drafts">{drafts}</div> : null}
            <div className="history-foot">
              <span className="muted">{formatBytes(v.size)}</span>
              <span className="history-actions">
                <button type="button" className="link-btn" onClick={() => onView(ref)} aria-label={`View v${String(v.version)}`}>
                  <EyeIcon size={13} /> View
                </button>
                {!isCurrent ? (
                  <button type="button" className="link-btn" onClick={() => onCompare(ref)} aria-label={`Compare v${String(v.version)} with the current version`}>
                    <CompareIcon size={13} /> Compare with current
                  </button>
                ) : null}
              </span>
            </div>
          </li>
        );
      })}
      {versions.length === 0 && !extra ? <li className="placeholder">No stored versions yet.</li> : null}
    </ol>
  );
}

/** The raw text with line numbers; the numbers are not selectable. */
function SourceView({ text }: { text: string }) {
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
      {lines.length === 0 ? <p className="placeholder">Empty.</p> : null}
    </div>
  );
}

function ArtifactBody({ kind, contentType, content }: { kind: ReturnType<typeof previewKind>; contentType: string; content: string }) {
  switch (kind) {
    case 'html':
      // HTML artifacts only in a sandboxed frame without scripts (DESIGN.md, "Frontend").
      return <iframe className="html-frame" title="HTML artifact" sandbox="" srcDoc={offlineHTML(content)} />;
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
