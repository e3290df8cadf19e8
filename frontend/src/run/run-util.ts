// Small helpers shared by the run reducers (src/run/*-reducers.ts): lenient readers of event
// data and lookups in a run's steps. Pure functions; nothing here renders or talks to the backend.
import type { AgentStep, RunEvent, RunState, Step, StepStatus, Usage } from './events';

/** The agent that owns a run when no agent_start has named one yet. */
export const LEAD_AGENT = 'lead_agent';

/** `v` when it is a string, else ''. */
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** `v` when it is a finite number, else 0. */
export const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** `v` when it is a plain object, else {}. */
export const obj = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** Token usage read from event data (missing figures are 0). */
export function usageOf(v: unknown): Usage {
  const u = obj(v);
  return {
    prompt_tokens: num(u.prompt_tokens),
    completion_tokens: num(u.completion_tokens),
    total_tokens: num(u.total_tokens),
  };
}

/** The run's root agent: the first agent started, or the lead before any started. */
export function rootAgent(run: RunState): string {
  return run.agentStack[0] ?? LEAD_AGENT;
}

/** The agent an event belongs to: its agent_name, else the run's root agent. */
export function ownerOf(run: RunState, agent: string | undefined): string {
  return agent || rootAgent(run);
}

/** The last step matching `pred`, with its index. */
export function findLast<T extends Step>(steps: readonly Step[], pred: (s: Step) => s is T): { i: number; step: T } | undefined {
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i];
    if (step !== undefined && pred(step)) return { i, step };
  }
  return undefined;
}

/**
 * The sub-agent instance an event belongs to: its data's `instance` (the call id of the lead's
 * call_subagent that started it), '' for the lead's events and for events recorded before
 * instances existed.
 */
export function instanceOf(ev: RunEvent): string {
  return str(ev.data.instance);
}

/** The latest agent step of `agent` (in `instance`, '' for none) if it is still running. */
export function runningAgentStep(steps: readonly Step[], agent: string, instance = ''): { i: number; step: AgentStep } | undefined {
  const found = findLast(steps, (s): s is AgentStep => s.kind === 'agent' && s.agent === agent && (s.instance ?? '') === instance);
  return found?.step.status === 'running' ? found : undefined;
}

/**
 * The nesting depth and lane of a new step for event `ev`: a sub-agent instance's steps sit
 * one below the lead, in the instance's lane; other steps nest by the agent stack.
 */
export function placeOf(run: RunState, ev: RunEvent): { depth: number; instance?: string } {
  const instance = instanceOf(ev);
  return instance !== '' ? { depth: 1, instance } : { depth: depthOf(run, ownerOf(run, ev.agent_name)) };
}

/** A copy of `steps` with step `i` replaced. */
export function replaceStep(steps: readonly Step[], i: number, step: Step): Step[] {
  const next = steps.slice();
  next[i] = step;
  return next;
}

/** The nesting depth of `agent`'s steps: its place in the agent stack, or one below the top. */
export function depthOf(run: RunState, agent: string): number {
  const i = run.agentStack.indexOf(agent);
  return i >= 0 ? i : run.agentStack.length;
}

/** Closes every running step with `status` (used by terminal events). */
export function closeSteps(steps: Step[], status: StepStatus): Step[] {
  return steps.some((s) => s.status === 'running')
    ? steps.map((s) => (s.status === 'running' ? { ...s, status } : s))
    : steps;
}
