// Run events (backend/events/events.go) and the pure reducer that turns them into the state the
// chat and artifact panels render. The UI is fed only by these events and the bound services
// (DESIGN.md, "Events"): nothing here talks to the backend.

import { toWebTally, type WebTally } from './citations';
import { clip, formatCount, shortUrl } from './format';

/** The event kinds of DESIGN.md "Events"; string values are a contract with the backend. */
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
}

/** Full state of one artifact as seen by the run (events.ArtifactSnapshot, seed 000). */
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
 * with the footer that lists them (issue 9).
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
  text: string;
  depth: number;
  status: StepStatus;
  /** Longer text the line expands to (a compaction summary or its error); "" when none. */
  detail?: string;
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

/** The agent that owns a run when no agent_start has named one yet. */
export const LEAD_AGENT = 'lead_agent';

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
  };
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const obj = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

function usageOf(v: unknown): Usage {
  const u = obj(v);
  return {
    prompt_tokens: num(u.prompt_tokens),
    completion_tokens: num(u.completion_tokens),
    total_tokens: num(u.total_tokens),
  };
}

function rootAgent(run: RunState): string {
  return run.agentStack[0] ?? LEAD_AGENT;
}

/** The last step matching `pred`, with its index. */
function findLast<T extends Step>(steps: readonly Step[], pred: (s: Step) => s is T): { i: number; step: T } | undefined {
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i];
    if (step !== undefined && pred(step)) return { i, step };
  }
  return undefined;
}

/** The latest agent step of `agent` if it is still running. */
function runningAgentStep(steps: readonly Step[], agent: string): { i: number; step: AgentStep } | undefined {
  const found = findLast(steps, (s): s is AgentStep => s.kind === 'agent' && s.agent === agent);
  return found?.step.status === 'running' ? found : undefined;
}

function replaceStep(steps: readonly Step[], i: number, step: Step): Step[] {
  const next = steps.slice();
  next[i] = step;
  return next;
}

function depthOf(run: RunState, agent: string): number {
  const i = run.agentStack.indexOf(agent);
  return i >= 0 ? i : run.agentStack.length;
}

/** Closes every running step with `status` (used by terminal events). */
function closeSteps(steps: Step[], status: StepStatus): Step[] {
  return steps.some((s) => s.status === 'running')
    ? steps.map((s) => (s.status === 'running' ? { ...s, status } : s))
    : steps;
}

function applyChunk(run: RunState, ev: RunEvent): RunState {
  const d = ev.data as DataLLMChunk;
  const content = str(d.content);
  const reasoning = str(d.reasoning);
  const agent = ev.agent_name || rootAgent(run);
  if (agent === rootAgent(run)) {
    const base = d.reset === true ? { answer: '', reasoning: '' } : run;
    return { ...run, answer: base.answer + content, reasoning: base.reasoning + reasoning };
  }
  const found = runningAgentStep(run.steps, agent);
  if (!found) return run;
  const { i, step } = found;
  const base = d.reset === true ? { text: '', reasoning: '' } : step;
  return {
    ...run,
    steps: replaceStep(run.steps, i, {
      ...step,
      text: base.text + content,
      reasoning: base.reasoning + reasoning,
    }),
  };
}

/**
 * Moves the root agent's current-call text into its step: the call ended in a tool call or
 * a delegation, so the text was a note on the way, not the answer.
 */
function archiveRootText(run: RunState, i: number, step: AgentStep, content: string, reasoning: string): RunState {
  return {
    ...run,
    answer: '',
    reasoning: '',
    steps: replaceStep(run.steps, i, {
      ...step,
      text: content || run.answer,
      reasoning: reasoning || run.reasoning,
      answered: false,
    }),
  };
}

const DECISIONS: readonly PermissionDecision[] = ['approve', 'deny', 'always_allow', 'timeout', 'cancelled'];

const DECISION_TEXT: Record<PermissionDecision, string> = {
  approve: 'allowed',
  always_allow: 'always allowed',
  deny: 'denied',
  timeout: 'not answered in time (denied)',
  cancelled: 'cancelled',
};

/** What a permission request is about, for one line: "web_fetch example.org/page". */
export function permissionSubject(ask: Pick<PermissionAsk, 'tool' | 'params'>): string {
  const p = ask.params;
  const v = ask.tool === 'web_fetch' ? p.url : ask.tool === 'web_search' ? p.query : (p.id ?? p.agent_name);
  const detail = typeof v === 'string' ? (ask.tool === 'web_search' ? `“${clip(v, 80)}”` : shortUrl(v, 70)) : '';
  return detail ? `${ask.tool} ${detail}` : ask.tool;
}

function applyPersisted(initial: RunState, ev: RunEvent): RunState {
  let run = initial;
  const d = ev.data;
  const agent = ev.agent_name || '';
  switch (ev.type) {
    case 'metadata': {
      const m = d as Partial<DataMetadata>;
      return { ...run, question: str(m.content), model: str(m.model), parentId: str(m.parent_id), startedAt: ev.created_at };
    }
    case 'agent_start': {
      const name = agent || LEAD_AGENT;
      const at = run.agentStack.indexOf(name);
      const agentStack = at >= 0 ? run.agentStack.slice(0, at + 1) : [...run.agentStack, name];
      const depth = agentStack.length - 1;
      const { [name]: pending = '', ...pendingInstructions } = run.pendingInstructions;
      const step: AgentStep = {
        kind: 'agent',
        key: `a${String(ev.seq)}-${String(run.steps.length)}`,
        agent: name,
        round: num((d as Partial<DataAgentStart>).round),
        depth,
        instruction: str((d as Partial<DataAgentStart>).instruction) || pending,
        status: 'running',
        text: '',
        reasoning: '',
        answered: false,
        routing: '',
        target: '',
      };
      const isRoot = depth === 0;
      // A new round closes the agent's previous one should its agent_complete be missing, and
      // a new round of the root agent makes any earlier "final" text a note on the way.
      const steps = run.steps.map((s) =>
        s.kind !== 'agent'
          ? s
          : s.agent === name && s.status === 'running'
            ? { ...s, status: 'done' as const }
            : isRoot && s.depth === 0 && s.answered
              ? { ...s, answered: false }
              : s,
      );
      return {
        ...run,
        agentStack,
        pendingInstructions,
        steps: [...steps, step],
        // A new LLM call of the root agent starts a new candidate answer.
        answer: isRoot ? '' : run.answer,
        reasoning: isRoot ? '' : run.reasoning,
      };
    }
    case 'llm_complete': {
      const c = d as Partial<DataLLMComplete>;
      const prompt = usageOf(c.usage).prompt_tokens;
      if ((agent || rootAgent(run)) === rootAgent(run) && prompt > 0) run = { ...run, contextTokens: prompt };
      const found = runningAgentStep(run.steps, agent || rootAgent(run));
      if (!found) return run;
      const { i, step } = found;
      const content = str(c.content);
      const reasoning = str(c.reasoning);
      const timed: AgentStep = {
        ...step,
        durationMs: num(c.duration_ms),
        tokens: usageOf(c.usage).total_tokens,
        text: content || step.text,
        reasoning: reasoning || step.reasoning,
      };
      if (step.depth !== 0) return { ...run, steps: replaceStep(run.steps, i, timed) };
      const next = { ...run, steps: replaceStep(run.steps, i, timed) };
      if (Array.isArray(c.tool_calls) && c.tool_calls.length > 0) {
        return archiveRootText(next, i, timed, content, reasoning);
      }
      return {
        ...next,
        steps: replaceStep(next.steps, i, { ...timed, text: content || run.answer, answered: true }),
        answer: content || run.answer,
        reasoning: reasoning || run.reasoning,
      };
    }
    case 'agent_complete': {
      const c = d as Partial<DataAgentComplete>;
      const found = runningAgentStep(run.steps, agent || rootAgent(run));
      if (!found) return run;
      const { i, step } = found;
      const routing = str(c.routing);
      const content = str(c.content);
      const closed = { status: 'done' as const, routing, target: str(c.target) };
      if (step.depth !== 0) {
        // A sub-agent that answers returns control to the agent that called it.
        const agentStack = routing === '' ? run.agentStack.slice(0, step.depth) : run.agentStack;
        return {
          ...run,
          agentStack,
          steps: replaceStep(run.steps, i, { ...step, ...closed, answered: routing === '', text: step.text || content }),
        };
      }
      if (routing !== '') {
        const next = archiveRootText(run, i, { ...step, ...closed }, step.text || content, step.reasoning);
        return next;
      }
      const answer = run.answer || content;
      return {
        ...run,
        answer,
        steps: replaceStep(run.steps, i, { ...step, ...closed, answered: true, text: step.text || answer }),
      };
    }
    case 'tool_start': {
      const t = d as Partial<DataToolStart>;
      const owner = agent || rootAgent(run);
      const step: ToolStep = {
        kind: 'tool',
        key: `t${String(ev.seq)}-${String(run.steps.length)}`,
        callId: str(t.call_id),
        agent: owner,
        tool: str(t.tool),
        params: obj(t.params),
        depth: depthOf(run, owner),
        status: 'running',
        result: '',
        error: '',
      };
      return { ...run, steps: [...run.steps, step] };
    }
    case 'tool_complete': {
      const t = d as Partial<DataToolComplete>;
      const callId = str(t.call_id);
      const tool = str(t.tool);
      const found = findLast(
        run.steps,
        (s): s is ToolStep =>
          s.kind === 'tool' && (callId !== '' ? s.callId === callId : s.status === 'running' && s.tool === tool),
      );
      if (!found) return run;
      const { i, step } = found;
      const ok = t.success === true;
      return {
        ...run,
        steps: replaceStep(run.steps, i, {
          ...step,
          status: ok ? 'done' : 'error',
          result: str(t.result),
          error: ok ? '' : str(t.error) || 'failed',
          durationMs: num(t.duration_ms),
        }),
      };
    }
    case 'subagent_instruction': {
      const s = d as Partial<DataSubagentInstruction>;
      const target = str(s.target);
      if (target === '') return run;
      return {
        ...run,
        pendingInstructions: { ...run.pendingInstructions, [target]: str(s.instruction) },
      };
    }
    case 'hook_result': {
      const h = d as Partial<DataHookResult>;
      const ok = h.ok === true;
      const name = str(h.hook) || 'hook';
      const tool = str(h.tool_name);
      const when = str(h.event) === 'Stop' ? ' after the run' : tool !== '' ? ` after ${tool}` : '';
      const declared = num(h.artifacts);
      const note: NoteStep = {
        kind: 'note',
        key: `h${String(ev.seq)}`,
        text: ok
          ? `Hook ${name} ran${when}${declared > 0 ? `: declared ${String(declared)} ${declared === 1 ? 'link or file' : 'links or files'}` : ''}`
          : `Hook ${name} failed${when}`,
        depth: depthOf(run, agent || rootAgent(run)),
        status: ok ? 'done' : 'error',
        detail: ok ? '' : str(h.error),
      };
      return { ...run, steps: [...run.steps, note] };
    }
    case 'compaction_start': {
      const c = d as Partial<DataCompactionStart>;
      const owner = agent || rootAgent(run);
      const mark: Compaction = {
        seq: ev.seq,
        agent: owner,
        status: 'running',
        tokensBefore: num(c.tokens_before),
        tokensAfter: 0,
        threshold: num(c.threshold),
        window: num(c.window),
        messages: num(c.messages),
        summary: '',
        kept: '',
        error: '',
        durationMs: 0,
      };
      return {
        ...run,
        compactions: [...run.compactions, mark],
        steps: [
          ...run.steps,
          {
            kind: 'note',
            key: `n${String(ev.seq)}`,
            text: owner === rootAgent(run) ? 'Compacting context' : `Compacting ${owner}'s context`,
            depth: depthOf(run, owner),
            status: 'running',
          },
        ],
      };
    }
    case 'compaction_summary': {
      const c = d as Partial<DataCompactionSummary>;
      const owner = agent || rootAgent(run);
      const ok = c.success === true;
      const at = run.compactions.findLastIndex((m) => m.agent === owner && m.status === 'running');
      const base: Compaction =
        run.compactions[at] ??
        ({ seq: ev.seq, agent: owner, status: 'running', tokensBefore: 0, tokensAfter: 0, threshold: 0, window: 0, messages: 0, summary: '', kept: '', error: '', durationMs: 0 } satisfies Compaction);
      const mark: Compaction = {
        ...base,
        status: ok ? 'done' : 'failed',
        tokensBefore: num(c.tokens_before) || base.tokensBefore,
        tokensAfter: ok ? num(c.tokens_after) : 0,
        summary: ok ? str(c.summary) : '',
        kept: ok ? str(c.kept) : '',
        error: ok ? '' : str(c.error) || 'the summary could not be made',
        durationMs: num(c.duration_ms),
      };
      const compactions = at >= 0 ? run.compactions.map((m, i) => (i === at ? mark : m)) : [...run.compactions, mark];
      const who = owner === rootAgent(run) ? '' : ` (${owner})`;
      const note: NoteStep = {
        kind: 'note',
        key: `n${String(mark.seq)}`,
        text: ok
          ? `Context compacted${who}: ${formatCount(mark.tokensBefore)} → ${formatCount(mark.tokensAfter)} tokens`
          : `Context compaction failed${who}; continuing with the full context`,
        depth: depthOf(run, owner),
        status: ok ? 'done' : 'error',
        detail: ok ? mark.summary : mark.error,
      };
      const found = findLast(run.steps, (s): s is NoteStep => s.kind === 'note' && s.key === note.key);
      const steps = found ? replaceStep(run.steps, found.i, note) : [...run.steps, note];
      const contextTokens = ok && owner === rootAgent(run) && mark.tokensAfter > 0 ? mark.tokensAfter : run.contextTokens;
      return { ...run, compactions, steps, contextTokens };
    }
    case 'queued_message': {
      const q = d as Partial<DataQueuedMessage>;
      const id = str(q.id);
      if (id === '' || run.queued.some((x) => x.id === id)) return run;
      return { ...run, queued: [...run.queued, { id, content: str(q.content), status: 'queued', seq: ev.seq }] };
    }
    case 'user_input': {
      const u = d as Partial<DataUserInput>;
      const ids = Array.isArray(u.ids) ? u.ids.filter((x): x is string => typeof x === 'string') : [];
      const content = str(u.content);
      // A message queued before this window saw its queued_message is known from user_input alone.
      const known = new Set(run.queued.map((x) => x.id));
      const added: QueuedInput[] = ids.filter((id) => !known.has(id)).map((id) => ({ id, content: ids.length === 1 ? content : '', status: 'delivered', seq: ev.seq }));
      return {
        ...run,
        queued: [...run.queued.map((x) => (ids.includes(x.id) ? { ...x, status: 'delivered' as const } : x)), ...added],
        steps: [
          ...run.steps,
          { kind: 'note', key: `n${String(ev.seq)}`, text: `Your added message reached ${rootAgent(run)}`, depth: 0, status: 'done', detail: content },
        ],
      };
    }
    case 'permission_request': {
      const r = d as Partial<DataPermissionRequest>;
      const requestId = str(r.request_id);
      if (requestId === '' || run.permissions.some((x) => x.requestId === requestId)) return run;
      const owner = agent || rootAgent(run);
      const ask: PermissionAsk = {
        requestId,
        callId: str(r.call_id),
        tool: str(r.tool),
        params: obj(r.params),
        timeoutMs: num(r.timeout_ms),
        requestedAt: ev.created_at,
        agent: owner,
        decision: '',
      };
      return {
        ...run,
        permissions: [...run.permissions, ask],
        steps: [
          ...run.steps,
          {
            kind: 'note',
            key: `p${requestId}`,
            text: `Waiting for your permission: ${permissionSubject(ask)}`,
            depth: depthOf(run, owner),
            status: 'running',
          },
        ],
      };
    }
    case 'permission_result': {
      const r = d as Partial<DataPermissionResult>;
      const requestId = str(r.request_id);
      const decision = DECISIONS.find((x) => x === r.decision) ?? 'deny';
      const at = run.permissions.findIndex((x) => x.requestId === requestId);
      if (at < 0) return run;
      const ask = { ...(run.permissions[at] as PermissionAsk), decision };
      const found = findLast(run.steps, (s): s is NoteStep => s.kind === 'note' && s.key === `p${requestId}`);
      const allowed = decision === 'approve' || decision === 'always_allow';
      const steps = found
        ? replaceStep(run.steps, found.i, {
            ...found.step,
            text: `${permissionSubject(ask)}: ${DECISION_TEXT[decision]}`,
            status: allowed ? 'done' : decision === 'cancelled' ? 'stopped' : 'error',
          })
        : run.steps;
      return { ...run, permissions: run.permissions.map((x, i) => (i === at ? ask : x)), steps };
    }
    case 'artifact_changed': {
      const id = str(obj(d.artifact).id);
      if (id === '' || run.artifactIds.includes(id)) return run;
      return { ...run, artifactIds: [...run.artifactIds, id] };
    }
    case 'complete':
    case 'cancelled':
    case 'error': {
      const t = d as Partial<DataTerminal>;
      const status: RunStatus = ev.type;
      const agentSteps = run.steps.filter((s) => s.kind === 'agent').length;
      const figures: RunFigures = {
        steps: typeof t.steps === 'number' ? t.steps : agentSteps,
        usage: usageOf(t.usage),
        durationMs: num(t.duration_ms),
      };
      const response = str(t.response);
      return {
        ...run,
        status,
        answer: status === 'complete' && response !== '' ? response : run.answer,
        error: status === 'error' ? str(t.error) || 'The run failed.' : '',
        errorCode: status === 'error' ? str(t.code) : '',
        reason: str(t.reason),
        flushFailed: Array.isArray(t.flush_failed) ? t.flush_failed.filter((x) => typeof x === 'string') : [],
        web: toWebTally(t.web),
        cited: Array.isArray(t.cited) ? t.cited.filter((x): x is number => Number.isInteger(x) && x > 0) : [],
        figures,
        steps: closeSteps(run.steps, status === 'complete' ? 'done' : status === 'error' ? 'error' : 'stopped'),
        pendingInstructions: {},
        queued: run.queued.some((x) => x.status === 'queued')
          ? run.queued.map((x) => (x.status === 'queued' ? { ...x, status: 'dropped' as const } : x))
          : run.queued,
        permissions: run.permissions.some((x) => x.decision === '')
          ? run.permissions.map((x) => (x.decision === '' ? { ...x, decision: 'cancelled' as const } : x))
          : run.permissions,
        compactions: run.compactions.some((x) => x.status === 'running')
          ? run.compactions.map((x) => (x.status === 'running' ? { ...x, status: 'failed' as const, error: 'the run ended first' } : x))
          : run.compactions,
      };
    }
    default:
      return run;
  }
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
 * Forgets the live state of one artifact of a conversation (the user deleted it: issue 8).
 * The runs that changed it keep its id in their history. Returns `state` itself when there
 * was nothing to forget.
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
    queued: run.queued.map((x) => (x.status === 'queued' ? { ...x, status: 'dropped' as const } : x)),
    permissions: run.permissions.map((x) => (x.decision === '' ? { ...x, decision: 'cancelled' as const } : x)),
    compactions: run.compactions.map((x) => (x.status === 'running' ? { ...x, status: 'failed' as const, error: 'the run ended first' } : x)),
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
