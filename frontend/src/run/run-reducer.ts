// The reducer of a run's persisted events: a dispatch table from event type to a small
// per-type reducer (src/run/*-reducers.ts). applyEvent (src/run/events.ts) handles seq, chunks
// and the conversation around it.
import { toWebTally } from '../sources/citations';
import type { DataTerminal, EventType, RunEvent, RunFigures, RunState, WarningCode } from './event-types';
import { i18n } from '../i18n/i18n';
import { imageRefs } from './image-refs';
import { agentComplete, agentStart, llmComplete } from './agent-reducers';
import { compactionStart, compactionSummary } from './compaction-reducers';
import { permissionRequest, permissionResult, queuedMessage, userInput } from './input-reducers';
import { closeSteps, num, obj, str, usageOf } from './run-util';
import { artifactChanged, hookResult, subagentInstruction, toolComplete, toolStart } from './tool-reducers';

/** A reducer of one event type: returns the new run, never mutates `run`. */
export type RunReducer = (run: RunState, ev: RunEvent) => RunState;

/**
 * A run cut short (cancelled, failed, or ended by the store) leaves nothing open: queued
 * messages are dropped, pending permission requests cancelled, running compactions failed.
 */
export function closeOpenWork(run: RunState): Pick<RunState, 'queued' | 'permissions' | 'compactions'> {
  return {
    queued: run.queued.some((x) => x.status === 'queued')
      ? run.queued.map((x) => (x.status === 'queued' ? { ...x, status: 'dropped' as const } : x))
      : run.queued,
    permissions: run.permissions.some((x) => x.decision === '')
      ? run.permissions.map((x) => (x.decision === '' ? { ...x, decision: 'cancelled' as const } : x))
      : run.permissions,
    compactions: run.compactions.some((x) => x.status === 'running')
      ? run.compactions.map((x) => (x.status === 'running' ? { ...x, status: 'failed' as const, error: i18n.t('chat:run.endedFirst') } : x))
      : run.compactions,
  };
}

/** complete, cancelled and error: the run's status, answer, figures and tallies. */
function terminal(run: RunState, ev: RunEvent): RunState {
  const t = ev.data as Partial<DataTerminal>;
  const status = ev.type as 'complete' | 'cancelled' | 'error';
  const figures: RunFigures = {
    steps: typeof t.steps === 'number' ? t.steps : run.steps.filter((s) => s.kind === 'agent').length,
    usage: usageOf(t.usage),
    durationMs: num(t.duration_ms),
  };
  const response = str(t.response);
  return {
    ...run,
    status,
    answer: status === 'complete' && response !== '' ? response : run.answer,
    error: status === 'error' ? str(t.error) || i18n.t('chat:run.failed') : '',
    errorCode: status === 'error' ? str(t.code) : '',
    reason: str(t.reason),
    flushFailed: Array.isArray(t.flush_failed) ? t.flush_failed.filter((x) => typeof x === 'string') : [],
    web: toWebTally(t.web),
    cited: Array.isArray(t.cited) ? t.cited.filter((x): x is number => Number.isInteger(x) && x > 0) : [],
    figures,
    steps: closeSteps(run.steps, status === 'complete' ? 'done' : status === 'error' ? 'error' : 'stopped'),
    pendingInstructions: {},
    ...closeOpenWork(run),
  };
}

/** metadata: the question, model and parent, and the run's warnings (a skipped agent file). */
function metadata(run: RunState, ev: RunEvent): RunState {
  const m = ev.data;
  const all: unknown[] = Array.isArray(m.warnings) ? m.warnings : [];
  const coded = new Map<number, WarningCode>();
  for (const c of Array.isArray(m.warning_codes) ? (m.warning_codes as unknown[]) : []) {
    const o = obj(c);
    const params: Record<string, string> = {};
    for (const [k, v] of Object.entries(obj(o.params))) if (typeof v === 'string') params[k] = v;
    if (typeof o.index === 'number' && str(o.code) !== '') coded.set(o.index, { code: str(o.code), params });
  }
  const warnings: string[] = [];
  const warningCodes: WarningCode[] = [];
  all.forEach((w, i) => {
    if (typeof w !== 'string' || w === '') return;
    warnings.push(w);
    warningCodes.push(coded.get(i) ?? null);
  });
  const images = imageRefs(m.images);
  return { ...run, question: str(m.content), model: str(m.model), parentId: str(m.parent_id), startedAt: ev.created_at, warnings, warningCodes, images };
}

/**
 * suggestions: the follow-up questions (strings, blanks dropped, at most three) and the
 * title the model gave the conversation ("" when it kept its title).
 */
function suggestions(run: RunState, ev: RunEvent): RunState {
  const q = Array.isArray(ev.data.questions) ? ev.data.questions : [];
  const questions = q.filter((x): x is string => typeof x === 'string' && x.trim() !== '').slice(0, 3);
  return { ...run, suggestions: questions, suggestedTitle: str(ev.data.title) };
}

/** The reducer of each persisted event type; types not listed leave the run unchanged. */
const REDUCERS: Partial<Record<EventType, RunReducer>> = {
  metadata,
  agent_start: agentStart,
  llm_complete: llmComplete,
  agent_complete: agentComplete,
  tool_start: toolStart,
  tool_complete: toolComplete,
  subagent_instruction: subagentInstruction,
  hook_result: hookResult,
  compaction_start: compactionStart,
  compaction_summary: compactionSummary,
  queued_message: queuedMessage,
  user_input: userInput,
  permission_request: permissionRequest,
  permission_result: permissionResult,
  artifact_changed: artifactChanged,
  suggestions,
  complete: terminal,
  cancelled: terminal,
  error: terminal,
};

/** Applies one persisted event (not llm_chunk) to its run. */
export function applyPersisted(run: RunState, ev: RunEvent): RunState {
  const reduce = REDUCERS[ev.type];
  return reduce ? reduce(run, ev) : run;
}
