import { useEffect, useLayoutEffect, useRef, useState, type ReactNode, type RefObject } from 'react';
import { messageEvents, type ApiError, type Message } from '../api';
import { replayRun, visibleText, type RunState } from '../events';
import { formatCount, formatDuration } from '../format';
import { ActivityFlow } from './ActivityFlow';
import { TASK_PLAN_ID } from './ArtifactPanel';
import { AlertIcon, ChevronIcon, DocIcon, SendIcon, Spinner, StopIcon, StoppedIcon } from './icons';
import { Markdown } from './Markdown';
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
  onDismissError: () => void;
  composerRef: RefObject<HTMLTextAreaElement | null>;
}

const EXAMPLES = [
  'What are the main approaches to solid-state batteries, and which companies lead each?',
  'Compare SQLite, DuckDB and PostgreSQL for a local analytics tool.',
  'What is known about the health effects of intermittent fasting? Summarize the evidence.',
  'How do European heat pump subsidies differ between Germany, France and Italy?',
];

/**
 * The middle column: the conversation (each question with its activity flow, streamed
 * answer, figures or error), the empty state with example questions, and the composer.
 */
export function ChatView(p: ChatViewProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const empty = p.conversationId === null && p.items.length === 0 && p.pendingQuestion === '';

  // Follow the stream while the reader is at the bottom; leave them alone once they scroll up.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  });
  useEffect(() => {
    stick.current = true;
  }, [p.conversationId]);

  return (
    <main className="chat" aria-label="Conversation">
      <header className="chat-head">
        <h1 className="chat-title">{p.conversationId === null ? 'New research' : p.title || 'Untitled research'}</h1>
        {p.running ? (
          <span className="pill pill-running">
            <Spinner size={11} /> Researching
          </span>
        ) : null}
      </header>
      <div
        className="chat-scroll"
        ref={scrollRef}
        onScroll={(e) => {
          const el = e.currentTarget;
          stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
        }}
      >
        <div className="chat-inner">
          {empty ? (
            <EmptyState needsSetup={p.needsSetup} hideSetup={p.sendErrorIsSettings} onExample={p.onExample} onOpenSettings={p.onOpenSettings} />
          ) : null}
          {p.loadError ? <ErrorBox title="Could not open this research">{p.loadError}</ErrorBox> : null}
          {p.loading && p.items.length === 0 ? <p className="muted center">Loading…</p> : null}
          {p.items.map((it) => (
            <Exchange
              key={it.key}
              conversationId={p.conversationId ?? ''}
              item={it}
              onOpenArtifact={p.onOpenArtifact}
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
      </div>
      <Composer
        value={p.draft}
        onChange={p.onDraft}
        onSend={p.onSend}
        onStop={p.onStop}
        running={p.running}
        sending={p.sending}
        textareaRef={p.composerRef}
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

/** Loads the stored events of a past run once its element scrolls into view. */
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

function Exchange({ conversationId, item, onOpenArtifact }: { conversationId: string; item: ChatItem; onOpenArtifact: (id: string) => void }) {
  const { message, live } = item;
  const { ref, past } = usePastRun(conversationId, message?.id ?? '', live === undefined && message !== undefined);
  const run = live ?? past?.run;
  const status = live?.status ?? message?.status ?? 'complete';
  const running = status === 'running';
  const question = message?.content || live?.question || '';
  const answer = visibleText(live?.answer || message?.response || (running ? '' : (run?.answer ?? '')));
  const reasoning = run?.reasoning ?? '';
  const error = live?.error || message?.error || '';
  const reason = run?.reason ?? '';
  // The task plan is always on show in the panel; the chips name the deliverables.
  const deliverables = (run?.artifactIds ?? []).filter((id) => id !== TASK_PLAN_ID);
  // "stopped by the user" says nothing the word Stopped does not.
  const shownReason = /stopped by the user|context canceled/i.test(reason) ? '' : reason;

  return (
    <article className="exchange" ref={ref}>
      <div className="question">{question}</div>
      {run ? <ActivityFlow run={run} live={live !== undefined} /> : null}
      {past?.error ? <p className="muted small">Activity unavailable: {past.error}</p> : null}
      {reasoning ? <Reasoning text={reasoning} streaming={running && answer === ''} /> : null}
      {answer ? (
        <Markdown source={answer} className={running ? 'answer streaming' : 'answer'} />
      ) : running ? (
        <p className="working">
          <Spinner size={13} /> Working on it — the answer appears here when the lead agent writes it.
        </p>
      ) : null}
      {status === 'error' ? <ErrorBox title="The research failed">{error || 'The run ended with an error.'}</ErrorBox> : null}
      {status === 'cancelled' ? (
        <div className="run-stopped" title={reason || undefined}>
          <StoppedIcon size={14} /> Stopped{shownReason ? ` — ${shownReason}` : ''}
        </div>
      ) : null}
      {status === 'interrupted' ? (
        <div className="run-stopped">
          <StoppedIcon size={14} /> Interrupted — the app closed before this run finished.
        </div>
      ) : null}
      {run && run.flushFailed.length > 0 ? (
        <ErrorBox title="Some artifacts were not saved">{run.flushFailed.join(', ')}</ErrorBox>
      ) : null}
      {deliverables.length > 0 && !running ? (
        <div className="run-artifacts" aria-label="Artifacts this run changed">
          {deliverables.map((id) => (
            <button key={id} type="button" className="chip" onClick={() => onOpenArtifact(id)} title={`Show ${id}`}>
              <DocIcon size={13} />
              {id}
            </button>
          ))}
        </div>
      ) : null}
      {run?.figures && !running ? (
        <div className="figures" aria-label="Run figures">
          <span>
            {run.figures.steps} step{run.figures.steps === 1 ? '' : 's'}
          </span>
          <span>{formatCount(run.figures.usage.total_tokens)} tokens</span>
          <span>{formatDuration(run.figures.durationMs)}</span>
          {run.model ? <span>{run.model}</span> : null}
        </div>
      ) : null}
    </article>
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
  onSend: () => void;
  onStop: () => void;
  running: boolean;
  sending: boolean;
  textareaRef: RefObject<HTMLTextAreaElement | null>;
}

function Composer({ value, onChange, onSend, onStop, running, sending, textareaRef }: ComposerProps) {
  useLayoutEffect(() => {
    const el = textareaRef.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${String(Math.min(el.scrollHeight, 220))}px`;
  }, [value, textareaRef]);
  const canSend = value.trim() !== '' && !running && !sending;
  return (
    <div className="composer-wrap">
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
          placeholder={running ? 'Research in progress… you can draft your next question.' : 'Ask a research question…'}
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
          <button type="button" className="btn btn-stop" onClick={onStop} title="Stop (Esc)">
            <StopIcon size={14} />
            Stop
          </button>
        ) : (
          <button type="submit" className="btn btn-primary btn-send" disabled={!canSend} aria-label="Send" title="Send (Enter)">
            {sending ? <Spinner size={14} /> : <SendIcon size={16} />}
          </button>
        )}
      </form>
      <div className="composer-hint">
        <span>
          <kbd>Enter</kbd> to send · <kbd>Shift</kbd>+<kbd>Enter</kbd> for a new line
          {running ? (
            <>
              {' '}
              · <kbd>Esc</kbd> to stop
            </>
          ) : null}
        </span>
        <span>
          <kbd>{MOD_KEY}</kbd>+<kbd>N</kbd> new · <kbd>{MOD_KEY}</kbd>+<kbd>,</kbd> settings
        </span>
      </div>
    </div>
  );
}
