// The activity flow's layout of sub-agent instances: every call_subagent the lead made gets a
// lane holding the steps of the instance it started (their events carry its call id as
// data.instance), and the lanes of calls made together sit side by side. Pure functions.
import type { Step, ToolStep } from './events';

/** One sub-agent instance: the lead's call_subagent step and the instance's own steps, in order. */
export interface Lane {
  call: ToolStep;
  steps: Step[];
}

/** One entry of the flow: a plain step, or the lanes of consecutive call_subagent calls. */
export type FlowItem = { kind: 'step'; step: Step } | { kind: 'lanes'; key: string; lanes: Lane[] };

/**
 * Lays out a run's steps: steps of no instance stay in order; each call_subagent step whose
 * call id names an instance becomes a lane with that instance's steps, and consecutive such
 * calls (the calls of one reply, taken up together) form one group of lanes. Steps of an
 * instance whose call step is missing stay plain steps where they are. Runs recorded before
 * instances existed have none, so their flow is unchanged.
 */
export function flowItems(steps: readonly Step[]): FlowItem[] {
  const byInstance = new Map<string, Step[]>();
  for (const s of steps) {
    const id = s.instance ?? '';
    if (id === '') continue;
    const lane = byInstance.get(id);
    if (lane) lane.push(s);
    else byInstance.set(id, [s]);
  }
  const laneIds = new Set<string>();
  for (const s of steps) {
    if (isLaneCall(s) && byInstance.has(s.callId)) laneIds.add(s.callId);
  }
  const out: FlowItem[] = [];
  for (const s of steps) {
    const id = s.instance ?? '';
    if (id !== '' && laneIds.has(id)) continue; // shown in its lane
    if (isLaneCall(s) && laneIds.has(s.callId)) {
      const lane: Lane = { call: s, steps: byInstance.get(s.callId) ?? [] };
      const last = out[out.length - 1];
      if (last?.kind === 'lanes') last.lanes.push(lane);
      else out.push({ kind: 'lanes', key: `lanes-${s.key}`, lanes: [lane] });
      continue;
    }
    out.push({ kind: 'step', step: s });
  }
  return out;
}

/** Whether s is a lead's call_subagent step (one that may start an instance). */
function isLaneCall(s: Step): s is ToolStep {
  return s.kind === 'tool' && s.tool === 'call_subagent' && (s.instance ?? '') === '' && s.callId !== '';
}
