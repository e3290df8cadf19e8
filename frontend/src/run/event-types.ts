// The run events as the backend sends them (backend/events/events.go) and the state the
// reducers build from them: types only, shared by the reducers (events.ts, *-reducers.ts),
// the API modules and the views, so that none of them has to import another to name a shape.

import type { ImageRef } from './image-refs';

/**
 * The searches and fetches of a run (events.WebTally, the terminal event's `web`): counts
 * and up to three distinct error messages, each naming the provider or URL.
 */
export interface WebTally {
  searches: number;
  searches_failed: number;
  fetches: number;
  fetches_failed: number;
  errors: string[];
}

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
  | 'suggestions' // after a complete run: follow-up questions and the model's title (DataSuggestions)
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
  /** The pictures attached to the question (events.ImageRef); missing when none. */
  images?: ImageRef[];
  /** Codes of some warnings, by their index in `warnings`, for the UI to say them in its language. */
  warning_codes?: { index: number; code: string; params?: Record<string, string> }[];
}

/** A warning's code and values (events.WarningCode), which the UI translates; null: show its sentence. */
export type WarningCode = { code: string; params: Record<string, string> } | null;

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
  /** warnings' codes, one per warning (null: shown as its sentence); [] when none. */
  warningCodes: WarningCode[];
  /** The pictures attached to the question, from the metadata event; [] when none. */
  images: ImageRef[];
  /** Follow-up questions from the suggestions event after the run completed; [] when none. */
  suggestions: string[];
  /** The conversation's title the model wrote after this run (suggestions event); "" when none. */
  suggestedTitle: string;
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
