// Reducers of tool calls and what hangs off them: tool_start, tool_complete,
// subagent_instruction, hook_result and artifact_changed.
import type { DataHookResult, DataSubagentInstruction, DataToolComplete, DataToolStart, NoteStep, RunEvent, RunState, TextPart, ToolStep } from './events';
import { i18n } from '../i18n/i18n';
import { noteText } from './localize';
import { findLast, num, obj, ownerOf, placeOf, replaceStep, str } from './run-util';

/** tool_start: a tool call begins, nested under the agent that made it. */
export function toolStart(run: RunState, ev: RunEvent): RunState {
  const t = ev.data as Partial<DataToolStart>;
  const owner = ownerOf(run, ev.agent_name);
  const step: ToolStep = {
    kind: 'tool',
    key: `t${String(ev.seq)}-${String(run.steps.length)}`,
    callId: str(t.call_id),
    agent: owner,
    tool: str(t.tool),
    params: obj(t.params),
    ...placeOf(run, ev),
    status: 'running',
    result: '',
    error: '',
  };
  return { ...run, steps: [...run.steps, step] };
}

/** tool_complete: closes the call's step (by call id, else the latest running call of that tool). */
export function toolComplete(run: RunState, ev: RunEvent): RunState {
  const t = ev.data as Partial<DataToolComplete>;
  const callId = str(t.call_id);
  const tool = str(t.tool);
  const found = findLast(
    run.steps,
    (s): s is ToolStep => s.kind === 'tool' && (callId !== '' ? s.callId === callId : s.status === 'running' && s.tool === tool),
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
      error: ok ? '' : str(t.error) || i18n.t('chat:run.toolFailed'),
      durationMs: num(t.duration_ms),
    }),
  };
}

/**
 * subagent_instruction: remembers the task until the sub-agent's agent_start. An instance's
 * agent_start carries its own task (call_id set), so nothing needs remembering then.
 */
export function subagentInstruction(run: RunState, ev: RunEvent): RunState {
  const s = ev.data as Partial<DataSubagentInstruction>;
  const target = str(s.target);
  if (target === '' || str(s.call_id) !== '') return run;
  return { ...run, pendingInstructions: { ...run.pendingInstructions, [target]: str(s.instruction) } };
}

/** The line of a hook's result: "Hook links ran after web_fetch: declared 2 links or files". */
function hookParts(h: Partial<DataHookResult>): TextPart[] {
  // i18n-keys: chat:notes.hookRan chat:notes.hookRanAfterRun chat:notes.hookRanAfterTool chat:notes.hookDeclared
  // i18n-keys: chat:notes.hookFailed chat:notes.hookFailedAfterRun chat:notes.hookFailedAfterTool
  const name = str(h.hook) || 'hook';
  const tool = str(h.tool_name);
  const declared = num(h.artifacts);
  const verb = h.ok === true ? 'chat:notes.hookRan' : 'chat:notes.hookFailed';
  const when = str(h.event) === 'Stop' ? 'AfterRun' : tool !== '' ? 'AfterTool' : '';
  const parts: TextPart[] = [{ key: verb + when, params: when === 'AfterTool' ? { name, tool } : { name } }];
  if (h.ok === true && declared > 0) parts.push({ key: 'chat:notes.hookDeclared', params: { count: declared } });
  return parts;
}

/** hook_result: one of the user's hook commands ran (informational, never fails the run). */
export function hookResult(run: RunState, ev: RunEvent): RunState {
  const h = ev.data as Partial<DataHookResult>;
  const ok = h.ok === true;
  const note: NoteStep = {
    kind: 'note',
    key: `h${String(ev.seq)}`,
    ...noteText(...hookParts(h)),
    ...placeOf(run, ev),
    status: ok ? 'done' : 'error',
    detail: ok ? '' : str(h.error),
  };
  return { ...run, steps: [...run.steps, note] };
}

/** artifact_changed: the run changed an artifact (its id is listed once, in first-change order). */
export function artifactChanged(run: RunState, ev: RunEvent): RunState {
  const id = str(obj(ev.data.artifact).id);
  if (id === '' || run.artifactIds.includes(id)) return run;
  return { ...run, artifactIds: [...run.artifactIds, id] };
}
