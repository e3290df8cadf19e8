// Reducers of tool calls and what hangs off them: tool_start, tool_complete,
// subagent_instruction, hook_result and artifact_changed.
import type { DataHookResult, DataSubagentInstruction, DataToolComplete, DataToolStart, NoteStep, RunEvent, RunState, ToolStep } from '../events';
import { i18n } from '../i18n';
import { depthOf, findLast, num, obj, ownerOf, replaceStep, str } from './run-util';

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
    depth: depthOf(run, owner),
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

/** subagent_instruction: remembers the task until the sub-agent's agent_start. */
export function subagentInstruction(run: RunState, ev: RunEvent): RunState {
  const s = ev.data as Partial<DataSubagentInstruction>;
  const target = str(s.target);
  if (target === '') return run;
  return { ...run, pendingInstructions: { ...run.pendingInstructions, [target]: str(s.instruction) } };
}

/** The line of a hook's result: "Hook links ran after web_fetch: declared 2 links or files". */
function hookText(h: Partial<DataHookResult>): string {
  const name = str(h.hook) || 'hook';
  const tool = str(h.tool_name);
  const declared = num(h.artifacts);
  if (h.ok !== true) {
    if (str(h.event) === 'Stop') return i18n.t('chat:notes.hookFailedAfterRun', { name });
    return tool !== '' ? i18n.t('chat:notes.hookFailedAfterTool', { name, tool }) : i18n.t('chat:notes.hookFailed', { name });
  }
  const ran =
    str(h.event) === 'Stop'
      ? i18n.t('chat:notes.hookRanAfterRun', { name })
      : tool !== ''
        ? i18n.t('chat:notes.hookRanAfterTool', { name, tool })
        : i18n.t('chat:notes.hookRan', { name });
  return declared > 0 ? ran + i18n.t('chat:notes.hookDeclared', { count: declared }) : ran;
}

/** hook_result: one of the user's hook commands ran (informational, never fails the run). */
export function hookResult(run: RunState, ev: RunEvent): RunState {
  const h = ev.data as Partial<DataHookResult>;
  const ok = h.ok === true;
  const note: NoteStep = {
    kind: 'note',
    key: `h${String(ev.seq)}`,
    text: hookText(h),
    depth: depthOf(run, ownerOf(run, ev.agent_name)),
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
