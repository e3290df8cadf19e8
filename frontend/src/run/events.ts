// Run events (backend/events/events.go) and the pure reducer that turns them into the state
// the chat and artifact panels render. The UI is fed only by these events and the bound
// services (docs/ARCHITECTURE.md, "Contracts other code relies on"): nothing here talks to
// the backend.

import { applyChunk } from './agent-reducers';
import { applyPersisted, closeOpenWork } from './run-reducer';
import { closeSteps, num, obj, str } from './run-util';
import type { WebTally } from '../sources/citations';

export { LEAD_AGENT } from './run-util';
export { permissionSubject } from './input-reducers';

/**
 * The event kinds (docs/ARCHITECTURE.md, "Contracts other code relies on"); string values
 * are a contract with the backend.
 */
export type EventType =
  | 'metadata'
  | 'agent_start'
  | 'llm_chunk'
  | 'llm_complete'
  | 'agent_complete'
  | 'tool_start'
  | 'tool_complete'
  | 'subagent_instruction'
  | 'permission_request'
  | 'permission_result'
  | 'user_input'
  | 'queued_message'
  | 'compaction_start'
  | 'compaction_summary'
  | 'artifact_changed'
  | 'hook_result'
  | 'source_added'
  | 'index_progress' // an indexing pass of the conversation's local files (no message, never stored)
  | 'feedback' // the user's rating of a finished run, given after it (MessageView.feedback shows it)
  | 'complete'
  | 'cancelled'
  | 'error';

/**
 * One record of a run (events.Event). `seq` increases by one per persisted event within a
 * conversation; llm_chunk events carry the seq of the last persisted event and are never stored.
 * `created_at` is an RFC 3339 time. `data` is the JSON object whose shape depends on `type`.
 */
export interface RunEvent {
  type: EventType;
  conversation_id: string;
  message_id: string;
  seq: number;
  agent_name?: string;
  created_at: string;
  data: Record<string, unknown>;
}

/** Token usage of one LLM call or of a whole run (events.Usage). */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** data of metadata, the first event of every run (events.DataMetadata). */
export interface DataMetadata {
  parent_id?: string;
  content: string;
  model: string;
  tool_call_mode: string;
  /** Problems that do not stop the run, one sentence each (a skipped agent file); missing when none. */
  warnings?: string[];
}

/** data of agent_start; `instruction` is set for sub-agents (events.DataAgentStart). */
export interface DataAgentStart {
  instruction?: string;
  round: number;
}

/**
 * data of llm_chunk: one streamed delta of answer or reasoning text (events.DataLLMChunk).
 * `reset` true means: discard the partial text of the current LLM call (a retry restarts it),
 * then apply this chunk's deltas.
 */
export interface DataLLMChunk {
  content?: string;
  reasoning?: string;
  reset?: boolean;
}

/** A parsed tool call as recorded in events (events.ToolCall); `params` is a JSON object. */
export interface ToolCall {
  id: string;
  name: string;
  params: Record<string, unknown>;
}

/** data of llm_complete: the whole text of one LLM call; duration in ms (events.DataLLMComplete). */
export interface DataLLMComplete {
  content: string;
  reasoning?: string;
  tool_calls?: ToolCall[];
  usage: Usage;
  model: string;
  duration_ms: number;
}

/** data of agent_complete; routing is "tool_call", "subagent" or "" when the agent finished. */
export interface DataAgentComplete {
  content: string;
  routing?: string;
  target?: string;
}

/** data of tool_start (events.DataToolStart). */
export interface DataToolStart {
  call_id: string;
  tool: string;
  params: Record<string, unknown>;
}

/** data of tool_complete; `result` is the text returned to the model (events.DataToolComplete). */
export interface DataToolComplete {
  call_id: string;
  tool: string;
  success: boolean;
  result?: string;
  error?: string;
  duration_ms: number;
}

/** data of subagent_instruction, emitted when the lead routes work to a sub-agent. */
export interface DataSubagentInstruction {
  target: string;
  instruction: string;
  /** The lead's call_subagent call id: the instance id every event of the sub-agent carries. */
  call_id?: string;
}

/** Full state of one artifact as seen by the run (events.ArtifactSnapshot). */
export interface ArtifactSnapshot {
  id: string;
  content_type: string;
  title: string;
  content: string;
  version: number;
  source: string;
  update_type: string;
}

/**
 * data of the terminal events complete, cancelled and error (events.DataTerminal). `web`
 * tallies the run's searches and fetches (absent when it made none); `cited` lists the
 * source numbers the answer cites, in first-use order; a complete run's `response` ends
 * with the footer that lists them.
 */
export interface DataTerminal {
  response?: string;
  error?: string;
  /** The error's stable code (an app.AppError code; error events only, "" or absent when unknown). */
  code?: string;
  reason?: string;
  flush_failed?: string[];
  usage?: Usage;
  duration_ms?: number;
  steps?: number;
  web?: WebTally;
  cited?: number[];
  /**
   * Set on a complete run whose final answer the model did not finish: "length" (its
   * output token limit) or "content_filter" (the provider's filter); `response` then ends
   * with a note saying so.
   */
  cut?: 'length' | 'content_filter';
}

/** data of compaction_start: the agent's context passed `threshold` of a `window`-token context. */
export interface DataCompactionStart {
  tokens_before: number;
  threshold: number;
  window: number;
  messages: number;
}

/**
 * Data of hook_result (events.DataHookResult): one of the user's hook commands ran on
 * `event` ("PostToolUse" after `tool_name`, "Stop" after the run's end). `ok` false: it
 * could not start, failed, timed out or printed something unreadable (`error` says which);
 * `artifacts` links and files it declared. Informational: a hook never fails the run.
 */
export interface DataHookResult {
  hook: string;
  event: string;
  ok: boolean;
  error?: string;
  artifacts: number;
  dropped?: number;
  tool_name?: string;
  tool_call_id?: string;
  duration_ms: number;
}

/**
 * data of compaction_summary (events.DataCompactionSummary). When `success`, `summary`
 * replaces what the agent saw before; a failed one (`error` set) is ignored as a boundary.
 */
export interface DataCompactionSummary {
  success: boolean;
  summary?: string;
  kept?: string;
  error?: string;
  tokens_before: number;
  tokens_after?: number;
  usage?: Usage;
  duration_ms: number;
}

/** data of queued_message: the user sent `content` during the run (events.DataQueuedMessage). */
export interface DataQueuedMessage {
  id: string;
  content: string;
}

/** data of user_input: queued messages (by id) handed to the lead at a round's start. */
export interface DataUserInput {
  ids: string[];
  content: string;
}

/** data of permission_request: a confirm tool waits up to `timeout_ms` for the user. */
export interface DataPermissionRequest {
  request_id: string;
  call_id: string;
  tool: string;
  params?: Record<string, unknown>;
  timeout_ms: number;
}

/** data of permission_result: what was decided for a request. */
export interface DataPermissionResult {
  request_id: string;
  tool: string;
  decision: PermissionDecision;
}

/** Terminal state of a run; "running" until complete, cancelled or error arrives. */
export type RunStatus = 'running' | 'complete' | 'cancelled' | 'error';

/** State of one line of the activity flow. "stopped" marks work cut short by cancel. */
export type StepStatus = 'running' | 'done' | 'error' | 'stopped';

/** One round of one agent: agent_start .. agent_complete (one LLM call). */
export interface AgentStep {
  kind: 'agent';
  /** Stable React key, unique within the run. */
  key: string;
  agent: string;
  /** The agent's round within its activation, from 0 (DataAgentStart.round). */
  round: number;
  /** Nesting level: 0 for the root (lead) agent, 1 for its sub-agents, and so on. */
  depth: number;
  /**
   * The sub-agent instance the round belongs to: the call id of the lead's call_subagent
   * that started it (the events' data.instance); "" or absent for the lead, and for events
   * recorded before instances existed. Instances of one reply run at once, as lanes.
   */
  instance?: string;
  /** The task a sub-agent was given (round 0 only; "" for the lead). */
  instruction: string;
  status: StepStatus;
  /** What the agent wrote in this round (partial while streaming). */
  text: string;
  reasoning: string;
  /**
   * True when the agent finished in this round without a tool call: for the root agent the
   * run's answer (shown above the flow, not in it), for a sub-agent its report to the caller.
   */
  answered: boolean;
  routing: string;
  target: string;
  durationMs?: number;
  tokens?: number;
}

/** One tool call: tool_start .. tool_complete. */
export interface ToolStep {
  kind: 'tool';
  key: string;
  callId: string;
  agent: string;
  tool: string;
  params: Record<string, unknown>;
  /** The depth of the agent that made the call; a sub-agent's steps nest under call_subagent. */
  depth: number;
  /** The sub-agent instance that made the call (see AgentStep.instance). */
  instance?: string;
  status: StepStatus;
  result: string;
  error: string;
  durationMs?: number;
}

/**
 * A run-level notice in the flow: a context compaction, a permission request and its
 * decision, or a message the user added during the run.
 */
export interface NoteStep {
  kind: 'note';
  key: string;
  /** The line in the UI's language when the event was applied (see `parts`). */
  text: string;
  /**
   * The line as catalogue keys with their values, joined when shown, so it follows a later
   * change of language (src/run/localize.ts); absent for a line with no catalogue text.
   */
  parts?: TextPart[];
  depth: number;
  /** The sub-agent instance the note belongs to (see AgentStep.instance). */
  instance?: string;
  status: StepStatus;
  /** Longer text the line expands to (a compaction summary or its error); "" when none. */
  detail?: string;
}

/** One piece of a translated line: a catalogue key ("ns:key") and the values it interpolates. */
export interface TextPart {
  key: string;
  params?: Record<string, string | number>;
}

/** One line of the activity flow. */
export type Step = AgentStep | ToolStep | NoteStep;

/** Figures of a finished run, from the terminal event's data. Duration in ms. */
export interface RunFigures {
  steps: number;
  usage: Usage;
  durationMs: number;
}

/** A message the user sent while the run was going (queued_message), and what became of it. */
export interface QueuedInput {
  /** The queued message's id (DataQueuedMessage.id). */
  id: string;
  content: string;
  /**
   * queued: waiting for the lead's next round; delivered: handed to the lead (user_input);
   * dropped: the run ended before the lead took it.
   */
  status: 'queued' | 'delivered' | 'dropped';
  /** Seq of the queued_message event. */
  seq: number;
}

/** The decisions a permission_result can carry (events.Decision*). */
export type PermissionDecision = 'approve' | 'deny' | 'always_allow' | 'timeout' | 'cancelled';

/** A confirm tool's call waiting for, or decided by, the user (permission_request / _result). */
export interface PermissionAsk {
  requestId: string;
  callId: string;
  tool: string;
  /** The tool call's parameters (url for web_fetch, query for web_search ...). */
  params: Record<string, unknown>;
  /** How long the engine waits, in ms, before it counts the request as denied. */
  timeoutMs: number;
  /** created_at of the permission_request event (RFC 3339). */
  requestedAt: string;
  agent: string;
  /** "" while pending. */
  decision: PermissionDecision | '';
}

/** One context compaction (compaction_start .. compaction_summary). Token counts are estimates. */
export interface Compaction {
  /** Seq of compaction_start (or of the summary when its start was not seen). */
  seq: number;
  agent: string;
  /** The sub-agent instance compacted (see AgentStep.instance); absent for the lead. */
  instance?: string;
  /** running until compaction_summary; failed when the summary was not made (ignored as a boundary). */
  status: 'running' | 'done' | 'failed';
  tokensBefore: number;
  /** 0 unless done. */
  tokensAfter: number;
  threshold: number;
  window: number;
  /** How many messages the agent's context held before. */
  messages: number;
  /** The 7-section summary (done only). */
  summary: string;
  /** The user message kept verbatim after the summary ("" when none). */
  kept: string;
  error: string;
  durationMs: number;
}

/** Everything the UI shows about one run (one user message and its answer). */
export interface RunState {
  conversationId: string;
  messageId: string;
  /** The parent message from metadata ("" for a root, or before metadata arrived). */
  parentId: string;
  question: string;
  model: string;
  status: RunStatus;
  /** The lead agent's answer: the text of its current LLM call while running, the final response after. */
  answer: string;
  /** Reasoning text of the lead agent's current (or final) LLM call. */
  reasoning: string;
  steps: Step[];
  /** Ids of artifacts this run changed, in first-change order. */
  artifactIds: string[];
  error: string;
  /** The failed run's error code (DataTerminal.code, an app.AppError code; "" when none). */
  errorCode: string;
  reason: string;
  flushFailed: string[];
  figures?: RunFigures;
  startedAt: string;
  /** Seq of the first persisted event applied to this run (0 when only chunks arrived). */
  firstSeq: number;
  /** Agents currently nested (root first); decides the depth of new steps. */
  agentStack: string[];
  /** Instructions announced by subagent_instruction, keyed by target agent, until it starts. */
  pendingInstructions: Record<string, string>;
  /** Messages the user sent during the run, in the order queued. */
  queued: QueuedInput[];
  /** Permission requests in the order asked; pending ones have decision "". */
  permissions: PermissionAsk[];
  /** Context compactions in the order started. */
  compactions: Compaction[];
  /**
   * The lead agent's context size in tokens: prompt_tokens of its latest LLM call, or the
   * estimate after its latest successful compaction, whichever came last; 0 when unknown.
   */
  contextTokens: number;
  /** The run's searches and fetches from its terminal event (null before it, or when it made none). */
  web: WebTally | null;
  /** The source numbers the answer cites, from the terminal event ([] before it). */
  cited: number[];
  /** Warnings from the metadata event (a skipped agent file: "reviewer.md:3: …"); [] when none. */
  warnings: string[];
}

/** Live state of one artifact from artifact_changed events. */
export interface LiveArtifact {
  snapshot: ArtifactSnapshot;
  /** True while the run holding the change has not flushed it (or the flush failed). */
  unsaved: boolean;
  messageId: string;
}

/** Run state of one conversation. */
export interface ConversationRuns {
  /** Highest persisted seq applied; events with seq <= lastSeq are duplicates. */
  lastSeq: number;
  runs: Record<string, RunState>;
  /** Message ids of runs in the order they started. */
  order: string[];
  artifacts: Record<string, LiveArtifact>;
}

/** Run state of every conversation seen, keyed by conversation id. */
export interface RunsState {
  conversations: Record<string, ConversationRuns>;
}

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
    // A finished run takes no more events but its Stop hooks' results (hook_result comes
    // after the terminal event); otherwise only the seq advances.
    if (ev.type === 'hook_result') return withRun(state, { ...conv, lastSeq: ev.seq }, applyPersisted(existing, ev));
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

/**
 * Parses one event payload as delivered by the Wails runtime (an object) or by browser mode
 * (possibly a JSON string). Returns null for anything that is not an event object with a
 * string type, string ids and a numeric seq. A missing or non-object data becomes {}.
 */
export function parseEvent(payload: unknown): RunEvent | null {
  let v: unknown = payload;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return null;
    }
  }
  const o = obj(v);
  if (typeof o.type !== 'string' || typeof o.conversation_id !== 'string' || typeof o.seq !== 'number') {
    return null;
  }
  let data: unknown = o.data;
  if (typeof data === 'string') {
    try {
      data = JSON.parse(data);
    } catch {
      data = {};
    }
  }
  return {
    type: o.type as EventType,
    conversation_id: o.conversation_id,
    message_id: str(o.message_id),
    seq: o.seq,
    agent_name: str(o.agent_name) || undefined,
    created_at: str(o.created_at),
    data: obj(data),
  };
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
