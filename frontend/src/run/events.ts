// Run events (backend/events/events.go) and the pure reducer that turns them into the state
// the chat and artifact panels render. The UI is fed only by these events and the bound
// services (docs/ARCHITECTURE.md, "Contracts other code relies on"): nothing here talks to
// the backend. The event and state types live in event-types.ts (re-exported here), which
// the per-type reducers import, so this module and its reducers never import each other.

import { applyChunk } from './agent-reducers';
import { applyPersisted, closeOpenWork } from './run-reducer';
import { closeSteps, num, obj, str } from './run-util';
import type {
  ArtifactSnapshot,
  ConversationRuns,
  EventType,
  LiveArtifact,
  PermissionAsk,
  RunEvent,
  RunState,
  RunsState,
  WebTally,
} from './event-types';

export type * from './event-types';
export { parseEvent } from './parse-event';
export { LEAD_AGENT } from './run-util';
export { permissionSubject } from './input-reducers';

/** Returns the empty state. */
export function emptyRunsState(): RunsState {
  return { conversations: {} };
}

function emptyConversation(): ConversationRuns {
  return { lastSeq: 0, runs: {}, order: [], artifacts: {} };
}

function newRun(ev: RunEvent): RunState {
  return {
    conversationId: ev.conversation_id,
    messageId: ev.message_id,
    question: '',
    model: '',
    status: 'running',
    answer: '',
    reasoning: '',
    steps: [],
    artifactIds: [],
    error: '',
    errorCode: '',
    reason: '',
    flushFailed: [],
    startedAt: ev.created_at,
    firstSeq: 0,
    agentStack: [],
    pendingInstructions: {},
    parentId: '',
    queued: [],
    permissions: [],
    compactions: [],
    contextTokens: 0,
    web: null,
    cited: [],
    warnings: [],
    warningCodes: [],
    images: [],
    suggestions: [],
    suggestedTitle: '',
  };
}

function applyArtifact(conv: ConversationRuns, ev: RunEvent): Record<string, LiveArtifact> {
  const a = obj(ev.data.artifact);
  const id = str(a.id);
  if (id === '') return conv.artifacts;
  const snapshot: ArtifactSnapshot = {
    id,
    content_type: str(a.content_type),
    title: str(a.title),
    content: str(a.content),
    version: num(a.version),
    source: str(a.source),
    update_type: str(a.update_type),
  };
  return { ...conv.artifacts, [id]: { snapshot, unsaved: true, messageId: ev.message_id } };
}

/** After a terminal event, the run's changes are flushed except the ids listed as failed. */
function settleArtifacts(conv: ConversationRuns, ev: RunEvent, failed: string[]): Record<string, LiveArtifact> {
  let changed = false;
  const next: Record<string, LiveArtifact> = {};
  for (const [id, a] of Object.entries(conv.artifacts)) {
    const unsaved = a.messageId === ev.message_id ? failed.includes(id) : a.unsaved;
    changed ||= unsaved !== a.unsaved;
    next[id] = unsaved === a.unsaved ? a : { ...a, unsaved };
  }
  return changed ? next : conv.artifacts;
}

/**
 * Applies one event to the state and returns the new state; `state` is never mutated.
 *
 * Persisted events with seq <= the conversation's last applied seq are duplicates (for
 * example after a reconnect replays the stream) and leave the state unchanged. llm_chunk
 * events carry the seq of the last persisted event, so they are not deduplicated by seq:
 * they apply to the run's current LLM call unless the run has ended or the chunk is older
 * than the last persisted event (seq < lastSeq). A chunk with data.reset = true discards
 * the partial text of the current call first. Events without a conversation or message id
 * are ignored.
 */
export function applyEvent(state: RunsState, ev: RunEvent): RunsState {
  if (ev.conversation_id === '' || ev.message_id === '') return state;
  // A rating is no part of its run's activity, and it may come long after the run: it
  // neither rebuilds the run nor moves the seq (the message's `feedback` shows it).
  if (ev.type === 'feedback') return state;
  const conv = state.conversations[ev.conversation_id] ?? emptyConversation();
  const existing = conv.runs[ev.message_id];

  if (ev.type === 'llm_chunk') {
    if (ev.seq < conv.lastSeq) return state;
    if (existing !== undefined && existing.status !== 'running') return state;
    const run = applyChunk(existing ?? newRun(ev), ev);
    if (run === existing) return state;
    return withRun(state, conv, run);
  }

  if (ev.seq <= conv.lastSeq) return state;
  if (existing !== undefined && existing.status !== 'running') {
    // A finished run takes no more events but its Stop hooks' results (hook_result) and its
    // follow-up questions (suggestions), which come after the terminal event; otherwise
    // only the seq advances.
    if (ev.type === 'hook_result' || ev.type === 'suggestions') return withRun(state, { ...conv, lastSeq: ev.seq }, applyPersisted(existing, ev));
    return withConversation(state, ev.conversation_id, { ...conv, lastSeq: ev.seq });
  }
  const base = existing ?? newRun(ev);
  const run = applyPersisted(base.firstSeq === 0 ? { ...base, firstSeq: ev.seq } : base, ev);
  let artifacts = conv.artifacts;
  if (ev.type === 'artifact_changed') artifacts = applyArtifact(conv, ev);
  if (ev.type === 'complete' || ev.type === 'cancelled' || ev.type === 'error') {
    artifacts = settleArtifacts(conv, ev, run.flushFailed);
  }
  return withRun(state, { ...conv, lastSeq: ev.seq, artifacts }, run);
}

function withConversation(state: RunsState, id: string, conv: ConversationRuns): RunsState {
  return { conversations: { ...state.conversations, [id]: conv } };
}

function withRun(state: RunsState, conv: ConversationRuns, run: RunState): RunsState {
  const known = run.messageId in conv.runs;
  return withConversation(state, run.conversationId, {
    ...conv,
    runs: { ...conv.runs, [run.messageId]: run },
    order: known ? conv.order : [...conv.order, run.messageId],
  });
}

/**
 * Forgets the live state of one artifact of a conversation (the user deleted it). The runs
 * that changed it keep its id in their history. Returns `state` itself when there was
 * nothing to forget.
 */
export function forgetArtifact(state: RunsState, conversationId: string, artifactId: string): RunsState {
  const conv = state.conversations[conversationId];
  if (conv === undefined || !(artifactId in conv.artifacts)) return state;
  const artifacts = Object.fromEntries(Object.entries(conv.artifacts).filter(([id]) => id !== artifactId));
  return withConversation(state, conversationId, { ...conv, artifacts });
}

/** Applies events in order (see applyEvent). */
export function applyEvents(state: RunsState, events: readonly RunEvent[]): RunsState {
  return events.reduce(applyEvent, state);
}

/**
 * Rebuilds the run of one stored message from its persisted events (ConversationService.Events,
 * seq order). Returns undefined when no event belongs to `messageId`.
 */
export function replayRun(events: readonly RunEvent[], messageId: string): RunState | undefined {
  const own = events.filter((e) => e.message_id === messageId);
  if (own.length === 0) return undefined;
  const state = applyEvents(emptyRunsState(), own);
  const first = own[0];
  return first && state.conversations[first.conversation_id]?.runs[messageId];
}

/**
 * Merges runs rebuilt from stored events (ConversationService.Events) into a conversation:
 * for a run this window did not see from its start, or after a reconnect that may have
 * missed events (even the terminal one). The stored events of a message are all its
 * persisted events up to their highest seq, so a rebuilt run is taken when the state has no
 * such run, when the stored events reach further than the state, or when they reach as far
 * and the state missed the run's start; otherwise the state's run is kept. A rebuilt run
 * that is still going keeps the text streamed so far for its current LLM call. Runs and
 * artifacts the state has are never dropped; lastSeq becomes the larger of the two.
 */
export function hydrateConversation(state: RunsState, conversationId: string, events: readonly RunEvent[]): RunsState {
  const rebuilt = applyEvents(
    emptyRunsState(),
    events.filter((e) => e.conversation_id === conversationId),
  ).conversations[conversationId];
  if (rebuilt === undefined) return state;
  const current = state.conversations[conversationId] ?? emptyConversation();
  let changed = false;
  const runs = { ...current.runs };
  const order = current.order.slice();
  for (const run of runsOf(rebuilt)) {
    const have = runs[run.messageId];
    const take =
      have === undefined ||
      rebuilt.lastSeq > current.lastSeq ||
      (rebuilt.lastSeq === current.lastSeq && have.firstSeq !== run.firstSeq);
    if (!take) continue;
    const streaming = have?.status === 'running' && run.status === 'running' && run.answer === '' && run.reasoning === '';
    runs[run.messageId] = streaming ? { ...run, answer: have.answer, reasoning: have.reasoning } : run;
    if (have === undefined) order.push(run.messageId);
    changed = true;
  }
  if (!changed) return state;
  return withConversation(state, conversationId, {
    lastSeq: Math.max(current.lastSeq, rebuilt.lastSeq),
    runs,
    order,
    artifacts: rebuilt.lastSeq > current.lastSeq ? { ...current.artifacts, ...rebuilt.artifacts } : { ...rebuilt.artifacts, ...current.artifacts },
  });
}

/** The runs of a conversation in the order they started (none for undefined). */
export function runsOf(conv: ConversationRuns | undefined): RunState[] {
  if (!conv) return [];
  return conv.order.flatMap((id) => {
    const run = conv.runs[id];
    return run ? [run] : [];
  });
}

/** Reports whether a conversation has a run in progress according to the events applied. */
export function isRunning(conv: ConversationRuns | undefined): boolean {
  return runsOf(conv).some((r) => r.status === 'running');
}

/** Reports whether `t` ends a run. */
export function isTerminal(t: EventType): boolean {
  return t === 'complete' || t === 'cancelled' || t === 'error';
}

/**
 * The part of model text that is meant for people: in XML tool-call mode the model writes
 * `<tool_call>...</tool_call>` into its text; that markup, and a partial opening tag at the
 * end of a stream, is cut away.
 */
export function visibleText(text: string): string {
  const start = text.indexOf('<tool_call');
  let out = start >= 0 ? text.slice(0, start) : text;
  // A stream may end inside the opening tag ("<tool_", "<to"...).
  const lt = out.lastIndexOf('<');
  if (lt >= 0 && '<tool_call'.startsWith(out.slice(lt)) && out.length - lt < 10) out = out.slice(0, lt);
  return out.trimEnd();
}

/** A permission request still waiting for the user, with the run it belongs to. */
export interface PendingPermission extends PermissionAsk {
  conversationId: string;
  messageId: string;
}

/**
 * The permission requests still waiting for an answer (no permission_result yet) in runs
 * that are going, across every conversation: those of `firstConversation` first, then the
 * others; within a conversation in the order asked.
 */
export function pendingPermissions(state: RunsState, firstConversation?: string | null): PendingPermission[] {
  const out: PendingPermission[] = [];
  const ids = Object.keys(state.conversations);
  if (firstConversation && ids.includes(firstConversation)) {
    ids.splice(ids.indexOf(firstConversation), 1);
    ids.unshift(firstConversation);
  }
  for (const id of ids) {
    for (const run of runsOf(state.conversations[id])) {
      if (run.status !== 'running') continue;
      for (const ask of run.permissions) {
        if (ask.decision === '') out.push({ ...ask, conversationId: run.conversationId, messageId: run.messageId });
      }
    }
  }
  return out;
}

/**
 * A run the store says has ended although its events do not (an interrupted run has no
 * terminal event): every running step is marked stopped, queued messages dropped, pending
 * permission requests and compactions closed, and the status becomes cancelled. Runs that
 * are not running are returned as they are.
 */
export function endedRun(run: RunState): RunState {
  if (run.status !== 'running') return run;
  return {
    ...run,
    status: 'cancelled',
    steps: closeSteps(run.steps, 'stopped'),
    pendingInstructions: {},
    ...closeOpenWork(run),
  };
}

/**
 * The searches and fetches of a run: the terminal event's tally when the run has ended
 * with one (the engine counts every agent's calls), else counted from its tool steps so
 * far (web_search and web_fetch calls; failed ones are those whose step failed). Errors
 * come only from the tally.
 */
export function runWeb(run: Pick<RunState, 'web' | 'steps'>): WebTally {
  if (run.web !== null) return run.web;
  const tally: WebTally = { searches: 0, searches_failed: 0, fetches: 0, fetches_failed: 0, errors: [] };
  for (const s of run.steps) {
    if (s.kind !== 'tool') continue;
    if (s.tool === 'web_search') {
      tally.searches++;
      if (s.status === 'error') tally.searches_failed++;
    } else if (s.tool === 'web_fetch') {
      tally.fetches++;
      if (s.status === 'error') tally.fetches_failed++;
    }
  }
  return tally;
}
