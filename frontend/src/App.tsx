import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import {
  ApiError,
  DEFAULT_MAX_UPLOAD_MB,
  deleteConversation,
  getConversation,
  getSettings,
  isSettingsError,
  listArtifacts,
  listConversations,
  messageEvents,
  onReconnect,
  onRunEvent,
  renameConversation,
  sendMessage,
  stopRun,
  toApiError,
  type ArtifactSummary,
  type Conversation,
  type ConversationDetail,
} from './api';
import { artifactChange } from './api-declared';
import { ArtifactPanel, mergeArtifacts } from './components/ArtifactPanel';
import { ChatView, type ChatItem } from './components/Chat';
import { pendingText, settlePending, type PendingQuestion } from './pending';
import { CitationProvider } from './components/Citations';
import { PermissionDialog } from './components/PermissionDialog';
import { SettingsDialog } from './components/SettingsDialog';
import { PanelIcon, SidebarIcon } from './components/layout-icons';
import { Splitter } from './components/Splitter';
import { MOD_KEY, Sidebar } from './components/Sidebar';
import { DropOverlay, UploadTray, useUploads, type UploadedBatch } from './components/Uploads';
import { applyEvent, emptyRunsState, forgetArtifact, hydrateConversation, isRunning, runsOf, type RunEvent, type RunsState } from './events';
import { describeError } from './errors';
import { useDeclared } from './useDeclared';
import { useLastConversation } from './useLastConversation';
import { BOUNDS, useLayout, widthRange } from './useLayout';
import { useSources } from './useSources';
import { useZoom } from './useZoom';
import { FindBar } from './components/FindBar';

type RunsAction =
  | { type: 'event'; event: RunEvent }
  | { type: 'hydrate'; conversationId: string; events: RunEvent[] }
  | { type: 'forget'; conversationId: string; artifactId: string };

function runsReducer(state: RunsState, action: RunsAction): RunsState {
  switch (action.type) {
    case 'event':
      return applyEvent(state, action.event);
    case 'hydrate':
      return hydrateConversation(state, action.conversationId, action.events);
    case 'forget':
      return forgetArtifact(state, action.conversationId, action.artifactId);
  }
}

/** The current time in ms since epoch, refreshed every 30 s (relative times in the list). */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = window.setInterval(() => setNow(Date.now()), 30_000);
    return () => window.clearInterval(t);
  }, []);
  return now;
}

const message = (e: unknown): string => toApiError(e).message;

/**
 * The ArtifactFlow window: conversations | chat | task plan and artifacts, plus the settings
 * dialog. Run progress comes only from run events (applied by applyEvent); stored data is
 * reloaded when a conversation is opened and when a run in it ends.
 */
export default function App() {
  useZoom(); // Ctrl/Cmd + − 0 (issue 10, item 4)
  const [runs, dispatch] = useReducer(runsReducer, undefined, emptyRunsState);
  const [conversations, setConversations] = useState<Conversation[]>([]);
  const [listLoading, setListLoading] = useState(true);
  const [listError, setListError] = useState('');
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [detail, setDetail] = useState<ConversationDetail | null>(null);
  const [detailError, setDetailError] = useState('');
  const [stored, setStored] = useState<{ conversationId: string; items: ArtifactSummary[] } | null>(null);
  const [selectedArtifact, setSelectedArtifact] = useState<string | null>(null);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [needsSetup, setNeedsSetup] = useState(false);
  const [maxUploadMb, setMaxUploadMb] = useState(DEFAULT_MAX_UPLOAD_MB);
  const [draft, setDraft] = useState('');
  const [sending, setSending] = useState(false);
  const [pending, setPending] = useState<PendingQuestion | null>(null);
  const [sendError, setSendError] = useState<ApiError | null>(null);
  const [listTick, setListTick] = useState(0);
  const [reloadTick, setReloadTick] = useState(0);
  const composerRef = useRef<HTMLTextAreaElement>(null);
  const now = useNow();
  const layout = useLayout();
  const { toggle: toggleColumn } = layout;
  const sidebarCollapsed = layout.layout.sidebarCollapsed;

  // Layout shortcuts: Ctrl/Cmd+B shows or hides the sidebar, Ctrl/Cmd+J the panel (not while
  // a dialog is open); Ctrl/Cmd+K (search) shows a hidden sidebar and focuses its search box.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || e.shiftKey) return;
      const key = e.key.toLowerCase();
      if (key === 'k' && sidebarCollapsed) {
        toggleColumn('sidebar');
        window.setTimeout(() => {
          const input = document.querySelector<HTMLInputElement>('nav.sidebar input');
          input?.focus();
          input?.select();
        }, 0);
        return;
      }
      if ((key !== 'b' && key !== 'j') || e.defaultPrevented) return;
      if (document.querySelector('dialog[open]') !== null) return;
      e.preventDefault();
      toggleColumn(key === 'b' ? 'sidebar' : 'panel');
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [toggleColumn, sidebarCollapsed]);

  // Run events: the only source of live progress. After a reconnect (browser mode) events may
  // have been missed, so the list and the open conversation are reloaded from the store.
  useEffect(() => onRunEvent((event) => dispatch({ type: 'event', event })), []);
  useEffect(() => onReconnect(() => setReloadTick((t) => t + 1)), []);

  // A document deleted (here, in another window or by a client): it leaves the panel.
  const forgetDocument = useCallback((conversationId: string, artifactId: string) => {
    dispatch({ type: 'forget', conversationId, artifactId });
    setStored((s) => (s?.conversationId === conversationId ? { ...s, items: s.items.filter((a) => a.id !== artifactId) } : s));
  }, []);
  useEffect(
    () =>
      onRunEvent((ev) => {
        const ch = artifactChange(ev.type, ev.data);
        if (ch?.kind === 'document-removed') forgetDocument(ev.conversation_id, ch.artifactId);
      }),
    [forgetDocument],
  );
  // "Links & files": the open conversation's declared artifacts, live.
  const declared = useDeclared(selectedId, reloadTick);

  useEffect(() => {
    getSettings().then(
      (s) => {
        setNeedsSetup(s.model === '');
        setMaxUploadMb(s.max_upload_mb);
      },
      () => undefined,
    );
  }, []);

  const conv = selectedId !== null ? runs.conversations[selectedId] : undefined;

  // A key that changes when any conversation starts or ends a run: the list is reloaded then.
  const runKey = useMemo(
    () =>
      Object.entries(runs.conversations)
        .map(([id, c]) => `${id}:${runsOf(c).map((r) => r.status).join(',')}`)
        .join('|'),
    [runs.conversations],
  );
  // The same for the open conversation only: its messages and artifacts are reloaded then.
  const selectedRunKey = runsOf(conv).map((r) => `${r.messageId}:${r.status}`).join(',');
  // The open conversation's numbered sources (citation chips, the Sources tab), live.
  const sources = useSources(selectedId, `${String(reloadTick)}/${selectedRunKey}`);

  useEffect(() => {
    let stale = false;
    listConversations().then(
      (list) => {
        if (stale) return;
        setConversations(list);
        setListLoading(false);
        setListError('');
      },
      (e: unknown) => {
        if (stale) return;
        setListLoading(false);
        setListError(message(e));
      },
    );
    return () => {
      stale = true;
    };
  }, [runKey, listTick, reloadTick]);

  useEffect(() => {
    if (selectedId === null) return;
    let stale = false;
    Promise.all([getConversation(selectedId), listArtifacts(selectedId)]).then(
      ([d, arts]) => {
        if (stale) return;
        setDetail(d);
        setDetailError('');
        setStored({ conversationId: selectedId, items: arts });
        // A run going on that this window may not have seen from its start, or the latest run
        // after a reconnect: merge its stored events (the reducer keeps what it saw itself).
        const last = d.messages.at(-1);
        for (const m of d.messages) {
          // An interrupted run has no terminal event: rebuilt from its events it would look running.
          if ((m.status !== 'running' && m !== last) || m.status === 'interrupted') continue;
          messageEvents(selectedId, m.id).then(
            (events) => {
              if (!stale) dispatch({ type: 'hydrate', conversationId: selectedId, events });
            },
            () => undefined,
          );
        }
      },
      (e: unknown) => {
        if (!stale) setDetailError(describeError(toApiError(e)));
      },
    );
    return () => {
      stale = true;
    };
    // selectedRunKey: reload when a run in this conversation starts or ends; reloadTick: after a reconnect.
  }, [selectedId, selectedRunKey, reloadTick]);

  const openConversation = useCallback((id: string | null) => {
    setSelectedId(id);
    setDetail(null);
    setDetailError('');
    setStored(null);
    setSelectedArtifact(null);
    setSendError(null);
  }, []);

  // The conversation open when the window was last used opens again on start (if it still exists).
  const conversationIds = useMemo(() => conversations.map((c) => c.id), [conversations]);
  useLastConversation(selectedId, conversationIds, !listLoading && listError === '', openConversation);

  // The stored artifacts of the open conversation, reloaded after a save, restore or upload.
  const selectedRef = useRef(selectedId);
  useEffect(() => {
    selectedRef.current = selectedId;
  }, [selectedId]);
  const refreshArtifacts = useCallback(() => {
    const id = selectedRef.current;
    if (id === null) return;
    listArtifacts(id).then(
      (items) => {
        if (selectedRef.current === id) setStored({ conversationId: id, items });
      },
      () => undefined,
    );
  }, []);

  // Uploads: files dropped on the window or picked with "Add files". A batch dropped with no
  // conversation open created one: open it. The newest upload is selected.
  const onUploaded = useCallback(
    (batch: UploadedBatch) => {
      setListTick((t) => t + 1);
      const last = batch.artifactIds.at(-1) ?? null;
      if (batch.conversationId === selectedRef.current) {
        refreshArtifacts();
        setSelectedArtifact(last);
      } else if (batch.created || selectedRef.current === null) {
        openConversation(batch.conversationId);
        setSelectedArtifact(last);
      }
    },
    [openConversation, refreshArtifacts],
  );
  const uploads = useUploads({ conversationId: selectedId, maxUploadMb, onUploaded });

  const newResearch = useCallback(() => {
    openConversation(null);
    setDraft('');
    window.setTimeout(() => composerRef.current?.focus(), 0);
  }, [openConversation]);

  const running = isRunning(conv) || (detail?.conversation.id === selectedId && detail.conversation.running && conv === undefined);

  const stop = useCallback(() => {
    if (selectedId === null) return;
    stopRun(selectedId).catch((e: unknown) => setSendError(toApiError(e)));
  }, [selectedId]);

  const send = () => {
    const content = draft.trim();
    if (content === '' || sending || running) return;
    setSending(true);
    setSendError(null);
    setPending({ conversationId: selectedId, messageId: '', content });
    sendMessage(selectedId ?? '', content).then(
      (r) => {
        setSending(false);
        setDraft('');
        setPending({ conversationId: r.conversation_id, messageId: r.message_id, content });
        if (selectedId !== r.conversation_id) {
          setSelectedId(r.conversation_id);
          setDetail(null);
          setStored(null);
          setSelectedArtifact(null);
        }
        setListTick((t) => t + 1);
      },
      (e: unknown) => {
        setSending(false);
        setPending(null);
        const err = toApiError(e);
        setSendError(err);
        if (isSettingsError(err)) setNeedsSetup(true);
      },
    );
  };

  // Keyboard shortcuts: Ctrl/Cmd+N new research, Ctrl/Cmd+, settings, Esc stops the run.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.ctrlKey || e.metaKey;
      if (mod && !e.shiftKey && !e.altKey && e.key.toLowerCase() === 'n') {
        e.preventDefault();
        newResearch();
      } else if (mod && e.key === ',') {
        e.preventDefault();
        setSettingsOpen(true);
      } else if (e.key === 'Escape' && !e.defaultPrevented && running && !settingsOpen && document.querySelector('dialog[open]') === null) {
        e.preventDefault();
        stop();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [newResearch, running, settingsOpen, stop]);

  // The exchanges to show: stored messages (with their live run when seen live), then live
  // runs the store did not list yet.
  const items: ChatItem[] = useMemo(() => {
    if (selectedId === null) return [];
    const messages = detail?.conversation.id === selectedId ? detail.messages : [];
    const seen = new Set(messages.map((m) => m.id));
    const out: ChatItem[] = messages.map((m) => ({ key: m.id, message: m, live: conv?.runs[m.id] }));
    // A live run the store did not list yet is new (shown), or on another branch (not shown).
    const lastId = messages.at(-1)?.id ?? '';
    for (const id of conv?.order ?? []) {
      const run = conv?.runs[id];
      if (!seen.has(id) && run && (run.status === 'running' || run.parentId === lastId)) out.push({ key: id, live: run });
    }
    return out;
  }, [selectedId, detail, conv]);

  // Once its exchange is listed the pending question is done with: kept, it came back as a
  // phantom "Starting…" question after a Regenerate or edit moved to another branch.
  const itemKeys = items.map((it) => it.key);
  const settledPending = settlePending(pending, itemKeys);
  if (settledPending !== pending) setPending(settledPending);
  const pendingShown = pendingText(settledPending, selectedId, itemKeys);

  const runningIds = useMemo(() => {
    const ids = new Set(conversations.filter((c) => c.running).map((c) => c.id));
    for (const [id, c] of Object.entries(runs.conversations)) {
      if (isRunning(c)) ids.add(id);
      else if (c.order.length > 0) ids.delete(id);
    }
    return ids;
  }, [conversations, runs.conversations]);

  const artifactRows = useMemo(
    () =>
      selectedId === null
        ? []
        : mergeArtifacts(stored?.conversationId === selectedId ? stored.items : [], conv?.artifacts ?? {}),
    [selectedId, stored, conv?.artifacts],
  );
  const artifactTitles = useMemo(() => Object.fromEntries(artifactRows.map((r) => [r.id, r.title])), [artifactRows]);

  const title =
    (detail?.conversation.id === selectedId ? detail.conversation.title : '') ||
    conversations.find((c) => c.id === selectedId)?.title ||
    '';

  return (
    <div
      className={`app${layout.layout.sidebarCollapsed ? ' sidebar-collapsed' : ''}${layout.layout.panelCollapsed ? ' panel-collapsed' : ''}`}
      style={{ gridTemplateColumns: `${String(layout.widths.sidebar)}px minmax(0, 1fr) ${String(layout.widths.panel)}px` }}
    >
      <FindBar />
      <Sidebar
        conversations={conversations}
        selectedId={selectedId}
        runningIds={runningIds}
        loading={listLoading}
        error={listError}
        now={now}
        onSelect={(id) => {
          if (id !== selectedId) openConversation(id);
        }}
        onNew={newResearch}
        onSettings={() => setSettingsOpen(true)}
        onRename={async (id, t) => {
          await renameConversation(id, t);
          setConversations((cs) => cs.map((c) => (c.id === id ? { ...c, title: t } : c)));
          setDetail((d) => (d && d.conversation.id === id ? { ...d, conversation: { ...d.conversation, title: t } } : d));
        }}
        onDelete={async (id) => {
          await deleteConversation(id);
          setConversations((cs) => cs.filter((c) => c.id !== id));
          if (id === selectedId) openConversation(null);
          setListTick((t) => t + 1);
        }}
      />
      <CitationProvider sources={sources.sources} error={sources.error}>
        <ChatView
          conversationId={selectedId}
          title={title}
          items={items}
          pendingQuestion={pendingShown}
          loading={selectedId !== null && detail === null && detailError === ''}
          loadError={detailError}
          sendError={sendError}
          sendErrorIsSettings={sendError !== null && isSettingsError(sendError)}
          running={running}
          sending={sending}
          draft={draft}
          needsSetup={needsSetup}
          onDraft={setDraft}
          onExample={(q) => {
            setDraft(q);
            composerRef.current?.focus();
          }}
          onSend={send}
          onStop={stop}
          onOpenSettings={() => setSettingsOpen(true)}
          onOpenArtifact={setSelectedArtifact}
          artifactTitles={artifactTitles}
          onDismissError={() => setSendError(null)}
          composerRef={composerRef}
          onDetail={setDetail}
          onArtifactsChanged={() => setReloadTick((t) => t + 1)}
          headStart={
            <button
              type="button"
              className="icon-btn layout-toggle"
              onClick={() => toggleColumn('sidebar')}
              aria-label={layout.layout.sidebarCollapsed ? 'Show the sidebar' : 'Hide the sidebar'}
              aria-pressed={!layout.layout.sidebarCollapsed}
              aria-keyshortcuts="Control+B"
              title={`${layout.layout.sidebarCollapsed ? 'Show' : 'Hide'} the sidebar (${MOD_KEY}+B)`}
            >
              <SidebarIcon />
            </button>
          }
          headEnd={
            <button
              type="button"
              className="icon-btn layout-toggle layout-toggle-end"
              onClick={() => toggleColumn('panel')}
              aria-label={layout.layout.panelCollapsed ? 'Show the panel' : 'Hide the panel'}
              aria-pressed={!layout.layout.panelCollapsed}
              aria-keyshortcuts="Control+J"
              title={`${layout.layout.panelCollapsed ? 'Show' : 'Hide'} the task plan and artifacts (${MOD_KEY}+J)`}
            >
              <PanelIcon />
            </button>
          }
        />
        <ArtifactPanel
          conversationId={selectedId}
          rows={artifactRows}
          selectedId={selectedArtifact}
          onSelect={setSelectedArtifact}
          running={running}
          onChanged={refreshArtifacts}
          onAddFiles={uploads.addFiles}
          declared={declared.items}
          onDeclaredRemoved={declared.remove}
          onWorkspaceConversation={(id) => {
            setListTick((t) => t + 1);
            openConversation(id);
          }}
          onDeleted={(id) => {
            if (selectedId !== null) forgetDocument(selectedId, id);
            refreshArtifacts();
          }}
        />
      </CitationProvider>
      {layout.layout.sidebarCollapsed ? null : (
        <Splitter
          label="Resize the sidebar"
          value={layout.widths.sidebar}
          min={BOUNDS.sidebar.min}
          max={widthRange('sidebar', layout.viewport, layout.widths.panel).max}
          direction={1}
          position={{ left: layout.widths.sidebar }}
          onResize={(w) => layout.setWidth('sidebar', w)}
          onReset={() => layout.resetWidth('sidebar')}
          onCollapse={() => toggleColumn('sidebar')}
        />
      )}
      {layout.layout.panelCollapsed ? null : (
        <Splitter
          label="Resize the panel"
          value={layout.widths.panel}
          min={BOUNDS.panel.min}
          max={widthRange('panel', layout.viewport, layout.widths.sidebar).max}
          direction={-1}
          position={{ right: layout.widths.panel }}
          onResize={(w) => layout.setWidth('panel', w)}
          onReset={() => layout.resetWidth('panel')}
          onCollapse={() => toggleColumn('panel')}
        />
      )}
      <PermissionDialog runs={runs} selectedId={selectedId} conversations={conversations} />
      {settingsOpen ? (
        <SettingsDialog
          onClose={() => setSettingsOpen(false)}
          onSaved={(s) => {
            setNeedsSetup(s.model === '');
            setMaxUploadMb(s.max_upload_mb);
            setSendError((e) => (e && isSettingsError(e) ? null : e));
          }}
        />
      ) : null}
      {uploads.dragging ? <DropOverlay hasConversation={selectedId !== null} maxUploadMb={maxUploadMb} /> : null}
      <UploadTray
        items={uploads.items}
        onOpen={(it) => {
          if (it.conversationId !== selectedId) openConversation(it.conversationId);
          setSelectedArtifact(it.artifactId);
        }}
        onDismiss={uploads.dismiss}
        onClear={uploads.clearFinished}
      />
    </div>
  );
}
