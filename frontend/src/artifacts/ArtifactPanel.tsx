import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DeclaredArtifact } from '../api/artifacts';
import { TASK_PLAN_ID, type ArtifactRow } from './rows';
import { useArtifactContent } from './useArtifactContent';
import { useDeleteArtifact } from './useDeleteArtifact';
import '../i18n/i18n'; // the UI's language, set up before the first render
import { LazyArtifactViewer } from './LazyArtifactViewer';
import { useCitations } from '../sources/Citations';
import { DeclaredList } from '../declared/DeclaredList';
import { ConfirmDialog } from '../shared/Modal';
import { ArtifactList, DeleteMessage, PanelTabs, type PanelTab } from './PanelParts';
import { PlanSection } from './PlanSection';
import { WorkspaceBar } from '../files/WorkspaceBar';
import { SourcesList } from '../sources/SourcesList';
import { useAfterFirstPaint } from '../shared/first-paint';
import './artifacts.css';
import '../declared/declared.css';

export { mergeArtifacts, TASK_PLAN_ID, type ArtifactRow } from './rows';

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
  /** The conversation's declared artifacts, oldest first; with none the section shows only its head and "Add link". */
  declared?: DeclaredArtifact[];
  /** The user added a link in Links & files (shown at once; its event follows). */
  onDeclaredAdded?: (a: DeclaredArtifact) => void;
  /** A declared artifact was removed by the user. */
  onDeclaredRemoved?: (artifactId: string) => void;
  /** A document was deleted by the user (its artifact_changed event follows). */
  onDeleted?: (artifactId: string) => void;
  /** Choosing a research folder with no conversation open started this one: open it. */
  onWorkspaceConversation?: (conversationId: string) => void;
  /** The ids of the messages on the conversation's shown branch, root first (the viewer follows the branch). */
  branch?: readonly string[];
}

/**
 * The right column: the task plan (rendered checklist) and, below, the artifact list with
 * source badge, version and a live "unsaved" dot, an "Add files" button, the "Links & files"
 * of the conversation (declared artifacts, DeclaredList), and the viewer of the selected
 * artifact (preview, source, history, edit, compare, export, delete). Any document, the task
 * plan included, can be deleted after a confirmation that says what goes with it. A second
 * tab, Sources, lists the conversation's numbered sources (of the nearest CitationProvider)
 * with a filter box; arrow keys move between the tabs.
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
  onDeclaredAdded,
  onDeclaredRemoved,
  onDeleted,
  onWorkspaceConversation,
  branch,
}: ArtifactPanelProps) {
  const { t } = useTranslation('artifacts');
  const [tab, setTab] = useState<PanelTab>('artifacts');
  const citations = useCitations();
  const del = useDeleteArtifact(conversationId, onDeleted);
  const plan = rows.find((r) => r.id === TASK_PLAN_ID);
  const others = rows.filter((r) => r.id !== TASK_PLAN_ID);
  // The task plan opens in the viewer like any artifact (history, export, reader) when chosen.
  const selected = (selectedId === TASK_PLAN_ID ? plan : undefined) ?? others.find((r) => r.id === selectedId) ?? others[0];
  const planContent = useArtifactContent(conversationId, plan);
  const preview = useArtifactContent(conversationId, selected);
  // The panel's contents wait for the window's first frame (shared/first-paint.ts).
  const afterFirstPaint = useAfterFirstPaint();

  if (!afterFirstPaint) return <aside className="panel" aria-label={t('panel.label')} />;
  return (
    <aside className="panel" aria-label={t('panel.label')}>
      <WorkspaceBar conversationId={conversationId} onConversation={onWorkspaceConversation} />
      <PlanSection
        conversationId={conversationId}
        plan={plan}
        content={planContent}
        running={running}
        selected={selected?.id === TASK_PLAN_ID}
        onOpen={() => {
          setTab('artifacts');
          onSelect(TASK_PLAN_ID);
        }}
        onDelete={del.ask}
      />
      <section className="artifacts" aria-label={t('panel.artifacts')}>
        <PanelTabs
          tab={tab}
          onTab={setTab}
          artifactCount={others.length}
          sourceCount={citations?.sources?.length ?? 0}
          newConversation={conversationId === null}
          onAddFiles={onAddFiles}
        />
        {tab === 'sources' ? (
          <div className="sources-tabpanel" role="tabpanel" id="panel-sources" aria-labelledby="panel-tab-sources">
            <SourcesList sources={conversationId === null ? [] : (citations?.sources ?? null)} error={citations?.error ?? ''} />
          </div>
        ) : (
          <ArtifactList rows={others} selectedId={selected?.id} onSelect={onSelect} />
        )}
        {tab === 'artifacts' && conversationId !== null ? (
          <DeclaredList conversationId={conversationId} items={declared} onRemoved={(id) => onDeclaredRemoved?.(id)} onAdded={onDeclaredAdded} />
        ) : null}
        {tab === 'artifacts' && selected && conversationId !== null ? (
          <LazyArtifactViewer
            key={`${conversationId}/${selected.id}`}
            conversationId={conversationId}
            artifact={selected}
            current={preview}
            onChanged={onChanged}
            onDelete={() => del.ask(selected)}
            branch={branch}
          />
        ) : null}
      </section>
      {del.deleting ? (
        <ConfirmDialog
          title={del.deleting.id === TASK_PLAN_ID ? t('panel.deletePlanConfirm') : t('panel.deleteArtifactConfirm')}
          message={<DeleteMessage row={del.deleting} />}
          confirmLabel={del.busy ? t('panel.deleting') : t('common:delete')}
          danger
          busy={del.busy}
          error={del.error}
          onConfirm={del.confirm}
          onCancel={del.cancel}
        />
      ) : null}
    </aside>
  );
}
