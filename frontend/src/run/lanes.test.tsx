// @vitest-environment jsdom
// Sub-agent instances that run at once (tool calls of one reply): each instance's events carry
// its call id as data.instance; the run keeps their rounds apart, streams each into its own
// step, and the activity shows them as parallel lanes under their call_subagent lines.
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { flowItems } from './lanes';
import { ActivityFlow } from '../chat/ActivityFlow';
import { applyEvents, emptyRunsState, type AgentStep, type EventType, type RunEvent, type RunState } from './events';
import { i18n } from '../i18n/i18n';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/** Events of one run with increasing seq (chunks keep the last seq, as the engine does). */
function script() {
  let seq = 0;
  const events: RunEvent[] = [];
  const add = (type: EventType, agent: string, data: Record<string, unknown> = {}) => {
    if (type !== 'llm_chunk') seq++;
    events.push({ type, conversation_id: 'c1', message_id: 'm1', seq, agent_name: agent, created_at: '2026-01-02T03:04:05Z', data });
  };
  return { events, add };
}

/** A lead that sends two search_agent instances and a crawl_agent at once; `end` adds the ends. */
function parallelRun(end: boolean): RunState {
  const { events, add } = script();
  add('metadata', '', { content: 'Q' });
  add('agent_start', 'lead_agent', { round: 0 });
  add('llm_complete', 'lead_agent', { content: '', tool_calls: [{ id: 's1' }, { id: 's2' }, { id: 'c1' }] });
  add('agent_complete', 'lead_agent', { content: '', routing: 'subagent', target: 'search_agent' });
  for (const [id, agent, task] of [
    ['s1', 'search_agent', 'find A'],
    ['s2', 'search_agent', 'find B'],
    ['c1', 'crawl_agent', 'read C'],
  ] as const) {
    add('tool_start', 'lead_agent', { call_id: id, tool: 'call_subagent', params: { agent_name: agent, instruction: task } });
  }
  for (const [id, agent, task] of [
    ['s1', 'search_agent', 'find A'],
    ['s2', 'search_agent', 'find B'],
    ['c1', 'crawl_agent', 'read C'],
  ] as const) {
    add('subagent_instruction', 'lead_agent', { target: agent, instruction: task, call_id: id });
    add('agent_start', agent, { instance: id, round: 0, instruction: task });
  }
  // Interleaved streams: each chunk goes to its own instance.
  add('llm_chunk', 'search_agent', { instance: 's2', content: 'B is ' });
  add('llm_chunk', 'search_agent', { instance: 's1', content: 'A is ' });
  add('llm_chunk', 'search_agent', { instance: 's2', content: 'blue' });
  add('llm_chunk', 'crawl_agent', { instance: 'c1', content: 'C says' });
  add('llm_chunk', 'search_agent', { instance: 's1', content: 'red' });
  if (end) {
    add('llm_complete', 'search_agent', { instance: 's2', content: 'B is blue' });
    add('agent_complete', 'search_agent', { instance: 's2', content: 'B is blue' });
    add('tool_complete', 'lead_agent', { call_id: 's2', tool: 'call_subagent', success: true, result: 'B is blue' });
  }
  const runs = applyEvents(emptyRunsState(), events);
  const r = runs.conversations.c1?.runs.m1;
  if (!r) throw new Error('no run');
  return r;
}

const rounds = (r: RunState) => r.steps.filter((s): s is AgentStep => s.kind === 'agent' && s.agent !== 'lead_agent');

describe('sub-agent instances in the run state', () => {
  it('keeps each instance its own round, streams into it, and leaves the others running when one ends', () => {
    let r = parallelRun(false);
    expect(rounds(r).map((s) => [s.instance, s.status, s.text, s.depth])).toEqual([
      ['s1', 'running', 'A is red', 1],
      ['s2', 'running', 'B is blue', 1],
      ['c1', 'running', 'C says', 1],
    ]);
    expect(r.agentStack).toEqual(['lead_agent']);
    r = parallelRun(true);
    expect(rounds(r).map((s) => [s.instance, s.status, s.answered])).toEqual([
      ['s1', 'running', false],
      ['s2', 'done', true],
      ['c1', 'running', false],
    ]);
    expect(r.answer).toBe('');
  });

  it('lays the instances out as one group of lanes, each under its call', () => {
    const items = flowItems(parallelRun(false).steps);
    const lanes = items.find((x) => x.kind === 'lanes');
    expect(lanes?.kind === 'lanes' && lanes.lanes.map((l) => [l.call.callId, l.steps.map((s) => s.instance)])).toEqual([
      ['s1', ['s1']],
      ['s2', ['s2']],
      ['c1', ['c1']],
    ]);
    expect(items.flatMap((x) => (x.kind === 'step' ? [x.step.kind] : []))).toEqual(['agent']);
  });

  it('leaves a run recorded before instances as it was: no lanes', () => {
    const { events, add } = script();
    add('metadata', '', { content: 'Q' });
    add('agent_start', 'lead_agent', { round: 0 });
    add('tool_start', 'lead_agent', { call_id: 'x', tool: 'call_subagent', params: { agent_name: 'search_agent' } });
    add('subagent_instruction', 'lead_agent', { target: 'search_agent', instruction: 'find' });
    add('agent_start', 'search_agent', { round: 0 });
    const r = applyEvents(emptyRunsState(), events).conversations.c1?.runs.m1;
    expect(r && flowItems(r.steps).every((x) => x.kind === 'step')).toBe(true);
    expect(r && rounds(r)[0]?.instruction).toBe('find');
  });
});

let root: Root | null = null;
let host: HTMLDivElement;

beforeEach(async () => {
  host = document.createElement('div');
  document.body.append(host);
  await i18n.changeLanguage('en');
});

afterEach(() => {
  act(() => root?.unmount());
  root = null;
  host.remove();
});

describe('the activity flow', () => {
  it('shows parallel lanes, one per instance, each with its streaming text', async () => {
    await act(async () => {
      root ??= createRoot(host);
      root.render(<ActivityFlow run={parallelRun(true)} live />);
      await Promise.resolve();
    });
    const group = host.querySelector('.lanes.parallel');
    expect(group?.getAttribute('aria-label')).toBe('3 sub-agents working at once');
    const lanes = [...host.querySelectorAll('.lane')];
    expect(lanes.map((l) => l.getAttribute('data-instance'))).toEqual(['s1', 's2', 'c1']);
    expect(lanes[0]?.textContent).toContain('A is red');
    expect(lanes[1]?.textContent).not.toContain('A is red');
    expect(lanes[2]?.textContent).toContain('C says');
    expect(lanes.map((l) => l.querySelectorAll('.step-icon.running').length)).toEqual([2, 0, 2]);
  });
});
