import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { getArtifact, toApiError, type ArtifactSummary } from '../api';
import { deleteArtifact, type DeclaredArtifact } from '../api-declared';
import type { LiveArtifact } from '../events';
import { formatBytes } from '../format';
import '../i18n'; // the UI's language, set up before the first render
import { UploadIcon } from './artifact-icons';
import { ArtifactViewer } from './ArtifactViewer';
import { useCitations } from './Citations';
import { DeclaredList } from './DeclaredList';
import { LinkIcon, TrashIcon } from './declared-icons';
import { DocIcon, ListCheckIcon, Spinner } from './icons';
import { Markdown } from './Markdown';
import { ConfirmDialog } from './Modal';
import { WorkspaceBar } from './WorkspaceBar';
import { SourcesList } from './SourcesList';
import './artifacts.css';
import './declared.css';

/** The id of the task plan artifact (seed 000). */
export const TASK_PLAN_ID = 'task_plan';

/** One artifact row: the stored summary merged with the live snapshot, if any. */
export interface ArtifactRow {
  id: string;
  title: string;
  contentType: string;
  version: number;
  source: string;
  size: number;
  unsaved: boolean;
  /** Content from the live snapshot; undefined when it must be loaded from the store. */
  content?: string;
}

/**
 * Merges the stored list with live artifact_changed snapshots: a snapshot whose version is
 * not older than the stored one wins and carries its content and unsaved state. Stored order is kept; artifacts
 * only known live are appended in id order.
 */
export function mergeArtifacts(stored: ArtifactSummary[], live: Record<string, LiveArtifact>): ArtifactRow[] {
  const rows: ArtifactRow[] = stored.map((a) => {
    const l = live[a.id];
    const base: ArtifactRow = {
      id: a.id,
      title: a.title,
      contentType: a.content_type,
      version: a.version,
      source: a.source,
      size: a.size,
      unsaved: a.unsaved,
    };
    return !l || l.snapshot.version < a.version ? base : fromLive(l);
  });
  const known = new Set(stored.map((a) => a.id));
  for (const [id, l] of Object.entries(live).sort(([a], [b]) => a.localeCompare(b))) {
    if (!known.has(id)) rows.push(fromLive(l));
  }
  return rows;
}

function fromLive(l: LiveArtifact): ArtifactRow {
  const s = l.snapshot;
  return {
    id: s.id,
    title: s.title,
    contentType: s.content_type,
    version: s.version,
    source: s.source,
    size: new TextEncoder().encode(s.content).length,
    unsaved: l.unsaved,
    content: s.content,
  };
}

/** Loads an artifact's content (again when its version changes) unless the live snapshot has it. */
function useArtifactContent(conversationId: string | null, row: ArtifactRow | undefined) {
  const [loaded, setLoaded] = useState<{ key: string; content?: string; error?: string } | null>(null);
  const id = row?.id ?? '';
  const version = row?.version ?? 0;
  const key = `${conversationId ?? ''}/${id}/${String(version)}`;
  const needsLoad = conversationId !== null && row !== undefined && row.content === undefined;
  useEffect(() => {
    if (!needsLoad) return;
    let stale = false;
    getArtifact(conversationId, id).then(
      (a) => {
        if (!stale) setLoaded({ key, content: a.content });
      },
      (e: unknown) => {
        if (!stale) setLoaded({ key, error: e instanceof Error ? e.message : String(e) });
      },
    );
    return () => {
      stale = true;
    };
  }, [needsLoad, conversationId, id, key]);
  if (row?.content !== undefined) return { content: row.content, error: '', loading: false };
  if (loaded?.key === key) return { content: loaded.content ?? '', error: loaded.error ?? '', loading: false };
  return { content: '', error: '', loading: needsLoad };
}

/** Props of ArtifactPanel. */
export interface ArtifactPanelProps {
  conversationId: string | null;
  rows: ArtifactRow[];
  selectedId: string | null;
  onSelect: (id: string) => void;
  running: boolean;
  /** The stored artifacts changed (an edit was saved, a version restored): reload them. */
  onChanged: () => void;
  /** Files picked with "Add files" (uploaded to this conversation, or a new one). */
  onAddFiles: (files: File[]) => void;
  /** The conversation's declared artifacts (seed 002), oldest first; the section hides when empty. */
  declared?: DeclaredArtifact[];
  /** A declared artifact was removed by the user. */
  onDeclaredRemoved?: (artifactId: string) => void;
  /** A document was deleted by the user (its artifact_changed event follows). */
  onDeleted?: (artifactId: string) => void;
  /** Choosing a research folder with no conversation open started this one: open it. */
  onWorkspaceConversation?: (conversationId: string) => void;
}

const isUpload = (r: ArtifactRow) => r.source === 'user_upload' || r.source === 'upload';

/** The tabs of the panel's lower part. */
type PanelTab = 'artifacts' | 'sources';
const PANEL_TABS: readonly PanelTab[] = ['artifacts', 'sources'];

/**
 * The right column: the task plan (rendered checklist) and, below, the artifact list with
 * source badge, version and a live "unsaved" dot, an "Add files" button, the "Links & files"
 * of the conversation (declared artifacts, DeclaredList), and the viewer of the selected
 * artifact (preview, source, history, edit, compare, export, delete). Any document, the task
 * plan included, can be deleted after a confirmation that says what goes with it. A second
 * tab, Sources, lists the conversation's numbered sources (of the nearest
 * CitationProvider) with a filter box (issue 9); arrow keys move between the tabs.
 */
export function ArtifactPanel({
  conversationId,
  rows,
  selectedId,
  onSelect,
  running,
  onChanged,
  onAddFiles,
  declared = [],
  onDeclaredRemoved,
  onDeleted,
  onWorkspaceConversation,
}: ArtifactPanelProps) {
  const { t } = useTranslation('artifacts');
  const fileInput = useRef<HTMLInputElement>(null);
  const [tab, setTab] = useState<PanelTab>('artifacts');
  const tabRefs = useRef<Partial<Record<PanelTab, HTMLButtonElement | null>>>({});
  const citations = useCitations();
  const sourceCount = citations?.sources?.length ?? 0;
  const [deleting, setDeleting] = useState<ArtifactRow | null>(null);
  const [deleteBusy, setDeleteBusy] = useState(false);
  const [deleteError, setDeleteError] = useState('');
  const plan = rows.find((r) => r.id === TASK_PLAN_ID);
  const others = rows.filter((r) => r.id !== TASK_PLAN_ID);
  // The task plan opens in the viewer like any artifact (history, export, reader) when chosen.
  const selected = (selectedId === TASK_PLAN_ID ? plan : undefined) ?? others.find((r) => r.id === selectedId) ?? others[0];
  const planContent = useArtifactContent(conversationId, plan);
  const preview = useArtifactContent(conversationId, selected);

  const onTabKey = (e: KeyboardEvent) => {
    const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    const to = e.key === 'Home' ? PANEL_TABS[0] : e.key === 'End' ? PANEL_TABS.at(-1) : step !== 0 ? PANEL_TABS[(PANEL_TABS.indexOf(tab) + step + PANEL_TABS.length) % PANEL_TABS.length] : undefined;
    if (to === undefined) return;
    e.preventDefault();
    setTab(to);
    tabRefs.current[to]?.focus();
  };

  const askDelete = (r: ArtifactRow) => {
    setDeleteError('');
    setDeleting(r);
  };
  const confirmDelete = () => {
    if (deleting === null || conversationId === null) return;
    const id = deleting.id;
    setDeleteBusy(true);
    setDeleteError('');
    deleteArtifact(conversationId, id).then(
      () => {
        setDeleteBusy(false);
        setDeleting(null);
        onDeleted?.(id);
      },
      (e: unknown) => {
        setDeleteBusy(false);
        setDeleteError(toApiError(e).message);
      },
    );
  };

  return (
    <aside className="panel" aria-label={t('panel.label')}>
      <WorkspaceBar conversationId={conversationId} onConversation={onWorkspaceConversation} />
      <section className="plan" aria-label={t('panel.plan')}>
        <header className="panel-head">
          <ListCheckIcon size={15} />
          <h2>{t('panel.plan')}</h2>
          {plan ? <span className="muted small">v{plan.version}</span> : null}
          {plan?.unsaved ? <UnsavedDot /> : null}
          {plan ? <PlanProgress content={planContent.content} /> : null}
          {plan && conversationId !== null ? (
            <button
              type="button"
              className={`icon-btn plan-open${selected?.id === TASK_PLAN_ID ? ' active' : ''}`}
              onClick={() => {
                setTab('artifacts');
                onSelect(TASK_PLAN_ID);
              }}
              aria-label={t('panel.openPlan')}
              title={t('panel.openPlanTitle')}
            >
              <DocIcon size={14} />
            </button>
          ) : null}
          {plan && conversationId !== null ? (
            <button
              type="button"
              className="icon-btn plan-delete"
              onClick={() => askDelete(plan)}
              disabled={plan.unsaved}
              aria-label={t('panel.deletePlan')}
              title={plan.unsaved ? t('panel.deletePlanBusy') : t('panel.deletePlan')}
            >
              <TrashIcon size={14} />
            </button>
          ) : null}
        </header>
        <div className="plan-body">
          {!plan ? (
            <p className="placeholder">
              {running
                ? t('panel.planWaiting')
                : t('panel.planEmpty')}
            </p>
          ) : planContent.loading ? (
            <p className="placeholder">
              <Spinner size={12} /> {t('common:loading')}
            </p>
          ) : planContent.error ? (
            <p className="error-text">{planContent.error}</p>
          ) : (
            <Markdown source={planContent.content} className="plan-md" />
          )}
        </div>
      </section>
      <section className="artifacts" aria-label={t('panel.artifacts')}>
        <header className="panel-head">
          <div className="panel-tabs" role="tablist" aria-label={t('panel.tabs')} onKeyDown={onTabKey}>
            <button
              ref={(el) => {
                tabRefs.current.artifacts = el;
              }}
              type="button"
              role="tab"
              id="panel-tab-artifacts"
              className="panel-tab"
              aria-selected={tab === 'artifacts'}
              tabIndex={tab === 'artifacts' ? 0 : -1}
              onClick={() => setTab('artifacts')}
            >
              <DocIcon size={15} />
              <span>{t('panel.artifacts')}</span>
              {others.length > 0 ? <span className="count">{others.length}</span> : null}
            </button>
            <button
              ref={(el) => {
                tabRefs.current.sources = el;
              }}
              type="button"
              role="tab"
              id="panel-tab-sources"
              className="panel-tab"
              aria-selected={tab === 'sources'}
              aria-controls={tab === 'sources' ? 'panel-sources' : undefined}
              tabIndex={tab === 'sources' ? 0 : -1}
              onClick={() => setTab('sources')}
            >
              <LinkIcon size={15} />
              <span>{t('panel.sources')}</span>
              {sourceCount > 0 ? <span className="count">{sourceCount}</span> : null}
            </button>
          </div>
          <button
            type="button"
            className="btn btn-sm btn-ghost add-files"
            onClick={() => fileInput.current?.click()}
            title={conversationId === null ? t('panel.addFilesNew') : t('panel.addFilesThis')}
          >
            <UploadIcon size={14} /> {t('panel.addFiles')}
          </button>
          <input
            ref={fileInput}
            type="file"
            multiple
            hidden
            aria-label={t('panel.filesToAdd')}
            data-testid="add-files-input"
            onChange={(e) => {
              const files = Array.from(e.target.files ?? []);
              e.target.value = '';
              if (files.length > 0) onAddFiles(files);
            }}
          />
        </header>
        {tab === 'sources' ? (
          <div className="sources-tabpanel" role="tabpanel" id="panel-sources" aria-labelledby="panel-tab-sources">
            <SourcesList sources={conversationId === null ? [] : (citations?.sources ?? null)} error={citations?.error ?? ''} />
          </div>
        ) : others.length === 0 ? (
          <p className="placeholder">{t('panel.empty')}</p>
        ) : (
          <ul className="artifact-list" role="listbox" aria-label={t('panel.artifacts')}>
            {others.map((r) => (
              <li key={r.id} role="presentation">
                <button
                  type="button"
                  role="option"
                  aria-selected={r.id === selected?.id}
                  className={`artifact-row${r.id === selected?.id ? ' selected' : ''}`}
                  onClick={() => onSelect(r.id)}
                >
                  <span className="artifact-title">
                    <span className="name">{r.title || r.id}</span>
                    {r.unsaved ? <UnsavedDot /> : null}
                  </span>
                  <span className="artifact-meta">
                    <code>{r.id}</code>
                    <span>v{r.version}</span>
                    <span>{formatBytes(r.size)}</span>
                    <span className={`badge badge-${isUpload(r) ? 'upload' : 'agent'}`}>{isUpload(r) ? t('panel.badgeUpload') : t('panel.badgeAgent')}</span>
                  </span>
                </button>
              </li>
            ))}
          </ul>
        )}
        {tab === 'artifacts' && conversationId !== null && declared.length > 0 ? (
          <DeclaredList conversationId={conversationId} items={declared} onRemoved={(id) => onDeclaredRemoved?.(id)} />
        ) : null}
        {tab === 'artifacts' && selected && conversationId !== null ? (
          <ArtifactViewer
            key={`${conversationId}/${selected.id}`}
            conversationId={conversationId}
            artifact={selected}
            current={preview}
            onChanged={onChanged}
            onDelete={() => askDelete(selected)}
          />
        ) : null}
      </section>
      {deleting ? (
        <ConfirmDialog
          title={deleting.id === TASK_PLAN_ID ? t('panel.deletePlanConfirm') : t('panel.deleteArtifactConfirm')}
          message={<DeleteMessage row={deleting} />}
          confirmLabel={deleteBusy ? t('panel.deleting') : t('common:delete')}
          danger
          busy={deleteBusy}
          error={deleteError}
          onConfirm={confirmDelete}
          onCancel={() => setDeleting(null)}
        />
      ) : null}
    </aside>
  );
}

/** What deleting a document takes with it, for the confirmation. */
function DeleteMessage({ row }: { row: ArtifactRow }) {
  const { t } = useTranslation('artifacts');
  return (
    <>
      <p>
        <strong>{row.title || row.id}</strong>
        {t('panel.deleteMessage')}
      </p>
      {row.id === TASK_PLAN_ID ? (
        <p className="muted">{t('panel.deletePlanNote')}</p>
      ) : isUpload(row) ? (
        <p className="muted">{t('panel.deleteUploadNote')}</p>
      ) : null}
    </>
  );
}

function UnsavedDot() {
  const { t } = useTranslation('artifacts');
  return <span className="unsaved-dot" title={t('panel.unsavedTitle')} aria-label={t('panel.unsaved')} />;
}

function PlanProgress({ content }: { content: string }) {
  const { t } = useTranslation('artifacts');
  const done = (content.match(/^\s*[-*+]\s+\[(x|X|✓|✔)\]/gmu) ?? []).length;
  const total = (content.match(/^\s*[-*+]\s+\[.\]/gmu) ?? []).length;
  if (total === 0) return null;
  return (
    <span className="plan-progress" aria-label={t('panel.planProgress', { done, total })}>
      <span className="bar">
        <span style={{ width: `${String(Math.round((done / total) * 100))}%` }} />
      </span>
      {done}/{total}
    </span>
  );
}
