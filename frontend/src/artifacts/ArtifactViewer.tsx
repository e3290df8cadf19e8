import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useViewerActions } from './useViewerActions';
import { branchVersion, defaultComparePair, versionChoices, type CurrentState, type VersionRef } from './versions';
import { useRestoredFrom, useVersionContent, useVersions, type ContentState } from './artifactData';
import { ArtifactReader } from './ArtifactReader';
import { Spinner } from '../shared/icons';
import { History } from './VersionHistory';
import { ViewerDialogs } from './ViewerDialogs';
import { ArtifactBody, previewKind, SourceView, VersionBanner, ViewerStatusBar, ViewerTabs, ViewerToolbar, type ViewerTab } from './ViewerParts';

export type { ViewerTab } from './ViewerParts';

// The tabs' names are artifacts:viewer.tab.<id>.
// i18n-keys: artifacts:viewer.tab.preview artifacts:viewer.tab.source artifacts:viewer.tab.history

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
  /**
   * The ids of the messages on the conversation's shown branch, root first: the viewer
   * opens on the version this branch's run produced (branchVersion). Undefined: the current one.
   */
  branch?: readonly string[];
}

/**
 * The selected artifact: tabs Preview | Source | History, a version selector (older
 * versions are read-only and say so), and the actions Edit, Compare, Export (Markdown,
 * HTML, Word), Delete (when onDelete is given) and, on an old version, Restore. Edit,
 * Restore and Delete are disabled while the running research holds unsaved changes to the
 * artifact. After a branch switch it shows the version that branch's run produced when a
 * run of another branch changed the artifact since, and says so; a version the user picks
 * holds until the branch changes again.
 */
export function ArtifactViewer({ conversationId, artifact, current, onChanged, onDelete, branch }: ArtifactViewerProps) {
  const { t } = useTranslation('artifacts');
  const tabLabel = (id: ViewerTab) => t(`viewer.tab.${id}`);
  const [tab, setTab] = useState<ViewerTab>('preview');
  // The version the user picked, for the branch shown when they picked it.
  const [picked, setPicked] = useState<{ ref: VersionRef; branch: string } | null>(null);
  const branchKey = branch?.join(',') ?? '';
  const setViewing = (ref: VersionRef) => setPicked({ ref, branch: branchKey });
  const [editing, setEditing] = useState(false);
  const [compare, setCompare] = useState<[VersionRef, VersionRef] | null>(null);
  const [reading, setReading] = useState(false);

  const state: CurrentState = { version: artifact.version, unsaved: artifact.unsaved };
  const { versions, error: versionsError, loading: versionsLoading } = useVersions(
    conversationId,
    artifact.id,
    `${String(artifact.version)}/${String(artifact.unsaved)}`,
  );
  const choices = versionChoices(versions, state);
  const ofBranch = branchVersion(versions, state, branch);
  const viewing = picked !== null && picked.branch === branchKey ? picked.ref : ofBranch.ref;
  // A viewed version that no longer exists (e.g. the list changed) falls back to current.
  const shown: VersionRef = viewing !== 'current' && choices.some((c) => c.ref === viewing) ? viewing : 'current';
  const branchShown = ofBranch.why === 'branch' && shown === ofBranch.ref;
  const content = useVersionContent(conversationId, artifact.id, shown, current);
  const restoredFrom = useRestoredFrom(conversationId, artifact.id, versions);
  const old = shown !== 'current';
  const actions = useViewerActions({ conversationId, artifactId: artifact.id, version: artifact.version, onRestored: () => setViewing('current'), onChanged });

  const kind = previewKind(artifact.contentType);
  const unsavedReason = t('viewer.unsavedReason');
  const editBlocked = artifact.unsaved
    ? unsavedReason
    : old
      ? t('viewer.editOld')
      : kind === 'binary'
        ? t('viewer.editBinary')
        : kind === 'image'
          ? t('viewer.editImage')
        : current.loading || current.error !== ''
          ? t('viewer.notLoaded')
          : '';
  const openCompare = (pair?: [VersionRef, VersionRef]) => setCompare(pair ?? defaultComparePair(versions, state, shown));
  // The shown content is not there (loading, or failed): nothing to copy or read.
  const unavailable = content.loading || content.error !== '';
  const body = tab === 'source' ? <SourceView text={content.content} /> : (
      <ArtifactBody kind={kind} contentType={artifact.contentType} content={content.content} picture={{ conversationId, artifactId: artifact.id }} />
    );

  return (
    <div className="viewer">
      <ViewerTabs tab={tab} onTab={setTab} historyCount={versions.length} />
      <ViewerToolbar
        choices={choices}
        shown={shown}
        onVersion={setViewing}
        editBlocked={editBlocked}
        onEdit={() => setEditing(true)}
        compareBlocked={choices.length < 2 ? t('viewer.oneVersion') : ''}
        versionsLoading={versionsLoading}
        onCompare={() => openCompare()}
        text={() => content.content}
        copyDisabled={unavailable || kind === 'binary'}
        readDisabled={unavailable}
        onRead={() => setReading(true)}
        exportBusy={actions.busy === 'export'}
        onExport={(format) => actions.doExport(shown, format, kind === 'markdown' && !unavailable ? content.content : '')}
        onPublish={kind === 'html' && !artifact.unsaved ? actions.doPublish : undefined}
        publishBusy={actions.busy === 'publish'}
        deleteBlocked={artifact.unsaved ? unsavedReason : ''}
        onDelete={onDelete}
      />
      {actions.status ? <ViewerStatusBar status={actions.status} onReveal={actions.showInFolder} onDismiss={() => actions.setStatus(null)} /> : null}
      {artifact.unsaved && !old ? (
        <div className="viewer-note" role="note">
          <span className="unsaved-dot" aria-hidden="true" /> {unsavedReason}
        </div>
      ) : null}
      {!old && ofBranch.why === 'other' ? (
        <div className="viewer-note" role="note">
          {t('viewer.otherBranch')}
        </div>
      ) : null}
      {old ? (
        <VersionBanner
          version={shown}
          ofBranch={branchShown}
          viewed={versions.find((v) => v.version === shown)}
          restoring={actions.busy === 'restore'}
          restoreBlocked={artifact.unsaved ? unsavedReason : ''}
          onRestore={() => actions.doRestore(shown)}
          onBack={() => setViewing('current')}
        />
      ) : null}
      <div
        className={`preview tab-${tab}`}
        role="tabpanel"
        id={`artifact-panel-${tab}`}
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
        ) : (
          body
        )}
      </div>
      {reading && !unavailable ? (
        <ArtifactReader
          title={artifact.title || artifact.id}
          meta={`${artifact.id} · v${String(old ? shown : artifact.version)}${old ? t('viewer.readerOlder') : ''}${tab === 'source' ? t('viewer.readerSource') : ''}`}
          onClose={() => setReading(false)}
        >
          {body}
        </ArtifactReader>
      ) : null}
      <ViewerDialogs
        conversationId={conversationId}
        artifactId={artifact.id}
        title={artifact.title || artifact.id}
        state={state}
        current={current}
        versions={versions}
        editing={editing}
        onCloseEditor={() => setEditing(false)}
        onSaved={(a) => {
          actions.setStatus({ kind: 'ok', text: t('viewer.savedAs', { version: a.version }) });
          onChanged();
        }}
        compare={compare}
        onCloseCompare={() => setCompare(null)}
      />
    </div>
  );
}
