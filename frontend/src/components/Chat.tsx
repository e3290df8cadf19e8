import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode, type RefObject } from 'react';
import { isSettingsError, messageEvents, toApiError, type ApiError, type ConversationDetail, type Message } from '../api';
import {
  getConversationSettings,
  queueMessage,
  regenerate,
  sendEdited,
  SETTINGS_SAVED_EVENT,
  switchBranch,
} from '../api-conversation';
import { allSearchesFailed, splitAnswer, type AnswerParts } from '../citations';
import { latestContextTokens } from '../context-meter';
import { endedRun, replayRun, runWeb, visibleText, type QueuedInput, type RunState } from '../events';
import { formatCount, formatDuration } from '../format';
import { firstShownIndex } from '../history';
import { askedAnew, nearBottom, sendMarker } from '../scroll';
import { useConversationHistory } from '../useHistory';
import { ActivityFlow } from './ActivityFlow';
import { TASK_PLAN_ID } from './ArtifactPanel';
import { BranchNav } from './BranchNav';
import { CiteChip } from './Citations';
import { CompactionMarker } from './CompactionMarker';
import { ContextMeter } from './ContextMeter';
import { ClockIcon, PencilIcon, RefreshIcon } from './conversation-icons';
import { DraftsBanner } from './DraftsBanner';
import { AlertIcon, ChevronIcon, DocIcon, SendIcon, Spinner, StopIcon, StoppedIcon } from './icons';
import { CopyButton } from './CopyButton';
import { Markdown } from './Markdown';
import { RunError } from './RunError';
import { SearchBanner, useSearchStatus, type SearchBannerReason } from './SearchBanner';
import { MOD_KEY } from './Sidebar';

/** One exchange to show: a stored message, a live run, or both (a run seen live and stored). */
export interface ChatItem {
  key: string;
  message?: Message;
  live?: RunState;
}

/** Props of ChatView. */
export interface ChatViewProps {
  conversationId: string | null;
  title: string;
  items: ChatItem[];
  /** A question being sent whose run has not shown up yet. */
  pendingQuestion: string;
  loading: boolean;
  loadError: string;
  /** The last Send error; a settings error gets an "Open settings" button. */
  sendError: ApiError | null;
  sendErrorIsSettings: boolean;
  running: boolean;
  sending: boolean;
  draft: string;
  /** True when no model is configured yet (shown in the empty state). */
  needsSetup: boolean;
  onDraft: (v: string) => void;
  /** An example question was picked in the empty state. */
  onExample: (q: string) => void;
  onSend: () => void;
  onStop: () => void;
  onOpenSettings: () => void;
  onOpenArtifact: (id: string) => void;
  /** Titles of the conversation's artifacts by id, for the chips under an answer. */
  artifactTitles?: Readonly<Record<string, string>>;
  onDismissError: () => void;
  composerRef: RefObject<HTMLTextAreaElement | null>;
  /** The conversation after a branch switch (ConversationService.SwitchBranch). */
  onDetail?: (d: ConversationDetail) => void;
  /** A recovered draft was kept: the artifact list changed. */
  onArtifactsChanged?: () => void;
  /** Shown at the start of the header (the sidebar's show/hide button). */
  headStart?: ReactNode;
  /** Shown at the end of the header (the panel's show/hide button). */
  headEnd?: ReactNode;
}

const EXAMPLES = [
  'What are the main approaches to solid-state batteries, and which companies lead each?',
  'Compare SQLite, DuckDB and PostgreSQL for a local analytics tool.',
  'What is known about the health effects of intermittent fasting? Summarize the evidence.',
  'How do European heat pump subsidies differ between Germany, France and Italy?',
];

/** Messages shown while the newest history page of a conversation is loading. */
const SHOWN_WHILE_LOADING = 3;
const NO_TITLES: Readonly<Record<string, string>> = {};

/** A message sent during a run that the run's events do not list yet (sent, or on its way). */
interface LocalQueued {
  key: string;
  conversationId: string;
  content: string;
  /** The queued message's id once ChatService.Queue answered; "" before. */
  queuedId: string;
}

/** The model-context settings the header meter needs. */
function useContextSettings(): { window: number; percent: number } {
  const [s, setS] = useState({ window: 0, percent: 80 });
  useEffect(() => {
    let stale = false;
    const load = () => {
      void getConversationSettings().then(
        (v) => {
          if (!stale) setS({ window: v.effective_context_window, percent: v.compact_at_percent });
        },
        () => undefined,
      );
    };
    load();
    window.addEventListener(SETTINGS_SAVED_EVENT, load);
    return () => {
      stale = true;
      window.removeEventListener(SETTINGS_SAVED_EVENT, load);
    };
  }, []);
  return s;
}

/**
 * The middle column: the conversation (each question with its branch navigator, edit and
 * regenerate, compaction markers, activity flow, streamed answer, messages added during
 * the run, figures or error), the recovered-drafts banner, the empty state with example
 * questions, and the composer (which queues messages while a run is going). Past events
 * come from ConversationService.History, newest page first; older pages load when the
 * reader scrolls to the top.
 */
export function ChatView(p: ChatViewProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const sentinelRef = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const anchor = useRef<{ fromBottom: number; firstKey: string } | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [busy, setBusy] = useState<'' | 'branch' | 'edit' | 'regenerate' | 'queue'>('');
  const [actionError, setActionError] = useState<{ title: string; error: ApiError } | null>(null);
  const [localQueued, setLocalQueued] = useState<LocalQueued[]>([]);
  const counter = useRef(0);
  const ctx = useContextSettings();
  const cid = p.conversationId;
  const empty = cid === null && p.items.length === 0 && p.pendingQuestion === '';

  // The active branch and what changes on it (messages added, runs ending).
  const messages = useMemo(() => p.items.flatMap((it) => (it.message ? [it.message] : [])), [p.items]);
  const path = useMemo(() => messages.map((m) => m.id), [messages]);
  const revision = messages.map((m) => `${m.id}:${m.status}`).join(',');
  const history = useConversationHistory(p.loading ? null : cid, path, revision);
  const fallback = history.status === 'unsupported' || history.status === 'error';

  // Which exchanges to show: from the first message the loaded history covers (older ones
  // appear as older pages load); all of them when the backend cannot page.
  const shownItems = useMemo(() => {
    if (fallback || history.status === 'idle') return p.items;
    let start: number;
    if (history.window === null) start = Math.max(0, messages.length - SHOWN_WHILE_LOADING);
    else start = firstShownIndex(path, history.window.events, history.window.hasBefore);
    const firstId = messages[start]?.id;
    if (firstId === undefined) return p.items;
    const at = p.items.findIndex((it) => it.message?.id === firstId);
    return at > 0 ? p.items.slice(at) : p.items;
  }, [fallback, history.status, history.window, p.items, messages, path]);
  const hasOlder = !fallback && (history.window?.hasBefore === true || (history.window === null && shownItems.length < p.items.length));

  const runOf = useCallback((it: ChatItem): RunState | undefined => it.live ?? (it.message ? history.runs[it.message.id] : undefined), [history.runs]);
  const contextUsed = latestContextTokens(shownItems.map(runOf));
  const runningItem = [...shownItems].reverse().find((it) => (it.live?.status ?? it.message?.status) === 'running');
  const firstKey = shownItems[0]?.key ?? '';

  // Follow the stream while the reader is at the bottom; leave them alone once they scroll up.
  // After older exchanges were put on top, keep what the reader was looking at in place.
  // A question just sent, regenerated or edited: scroll to it even when the reader was up.
  const asked = sendMarker(p.pendingQuestion, runningItem?.key);
  const lastAsked = useRef(asked);
  const [atBottom, setAtBottom] = useState(true);
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    if (askedAnew(lastAsked.current, asked)) {
      stick.current = true;
      anchor.current = null;
    }
    lastAsked.current = asked;
    const a = anchor.current;
    if (a !== null && (a.firstKey !== firstKey || !history.loadingOlder)) {
      el.scrollTop = el.scrollHeight - a.fromBottom;
      anchor.current = null;
      return;
    }
    if (a === null && stick.current) el.scrollTop = el.scrollHeight;
  });
  useEffect(() => {
    stick.current = true;
    anchor.current = null;
  }, [cid]);
  // Content that grows or shrinks without a scroll (a step expanded, the window resized) can
  // leave the reader above the end: recheck whether "Jump to latest" is needed.
  useEffect(() => {
    const el = scrollRef.current;
    const inner = el?.firstElementChild;
    if (!el || !inner || typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(() => setAtBottom(nearBottom(el.scrollHeight, el.scrollTop, el.clientHeight)));
    ro.observe(inner);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const loadOlder = history.loadOlder;
  const requestOlder = useCallback(() => {
    const el = scrollRef.current;
    if (el) anchor.current = { fromBottom: el.scrollHeight - el.scrollTop, firstKey };
    loadOlder();
  }, [firstKey, loadOlder]);

  // Scrolled to the top: load the page before the window. A fresh observer after each page
  // reports at once whether the top is still in view (short pages), so loading goes on.
  // After a failed page it waits for the reader's click (no retry loop).
  const canLoadOlder = history.window?.hasBefore === true && !history.loadingOlder && history.olderError === '';
  const windowFirst = history.window?.firstSeq ?? 0;
  useEffect(() => {
    const el = sentinelRef.current;
    const root = scrollRef.current;
    if (!canLoadOlder || !el || !root) return;
    const io = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) requestOlder();
      },
      { root, rootMargin: '200px 0px 0px 0px' },
    );
    io.observe(el);
    return () => io.disconnect();
  }, [canLoadOlder, windowFirst, requestOlder]);

  const fail = (title: string) => (e: unknown) => {
    setBusy('');
    setActionError({ title, error: toApiError(e) });
  };

  const goBranch = (siblingId: string) => {
    if (cid === null || busy !== '' || p.running) return;
    setBusy('branch');
    setActionError(null);
    setEditing(null);
    switchBranch(cid, siblingId).then((d) => {
      setBusy('');
      p.onDetail?.(d);
    }, fail('Could not switch to that branch'));
  };

  const submitEdit = (messageId: string, content: string) => {
    if (cid === null || busy !== '' || p.running) return;
    setBusy('edit');
    setActionError(null);
    sendEdited(cid, messageId, content).then(() => {
      setBusy('');
      setEditing(null);
      stick.current = true;
    }, fail('Could not send the edited question'));
  };

  const doRegenerate = (messageId: string) => {
    if (cid === null || busy !== '' || p.running) return;
    setBusy('regenerate');
    setActionError(null);
    regenerate(cid, messageId).then(() => {
      setBusy('');
      stick.current = true;
    }, fail('Could not regenerate the answer'));
  };

  // While a run is going, sending adds the message to it (ChatService.Queue).
  const queue = () => {
    const content = p.draft.trim();
    if (cid === null || content === '') return;
    const key = `lq${String(++counter.current)}`;
    setLocalQueued((l) => [...l, { key, conversationId: cid, content, queuedId: '' }]);
    setActionError(null);
    p.onDraft('');
    stick.current = true;
    queueMessage(cid, content).then(
      (r) => {
        // Queued: the run's queued_message event takes over the bubble. Not queued: the run
        // had just answered and a new one started with this message, shown by its events.
        setLocalQueued((l) => (r.queued ? l.map((x) => (x.key === key ? { ...x, queuedId: r.queuedId } : x)) : l.filter((x) => x.key !== key)));
      },
      (e: unknown) => {
        setLocalQueued((l) => l.filter((x) => x.key !== key));
        setActionError({ title: 'Could not add the message to the research', error: toApiError(e) });
        if (p.draft.trim() === '') p.onDraft(content);
      },
    );
  };

  // Local bubbles the run's events do not list yet.
  // The queued_message event may arrive before Queue answers: a bubble still without its id
  // is matched by content to an event no other bubble claims.
  const runQueued = shownItems.flatMap((it) => runOf(it)?.queued ?? []);
  const claimed = new Set(localQueued.map((x) => x.queuedId));
  const pendingLocal = localQueued.filter(
    (x) =>
      x.conversationId === cid &&
      (x.queuedId !== ''
        ? !runQueued.some((q) => q.id === x.queuedId)
        : !runQueued.some((q) => q.content === x.content && !claimed.has(q.id))),
  );

  const actionsDisabled = p.running || busy !== '';
  const lastKey = shownItems.at(-1)?.key;

  // Web search not set up, or every search of the last finished run failed: the banner
  // above the composer offers the settings (issue 9, item 2).
  const search = useSearchStatus(revision);
  const lastItem = shownItems.at(-1);
  const lastRun = lastItem !== undefined ? runOf(lastItem) : undefined;
  const lastWeb = lastRun !== undefined && lastRun.status !== 'running' ? runWeb(lastRun) : null;
  const banner: SearchBannerReason[] = [];
  if (!search.ready) banner.push({ kind: 'not-ready', problem: search.problem });
  if (lastRun !== undefined && allSearchesFailed(lastWeb)) banner.push({ kind: 'all-failed', error: lastWeb?.errors[0] ?? '', messageId: lastRun.messageId });

  return (
    <main className="chat" aria-label="Conversation">
      <header className="chat-head">
        {p.headStart}
        <h1 className="chat-title">{cid === null ? 'New research' : p.title || 'Untitled research'}</h1>
        {p.running ? (
          <span className="pill pill-running">
            <Spinner size={11} /> Researching
          </span>
        ) : null}
        {cid !== null ? (
          <div className="chat-head-end">
            <ContextMeter used={contextUsed} window={ctx.window} compactAtPercent={ctx.percent} />
          </div>
        ) : null}
        {p.headEnd}
      </header>
      <div
        className="chat-scroll"
        ref={scrollRef}
        onScroll={(e) => {
          const el = e.currentTarget;
          stick.current = nearBottom(el.scrollHeight, el.scrollTop, el.clientHeight);
          setAtBottom(stick.current);
        }}
      >
        <div className="chat-inner">
          {empty ? (
            <EmptyState needsSetup={p.needsSetup} hideSetup={p.sendErrorIsSettings} onExample={p.onExample} onOpenSettings={p.onOpenSettings} />
          ) : null}
          {cid !== null ? <DraftsBanner conversationId={cid} onKept={() => p.onArtifactsChanged?.()} /> : null}
          {p.loadError ? <ErrorBox title="Could not open this research">{p.loadError}</ErrorBox> : null}
          {p.loading && p.items.length === 0 ? <p className="muted center">Loading…</p> : null}
          {hasOlder ? (
            <div className="history-more" ref={sentinelRef}>
              {history.loadingOlder || history.window === null ? (
                <span className="muted small">
                  <Spinner size={12} /> Loading earlier messages…
                </span>
              ) : (
                <>
                  {history.olderError ? <span className="error-text small">Could not load earlier messages: {history.olderError}</span> : null}
                  <button type="button" className="btn btn-sm btn-ghost" onClick={requestOlder}>
                    {history.olderError ? 'Try again' : 'Load earlier messages'}
                  </button>
                </>
              )}
            </div>
          ) : null}
          {history.status === 'error' ? <p className="muted small center">History unavailable ({history.error}); showing each answer on its own.</p> : null}
          {shownItems.map((it) => (
            <Exchange
              key={it.key}
              conversationId={cid ?? ''}
              item={it}
              run={runOf(it)}
              loadOwn={fallback}
              actionsDisabled={actionsDisabled}
              busy={busy}
              editing={it.message !== undefined && editing === it.message.id}
              localQueued={it === runningItem || (runningItem === undefined && it.key === lastKey) ? pendingLocal : []}
              artifactTitles={p.artifactTitles ?? NO_TITLES}
              onOpenArtifact={p.onOpenArtifact}
              onBranch={goBranch}
              onEdit={(id) => {
                setActionError(null);
                setEditing(id);
              }}
              onCancelEdit={() => setEditing(null)}
              onSubmitEdit={submitEdit}
              onRegenerate={doRegenerate}
              onOpenSettings={p.onOpenSettings}
              onReuse={(text) => {
                p.onDraft(text);
                p.composerRef.current?.focus();
              }}
            />
          ))}
          {p.pendingQuestion ? (
            <article className="exchange">
              <div className="question">{p.pendingQuestion}</div>
              <p className="working">
                <Spinner size={13} /> Starting…
              </p>
            </article>
          ) : null}
          {actionError ? (
            <ErrorBox
              title={isSettingsError(actionError.error) ? 'The model is not set up' : actionError.title}
              onDismiss={() => setActionError(null)}
              action={
                isSettingsError(actionError.error) ? (
                  <button type="button" className="btn btn-primary btn-sm" onClick={p.onOpenSettings}>
                    Open settings
                  </button>
                ) : null
              }
            >
              {actionError.error.message}
            </ErrorBox>
          ) : null}
          {p.sendError ? (
            <ErrorBox
              title={p.sendErrorIsSettings ? 'The model is not set up' : 'Could not start the research'}
              onDismiss={p.onDismissError}
              action={
                p.sendErrorIsSettings ? (
                  <button type="button" className="btn btn-primary btn-sm" onClick={p.onOpenSettings}>
                    Open settings
                  </button>
                ) : null
              }
            >
              {p.sendError.message}
            </ErrorBox>
          ) : null}
        </div>
        {!atBottom && !empty ? (
          <div className="jump-latest-wrap">
            <button
              type="button"
              className="btn btn-sm jump-latest"
              onClick={() => {
                const el = scrollRef.current;
                stick.current = true;
                setAtBottom(true);
                el?.scrollTo({ top: el.scrollHeight });
              }}
            >
              <ChevronIcon size={13} className="jump-latest-icon" /> Jump to latest
            </button>
          </div>
        ) : null}
      </div>
      <Composer
        value={p.draft}
        onChange={p.onDraft}
        onSend={p.running && cid !== null ? queue : p.onSend}
        onStop={p.onStop}
        running={p.running}
        sending={p.sending}
        textareaRef={p.composerRef}
        banner={<SearchBanner reasons={banner} onOpenSettings={p.onOpenSettings} />}
      />
    </main>
  );
}

interface EmptyStateProps {
  needsSetup: boolean;
  /** The send error already offers the settings. */
  hideSetup: boolean;
  onExample: (q: string) => void;
  onOpenSettings: () => void;
}

function EmptyState({ needsSetup, hideSetup, onExample, onOpenSettings }: EmptyStateProps) {
  return (
    <div className="empty">
      <h2>What would you like to research?</h2>
      <p>
        Ask a question. A lead agent writes a plan as a checklist, sends a search agent and a crawl agent to the web,
        and writes what it finds into documents you can read in the panel on the right. Everything stays in a local
        file on this computer.
      </p>
      {needsSetup && !hideSetup ? (
        <div className="setup-note">
          <span>Connect a model first: any OpenAI-compatible endpoint works.</span>
          <button type="button" className="btn btn-primary btn-sm" onClick={onOpenSettings}>
            Open settings
          </button>
        </div>
      ) : null}
      <div className="examples-label">Try one of these</div>
      <div className="examples">
        {EXAMPLES.map((q) => (
          <button key={q} type="button" className="example" onClick={() => onExample(q)}>
            {q}
          </button>
        ))}
      </div>
    </div>
  );
}

/**
 * Loads the stored events of a past run once its element scrolls into view
 * (ConversationService.Events): the fallback when the backend has no History.
 */
function usePastRun(conversationId: string, messageId: string, enabled: boolean) {
  const ref = useRef<HTMLElement>(null);
  const [visible, setVisible] = useState(false);
  const [result, setResult] = useState<{ run?: RunState; error?: string } | null>(null);

  useEffect(() => {
    const el = ref.current;
    if (!enabled || visible || !el) return;
    const io = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) setVisible(true);
      },
      { rootMargin: '300px' },
    );
    io.observe(el);
    return () => io.disconnect();
  }, [enabled, visible]);

  useEffect(() => {
    if (!enabled || !visible || conversationId === '') return;
    let stale = false;
    messageEvents(conversationId, messageId).then(
      (events) => {
        if (!stale) setResult({ run: replayRun(events, messageId) });
      },
      (e: unknown) => {
        if (!stale) setResult({ error: e instanceof Error ? e.message : String(e) });
      },
    );
    return () => {
      stale = true;
    };
  }, [enabled, visible, conversationId, messageId]);

  return { ref, past: result };
}

interface ExchangeProps {
  conversationId: string;
  item: ChatItem;
  /** The run seen live, or rebuilt from the loaded history. */
  run: RunState | undefined;
  /** Load the run's events on its own (no History in this backend). */
  loadOwn: boolean;
  /** Branch, edit and regenerate are off (a run is going, or one of them is under way). */
  actionsDisabled: boolean;
  busy: string;
  editing: boolean;
  /** Messages sent during this run that its events do not list yet. */
  localQueued: LocalQueued[];
  /** Titles of the conversation's artifacts by id; a chip falls back to the id. */
  artifactTitles: Readonly<Record<string, string>>;
  onOpenArtifact: (id: string) => void;
  onBranch: (messageId: string) => void;
  onEdit: (messageId: string) => void;
  onCancelEdit: () => void;
  onSubmitEdit: (messageId: string, content: string) => void;
  onRegenerate: (messageId: string) => void;
  /** Opens the Settings dialog (the fix a model error offers). */
  onOpenSettings: () => void;
  /** Put text back into the composer (a message the run did not take). */
  onReuse: (text: string) => void;
}

function Exchange(x: ExchangeProps) {
  const { message, live } = x.item;
  const { ref, past } = usePastRun(x.conversationId, message?.id ?? '', x.loadOwn && x.run === undefined && message !== undefined);
  const stored = message?.status ?? 'complete';
  const rebuilt = x.run ?? past?.run;
  // The store knows a run ended (interrupted runs have no terminal event) even when its events do not say so.
  const run =
    rebuilt?.status === 'running' && (stored === 'interrupted' || (live === undefined && stored !== 'running')) ? endedRun(rebuilt) : rebuilt;
  const status = live?.status === 'running' && stored === 'interrupted' ? stored : (live?.status ?? stored);
  const running = status === 'running';
  const question = message?.content || live?.question || run?.question || '';
  const answer = visibleText(live?.answer || message?.response || (running ? '' : (run?.answer ?? '')));
  // A finished answer ends with the engine's footer (failures, cited sources); a streaming
  // one has none yet.
  const parts: AnswerParts = running ? { body: answer, failures: '', sources: [] } : splitAnswer(answer);
  const reasoning = run?.reasoning ?? '';
  const error = live?.error || message?.error || '';
  const reason = run?.reason ?? '';
  // The task plan is always on show in the panel; the chips name the deliverables.
  const deliverables = (run?.artifactIds ?? []).filter((id) => id !== TASK_PLAN_ID);
  // "stopped by the user" says nothing the word Stopped does not.
  const shownReason = /stopped by the user|context canceled/i.test(reason) ? '' : reason;
  const siblings = message?.sibling_ids ?? [];
  const queued = run?.queued ?? [];
  const delivered = queued.filter((q) => q.status === 'delivered');
  const waiting = queued.filter((q) => q.status === 'queued');
  const dropped = queued.filter((q) => q.status === 'dropped');
  const compactions = run?.compactions ?? [];

  return (
    <article className={`exchange status-${status}`} ref={ref} data-message-id={message?.id}>
      {x.editing && message ? (
        <QuestionEditor
          initial={message.content}
          busy={x.busy === 'edit'}
          onCancel={x.onCancelEdit}
          onSubmit={(text) => x.onSubmitEdit(message.id, text)}
        />
      ) : (
        <div className="question-wrap">
          <div className="question">{question}</div>
          {message ? (
            <div className="question-actions">
              <BranchNav
                index={message.sibling_index}
                count={siblings.length}
                disabled={x.actionsDisabled}
                onGo={(i) => {
                  const id = siblings[i];
                  if (id !== undefined) x.onBranch(id);
                }}
              />
              <button
                type="button"
                className="icon-btn msg-action"
                aria-label="Edit question"
                title={x.actionsDisabled ? 'Wait for the research to finish' : 'Edit and resend as a new branch'}
                disabled={x.actionsDisabled}
                onClick={() => x.onEdit(message.id)}
              >
                <PencilIcon size={14} />
              </button>
            </div>
          ) : null}
        </div>
      )}
      {compactions.map((c) => (
        <CompactionMarker key={`${String(c.seq)}-${c.agent}`} c={c} />
      ))}
      {run ? <ActivityFlow run={run} live={live !== undefined} /> : null}
      {past?.error ? <p className="muted small">Activity unavailable: {past.error}</p> : null}
      {delivered.map((q) => (
        <AddedMessage key={q.id} q={q} />
      ))}
      {reasoning ? <Reasoning text={reasoning} streaming={running && answer === ''} /> : null}
      {parts.body ? (
        <Markdown source={parts.body} className={running ? 'answer streaming' : 'answer'} cite copyCode />
      ) : running ? (
        <p className="working">
          <Spinner size={13} /> Working on it — the answer appears here when the lead agent writes it.
        </p>
      ) : null}
      <AnswerFooter parts={parts} />
      {waiting.map((q) => (
        <AddedMessage key={q.id} q={q} />
      ))}
      {x.localQueued.map((q) => (
        <AddedMessage key={q.key} q={{ id: q.key, content: q.content, status: 'queued', seq: 0 }} sending={q.queuedId === ''} />
      ))}
      {dropped.map((q) => (
        <AddedMessage key={q.id} q={q} onReuse={() => x.onReuse(q.content)} />
      ))}
      {status === 'error' ? (
        <RunError
          code={live?.errorCode || run?.errorCode || ''}
          message={error}
          onOpenSettings={x.onOpenSettings}
          onRetry={message ? () => x.onRegenerate(message.id) : undefined}
          retryDisabled={x.actionsDisabled}
        />
      ) : null}
      {status === 'cancelled' ? (
        <div className="run-stopped" title={reason || undefined}>
          <StoppedIcon size={14} /> Stopped{shownReason ? ` — ${shownReason}` : ''}
        </div>
      ) : null}
      {status === 'interrupted' ? (
        <div className="run-stopped run-interrupted" role="status">
          <AlertIcon size={14} />
          <span>
            <strong>Interrupted</strong> — the app closed before this run finished. What it had done is kept; its unsaved
            artifact changes, if any, are offered above.
          </span>
        </div>
      ) : null}
      {run && run.flushFailed.length > 0 ? (
        <ErrorBox title="Some artifacts were not saved">{run.flushFailed.join(', ')}</ErrorBox>
      ) : null}
      {deliverables.length > 0 && !running ? (
        <div className="run-artifacts" aria-label="Artifacts this run changed">
          {deliverables.map((id) => {
            const name = x.artifactTitles[id] || id;
            return (
              <button key={id} type="button" className="chip" onClick={() => x.onOpenArtifact(id)} title={name === id ? `Show ${id}` : `Show ${name} (${id})`}>
                <DocIcon size={13} />
                {name}
              </button>
            );
          })}
        </div>
      ) : null}
      {!running && (run?.figures || message) ? (
        <div className="run-foot">
          {run?.figures ? <Figures run={run} /> : <span />}
          {answer.trim() !== '' ? <CopyButton text={() => answer.trim()} label="Copy answer" className="msg-copy" /> : null}
          {message ? (
            <button
              type="button"
              className="btn btn-sm btn-ghost msg-regenerate"
              title={x.actionsDisabled ? 'Wait for the research to finish' : 'Research this question again as a new branch'}
              disabled={x.actionsDisabled}
              onClick={() => x.onRegenerate(message.id)}
            >
              {x.busy === 'regenerate' ? <Spinner size={12} /> : <RefreshIcon size={13} />}
              Regenerate
            </button>
          ) : null}
        </div>
      ) : null}
    </article>
  );
}

/**
 * The footer of a finished answer (issue 9): the line saying which searches and fetches
 * failed, as a warning, and the sources the answer cited, each with its chip (hover card,
 * click to open) and the engine's Markdown line (a link to the page, site and date; for a
 * file its path and page).
 */
export function AnswerFooter({ parts }: { parts: AnswerParts }) {
  if (parts.failures === '' && parts.sources.length === 0) return null;
  return (
    <>
      {parts.failures !== '' ? (
        <div className="answer-failures" role="note" aria-label="Failed searches and fetches">
          <AlertIcon size={15} />
          <span>{parts.failures}</span>
        </div>
      ) : null}
      {parts.sources.length > 0 ? (
        <section className="answer-sources" aria-label="Sources cited">
          <h3>Sources</h3>
          <ol>
            {parts.sources.map((s) => (
              <li key={s.n}>
                <CiteChip n={s.n} />
                <Markdown source={s.text} className="answer-source-text" />
              </li>
            ))}
          </ol>
        </section>
      ) : null}
    </>
  );
}

/** The figures of a finished run: steps, tokens (in/out), duration, model, compactions. */
function Figures({ run }: { run: RunState }) {
  const f = run.figures;
  if (!f) return null;
  const u = f.usage;
  const done = run.compactions.filter((c) => c.status === 'done').length;
  return (
    <div className="figures" aria-label="Run figures">
      <span>
        {f.steps} step{f.steps === 1 ? '' : 's'}
      </span>
      <span title={`${u.prompt_tokens.toLocaleString('en-US')} prompt + ${u.completion_tokens.toLocaleString('en-US')} completion tokens`}>
        {formatCount(u.total_tokens)} tokens
        {u.prompt_tokens > 0 || u.completion_tokens > 0 ? (
          <span className="figures-split">
            {' '}
            ({formatCount(u.prompt_tokens)} in · {formatCount(u.completion_tokens)} out)
          </span>
        ) : null}
      </span>
      {f.durationMs > 0 ? <span>{formatDuration(f.durationMs)}</span> : null}
      {run.model ? <span>{run.model}</span> : null}
      {done > 0 ? (
        <span>
          {done} compaction{done === 1 ? '' : 's'}
        </span>
      ) : null}
    </div>
  );
}

/** A message the user sent while the research was going, with what became of it. */
function AddedMessage({ q, sending = false, onReuse }: { q: QueuedInput; sending?: boolean; onReuse?: () => void }) {
  return (
    <div className={`added-msg status-${q.status}`}>
      <div className="question added-question">{q.content || '(message)'}</div>
      <div className="added-note">
        {q.status === 'delivered' ? (
          'Added during the research — the lead agent took it into account'
        ) : q.status === 'queued' ? (
          <>
            {sending ? <Spinner size={11} /> : <ClockIcon size={12} />}
            <span className="badge badge-queued">Queued</span>
            {sending ? 'Sending…' : 'The lead agent reads it at its next step'}
          </>
        ) : (
          <>
            Not delivered — the research ended first.
            {onReuse ? (
              <button type="button" className="btn btn-sm btn-ghost" onClick={onReuse}>
                Put back in the box
              </button>
            ) : null}
          </>
        )}
      </div>
    </div>
  );
}

/** The inline editor of a question: Enter or Ctrl/Cmd+Enter resends, Shift+Enter adds a line, Esc cancels. */
function QuestionEditor({ initial, busy, onCancel, onSubmit }: { initial: string; busy: boolean; onCancel: () => void; onSubmit: (text: string) => void }) {
  const [value, setValue] = useState(initial);
  const ref = useRef<HTMLTextAreaElement>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${String(Math.min(el.scrollHeight, 260))}px`;
  }, [value]);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, []);
  const text = value.trim();
  const can = text !== '' && !busy;
  return (
    <form
      className="question-edit"
      aria-label="Edit question"
      onSubmit={(e) => {
        e.preventDefault();
        if (can) onSubmit(text);
      }}
    >
      <textarea
        ref={ref}
        className="question-edit-input"
        value={value}
        rows={2}
        aria-label="Edited question"
        disabled={busy}
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            onCancel();
          } else if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            if (can) onSubmit(text);
          }
        }}
      />
      <div className="question-edit-foot">
        <span className="hint">A new branch: the current answer stays reachable with ‹ ›.</span>
        <button type="button" className="btn btn-sm" onClick={onCancel} disabled={busy}>
          Cancel <kbd>Esc</kbd>
        </button>
        <button type="submit" className="btn btn-sm btn-primary" disabled={!can}>
          {busy ? <Spinner size={12} /> : null}
          Resend
        </button>
      </div>
    </form>
  );
}

function Reasoning({ text, streaming }: { text: string; streaming: boolean }) {
  const [open, setOpen] = useState<boolean | null>(null);
  const isOpen = open ?? streaming;
  return (
    <div className={`reasoning${isOpen ? ' open' : ''}`}>
      <button type="button" className="reasoning-head" aria-expanded={isOpen} onClick={() => setOpen(!isOpen)}>
        <ChevronIcon size={12} className={isOpen ? 'chev open' : 'chev'} />
        {streaming ? 'Thinking…' : 'Reasoning'}
      </button>
      {isOpen ? <div className="reasoning-text">{text}</div> : null}
    </div>
  );
}

/** Props of ErrorBox. */
export interface ErrorBoxProps {
  title: string;
  children: ReactNode;
  action?: ReactNode;
  onDismiss?: () => void;
}

/** A clearly marked error message with an optional action and dismiss button. */
export function ErrorBox({ title, children, action, onDismiss }: ErrorBoxProps) {
  return (
    <div className="error-box" role="alert">
      <AlertIcon size={16} />
      <div className="error-body">
        <strong>{title}</strong>
        <div className="error-msg">{children}</div>
        {action || onDismiss ? (
          <div className="error-actions">
            {action}
            {onDismiss ? (
              <button type="button" className="btn btn-sm" onClick={onDismiss}>
                Dismiss
              </button>
            ) : null}
          </div>
        ) : null}
      </div>
    </div>
  );
}

interface ComposerProps {
  value: string;
  onChange: (v: string) => void;
  /** Sends the question, or while a run is going adds it to the run (queued). */
  onSend: () => void;
  onStop: () => void;
  running: boolean;
  sending: boolean;
  textareaRef: RefObject<HTMLTextAreaElement | null>;
  /** Shown above the box (the search banner). */
  banner?: ReactNode;
}

function Composer({ value, onChange, onSend, onStop, running, sending, textareaRef, banner }: ComposerProps) {
  useLayoutEffect(() => {
    const el = textareaRef.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${String(Math.min(el.scrollHeight, 220))}px`;
  }, [value, running, textareaRef]);
  const canSend = value.trim() !== '' && !sending;
  return (
    <div className="composer-wrap">
      {banner}
      <form
        className="composer"
        onSubmit={(e) => {
          e.preventDefault();
          if (canSend) onSend();
        }}
      >
        <textarea
          ref={textareaRef}
          className="composer-input"
          rows={1}
          value={value}
          placeholder={running ? 'Add a message for the lead agent…' : 'Ask a research question…'}
          aria-label="Research question"
          onChange={(e) => onChange(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              if (canSend) onSend();
            }
          }}
        />
        {running ? (
          <>
            <button
              type="submit"
              className="btn btn-primary btn-send"
              disabled={!canSend}
              aria-label="Queue message"
              title="Add to the running research (Enter)"
            >
              <SendIcon size={16} />
            </button>
            <button type="button" className="btn btn-stop" onClick={onStop} title="Stop (Esc)">
              <StopIcon size={14} />
              Stop
            </button>
          </>
        ) : (
          <button type="submit" className="btn btn-primary btn-send" disabled={!canSend} aria-label="Send" title="Send (Enter)">
            {sending ? <Spinner size={14} /> : <SendIcon size={16} />}
          </button>
        )}
      </form>
      <div className="composer-hint">
        <span>
          {running ? (
            <>
              <kbd>Enter</kbd> adds to the research · <kbd>Esc</kbd> stops
            </>
          ) : (
            <>
              <kbd>Enter</kbd> to send · <kbd>Shift</kbd>+<kbd>Enter</kbd> for a new line
            </>
          )}
        </span>
        <span>
          <kbd>{MOD_KEY}</kbd>+<kbd>N</kbd> new · <kbd>{MOD_KEY}</kbd>+<kbd>,</kbd> settings · <kbd>{MOD_KEY}</kbd>+<kbd>B</kbd> sidebar · <kbd>{MOD_KEY}</kbd>+<kbd>J</kbd> panel
        </span>
      </div>
    </div>
  );
}
