import { useComposerImages } from './chat/useComposerImages';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useLaunchMark } from './launchMark';
import { isSettingsError } from './api/call';
import { CitedFileNotice, useCitedFiles } from './sources/useCitedFiles';
import { DEFAULT_MAX_UPLOAD_MB, getSettings, type Settings } from './api/settings';
import { useArtifactRows } from './chat/useArtifactRows';
import { useChatItems } from './chat/useChatItems';
import { useConversationDetail } from './chat/useConversationDetail';
import { useConversationList, useModelTitles } from './chat/useConversationList';
import { useNow, useRuns } from './run/useRuns';
import { useSend } from './chat/useSend';
import { useAppShortcuts, useLayoutShortcuts } from './chat/useShortcuts';
import { ArtifactPanel } from './artifacts/ArtifactPanel';
import { ChatView } from './chat/Chat';
import { CitationProvider } from './sources/Citations';
import { FindBar } from './layout/FindBar';
import { ColumnSplitters, ColumnToggle } from './layout/LayoutControls';
import { LazyPermissionDialog } from './chat/LazyPermissionDialog';
import { LazySettingsDialog, preloadSettingsDialog } from './settings/LazySettingsDialog';
import { preloadArtifactViewer } from './artifacts/LazyArtifactViewer';
import { loadMarkdownLib } from './markdown/markdown-lib';
import { Sidebar } from './sidebar/Sidebar';
import { FileNoticeBar, useConversationFiles } from './files/ConversationFiles';
import { DropOverlay, UploadTray, useUploads, type UploadedBatch } from './files/Uploads';
import { isRunning } from './run/events';
import { pendingText, settlePending } from './chat/pending';
import { useDeclared } from './declared/useDeclared';
import { useLastConversation } from './layout/useLastConversation';
import { useLayout } from './layout/useLayout';
import { useSources } from './sources/useSources';
import { useZoom } from './layout/useZoom';

/** Whether a model is set up, and the upload limit, from Settings (reloaded when they are saved). */
function useSetup() {
  const [needsSetup, setNeedsSetup] = useState(false);
  const [maxUploadMb, setMaxUploadMb] = useState(DEFAULT_MAX_UPLOAD_MB);
  const apply = useCallback((s: Pick<Settings, 'model' | 'max_upload_mb'>) => {
    setNeedsSetup(s.model === '');
    setMaxUploadMb(s.max_upload_mb);
  }, []);
  useEffect(() => {
    getSettings().then(apply, () => undefined);
  }, [apply]);
  return { needsSetup, maxUploadMb, apply, markNeedsSetup: useCallback(() => setNeedsSetup(true), []) };
}

/**
 * Once the first data has painted, loads the chunks of the UI the first screen does not
 * show: the Markdown renderer at once, the Settings dialog and the artifact viewer a second
 * later, so that opening them later seldom waits (docs/ARCHITECTURE.md, "Start-up").
 */
function usePreloadAfterFirstPaint(painted: boolean) {
  useEffect(() => {
    if (!painted) return;
    // The Markdown renderer right after that frame (answers need it soon; a view that asks
    // sooner loads it itself), the dialogs a second later.
    let markdownTimer = 0;
    const frame = requestAnimationFrame(() => {
      markdownTimer = window.setTimeout(() => void loadMarkdownLib().catch(() => undefined), 0);
    });
    const id = setTimeout(() => {
      preloadSettingsDialog();
      preloadArtifactViewer();
    }, 1000);
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(markdownTimer);
      clearTimeout(id);
    };
  }, [painted]);
}

/**
 * The ArtifactFlow window: conversations | chat | task plan and artifacts, plus the settings
 * dialog. Run progress comes only from run events (applied by applyEvent); stored data is
 * reloaded when a conversation is opened and when a run in it ends.
 */
export default function App() {
  useZoom(); // Ctrl/Cmd + − 0
  const { runs, dispatch, reloadTick, reload } = useRuns();
  const list = useConversationList(runs, reloadTick);
  useLaunchMark(!list.loading); // make bench's launch-to-usable mark (launchMark.ts)
  usePreloadAfterFirstPaint(!list.loading);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [selectedArtifact, setSelectedArtifact] = useState<string | null>(null);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const composerRef = useRef<HTMLTextAreaElement>(null);
  const setup = useSetup();
  const layout = useLayout();
  useLayoutShortcuts(layout.toggle, layout.layout.sidebarCollapsed);
  const conv = selectedId !== null ? runs.conversations[selectedId] : undefined;
  const view = useConversationDetail(selectedId, conv, reloadTick, dispatch);
  const { clear: clearDetail, detail } = view;
  // The title the sub-agents' model writes after a first answer: the list and the open header follow.
  useModelTitles((id, title) => {
    view.renamed(id, title);
    list.refresh();
  });
  // "Links & files" and the numbered sources (citation chips, the Sources tab) of the open conversation, live.
  const declared = useDeclared(selectedId, reloadTick);
  const sources = useSources(selectedId, `${String(reloadTick)}/${view.selectedRunKey}`);
  const running = isRunning(conv) || (detail?.conversation.id === selectedId && detail.conversation.running && conv === undefined);

  const moveTo = useCallback(
    (id: string | null) => {
      setSelectedId(id);
      clearDetail();
      setSelectedArtifact(null);
    },
    [clearDetail],
  );
  const items = useChatItems(selectedId, detail, conv);
  const { refresh: refreshList } = list;
  const { refreshArtifacts } = view;
  const picturesUploaded = useCallback(() => {
    refreshList();
    refreshArtifacts();
  }, [refreshList, refreshArtifacts]);
  const pictures = useComposerImages(selectedId, setup.maxUploadMb, picturesUploaded);
  const chat = useSend({ selectedId, running, newestKey: items.at(-1)?.key, onMoved: moveTo, onListChanged: list.refresh, onNeedsSetup: setup.markNeedsSetup, pictures });
  const { setSendError, setDraft, stop } = chat;
  const openConversation = useCallback(
    (id: string | null) => {
      moveTo(id);
      setSendError(null);
    },
    [moveTo, setSendError],
  );
  // The conversation open when the window was last used opens again on start (if it still exists).
  const conversationIds = useMemo(() => list.conversations.map((c) => c.id), [list.conversations]);
  useLastConversation(selectedId, conversationIds, !list.loading && list.error === '', openConversation);

  const uploads = useWindowUploads({ selectedRef: view.selectedRef, maxUploadMb: setup.maxUploadMb, refreshList: list.refresh, refreshArtifacts: view.refreshArtifacts, openConversation, setSelectedArtifact, selectedId });
  const newResearch = useCallback(() => {
    openConversation(null);
    setDraft('');
    window.setTimeout(() => composerRef.current?.focus(), 0);
  }, [openConversation, setDraft, composerRef]);
  const openSettings = useCallback(() => setSettingsOpen(true), []);
  const onSettingsSaved = (s: Settings) => {
    setup.apply(s);
    setSendError((e) => (e && isSettingsError(e) ? null : e));
  };
  useAppShortcuts({ newResearch, openSettings, stop, running, settingsOpen });

  // Once its exchange is listed the pending question is done with: kept, it came back as a
  // phantom "Starting…" question after a Regenerate or edit moved to another branch.
  const itemKeys = items.map((it) => it.key);
  const settledPending = settlePending(chat.pending, itemKeys);
  if (settledPending !== chat.pending) chat.setPending(settledPending);

  const cited = useCitedFiles(selectedId, setSelectedArtifact, layout);
  const artifacts = useArtifactRows(selectedId, view.stored, conv);
  const branchKey = detail?.conversation.id === selectedId ? detail.messages.map((m) => m.id).join(',') : '';
  const branch = useMemo(() => (branchKey === '' ? undefined : branchKey.split(',')), [branchKey]);
  const title = (detail?.conversation.id === selectedId ? detail.conversation.title : '') || list.conversations.find((c) => c.id === selectedId)?.title || '';
  const { sidebarCollapsed, panelCollapsed } = layout.layout;

  return (
    <div
      className={`app${sidebarCollapsed ? ' sidebar-collapsed' : ''}${panelCollapsed ? ' panel-collapsed' : ''}`}
      style={{ gridTemplateColumns: `${String(layout.widths.sidebar)}px minmax(0, 1fr) ${String(layout.widths.panel)}px` }}
    >
      <FindBar />
      <CitedFileNotice notice={cited.notice} onClose={cited.clear} />
      <WindowSidebar list={list} selectedId={selectedId} onOpen={openConversation} onNew={newResearch} onSettings={openSettings} onRenamed={view.renamed} />
      <CitationProvider sources={sources.sources} error={sources.error} onOpenFile={cited.open}>
        <ChatView
          conversationId={selectedId}
          title={title}
          items={items}
          pendingQuestion={pendingText(settledPending, selectedId, itemKeys)}
          loading={selectedId !== null && detail === null && view.detailError === ''}
          loadError={view.detailError}
          sendError={chat.sendError}
          sendErrorIsSettings={chat.sendError !== null && isSettingsError(chat.sendError)}
          running={running}
          sending={chat.sending}
          draft={chat.draft}
          needsSetup={setup.needsSetup}
          onDraft={setDraft}
          onExample={(q) => {
            setDraft(q);
            composerRef.current?.focus();
          }}
          onSend={chat.send}
          onStop={stop}
          onOpenSettings={openSettings}
          onOpenArtifact={setSelectedArtifact}
          artifactTitles={artifacts.titles}
          onDismissError={() => setSendError(null)}
          composerRef={composerRef}
          pictures={pictures}
          onDetail={view.setDetail}
          onArtifactsChanged={reload}
          headStart={<ColumnToggle column="sidebar" collapsed={sidebarCollapsed} onToggle={layout.toggle} />}
          headEnd={<ColumnToggle column="panel" collapsed={panelCollapsed} onToggle={layout.toggle} />}
        />
        <ArtifactPanel
          conversationId={selectedId}
          rows={artifacts.rows}
          selectedId={selectedArtifact}
          onSelect={setSelectedArtifact}
          running={running}
          onChanged={view.refreshArtifacts}
          onAddFiles={uploads.addFiles}
          declared={declared.items}
          onDeclaredAdded={declared.add}
          onDeclaredRemoved={declared.remove}
          branch={branch}
          onWorkspaceConversation={(id) => {
            list.refresh();
            openConversation(id);
          }}
          onDeleted={(id) => {
            if (selectedId !== null) view.forgetDocument(selectedId, id);
            view.refreshArtifacts();
          }}
        />
      </CitationProvider>
      <ColumnSplitters layout={layout} />
      <LazyPermissionDialog runs={runs} selectedId={selectedId} conversations={list.conversations} />
      {settingsOpen ? <LazySettingsDialog onClose={() => setSettingsOpen(false)} onSaved={onSettingsSaved} /> : null}
      <UploadLayer uploads={uploads} selectedId={selectedId} maxUploadMb={setup.maxUploadMb} onOpen={openConversation} onSelectArtifact={setSelectedArtifact} />
    </div>
  );
}

/** What useWindowUploads needs from the window. */
interface WindowUploadsInput {
  selectedId: string | null;
  selectedRef: { readonly current: string | null };
  maxUploadMb: number;
  refreshList: () => void;
  refreshArtifacts: () => void;
  openConversation: (id: string) => void;
  setSelectedArtifact: (id: string | null) => void;
}

/**
 * Uploads: files dropped on the window or picked with "Add files". A batch dropped with no
 * conversation open created one: open it. The newest upload is selected.
 */
function useWindowUploads(p: WindowUploadsInput) {
  const { selectedRef, refreshList, refreshArtifacts, openConversation, setSelectedArtifact } = p;
  const onUploaded = useCallback(
    (batch: UploadedBatch) => {
      refreshList();
      const last = batch.artifactIds.at(-1) ?? null;
      if (batch.conversationId === selectedRef.current) {
        refreshArtifacts();
        setSelectedArtifact(last);
      } else if (batch.created || selectedRef.current === null) {
        openConversation(batch.conversationId);
        setSelectedArtifact(last);
      }
    },
    [openConversation, refreshArtifacts, refreshList, selectedRef, setSelectedArtifact],
  );
  return useUploads({ conversationId: p.selectedId, maxUploadMb: p.maxUploadMb, onUploaded });
}

/** Props of WindowSidebar. */
interface WindowSidebarProps {
  list: ReturnType<typeof useConversationList>;
  selectedId: string | null;
  onOpen: (id: string | null) => void;
  onNew: () => void;
  onSettings: () => void;
  /** A conversation was renamed (the open one's title follows). */
  onRenamed: (id: string, title: string) => void;
}

/** The conversation list column, with rename, pin, archive, export, delete and import. */
function WindowSidebar({ list, selectedId, onOpen, onNew, onSettings, onRenamed }: WindowSidebarProps) {
  const now = useNow();
  const files = useConversationFiles({
    onImported: (id) => {
      list.refresh();
      onOpen(id);
    },
  });
  return (
    <Sidebar
      conversations={list.conversations}
      selectedId={selectedId}
      runningIds={list.runningIds}
      loading={list.loading}
      error={list.error}
      now={now}
      onSelect={(id) => {
        if (id !== selectedId) onOpen(id);
      }}
      onNew={onNew}
      onSettings={onSettings}
      onRename={async (id, t) => {
        await list.rename(id, t);
        onRenamed(id, t);
      }}
      onDelete={async (id) => {
        await list.remove(id);
        if (id === selectedId) onOpen(null);
      }}
      onPin={list.pin}
      onArchive={list.archive}
      onExport={files.exportConversation}
      onImport={files.importConversation}
      importing={files.importing}
      notice={
        <>
          {files.input}
          {files.notice ? <FileNoticeBar notice={files.notice} onReveal={files.showInFolder} onDismiss={files.dismiss} /> : null}
        </>
      }
    />
  );
}

/** Props of UploadLayer. */
interface UploadLayerProps {
  uploads: ReturnType<typeof useUploads>;
  selectedId: string | null;
  maxUploadMb: number;
  onOpen: (id: string) => void;
  onSelectArtifact: (id: string) => void;
}

/** The drop overlay while files are dragged over the window, and the tray of uploads. */
function UploadLayer({ uploads, selectedId, maxUploadMb, onOpen, onSelectArtifact }: UploadLayerProps) {
  return (
    <>
      {uploads.dragging ? <DropOverlay hasConversation={selectedId !== null} maxUploadMb={maxUploadMb} /> : null}
      <UploadTray
        items={uploads.items}
        onOpen={(it) => {
          if (it.conversationId !== selectedId) onOpen(it.conversationId);
          onSelectArtifact(it.artifactId);
        }}
        onDismiss={uploads.dismiss}
        onClear={uploads.clearFinished}
      />
    </>
  );
}
