import { describe, expect, it } from 'vitest';
import {
  applyEvent,
  applyEvents,
  emptyRunsState,
  endedRun,
  hydrateConversation,
  isRunning,
  parseEvent,
  pendingPermissions,
  permissionSubject,
  replayRun,
  runsOf,
  visibleText,
  type AgentStep,
  type EventType,
  type NoteStep,
  type RunEvent,
  type RunsState,
  type RunState,
  type ToolStep,
} from './events';

const CONV = 'c1';
const MSG = 'm1';

/** Builds events with increasing seq; chunks reuse the last persisted seq like the engine. */
function script() {
  let seq = 0;
  const events: RunEvent[] = [];
  const add = (type: EventType, agent: string, data: Record<string, unknown> = {}, message = MSG): RunEvent => {
    if (type !== 'llm_chunk') seq++;
    const ev: RunEvent = {
      type,
      conversation_id: CONV,
      message_id: message,
      seq,
      agent_name: agent || undefined,
      created_at: '2026-01-02T03:04:05Z',
      data,
    };
    events.push(ev);
    return ev;
  };
  return { events, add };
}

function run(state: RunsState, message = MSG): RunState {
  const r = state.conversations[CONV]?.runs[message];
  if (!r) throw new Error(`no run ${message}`);
  return r;
}

const agents = (r: RunState) => r.steps.filter((s): s is AgentStep => s.kind === 'agent');
const tools = (r: RunState) => r.steps.filter((s): s is ToolStep => s.kind === 'tool');
const usage = (total: number) => ({ prompt_tokens: total - 10, completion_tokens: 10, total_tokens: total });

describe('applyEvent: streaming', () => {
  it('streams the lead agent content and reasoning into the answer', () => {
    const { events, add } = script();
    add('metadata', '', { content: 'Why is the sky blue?', model: 'm', tool_call_mode: 'native' });
    add('agent_start', 'lead_agent', { round: 0 });
    add('llm_chunk', 'lead_agent', { reasoning: 'Rayleigh ' });
    add('llm_chunk', 'lead_agent', { reasoning: 'scattering.' });
    add('llm_chunk', 'lead_agent', { content: 'Because ' });
    add('llm_chunk', 'lead_agent', { content: 'of scattering.' });
    const r = run(applyEvents(emptyRunsState(), events));
    expect(r.question).toBe('Why is the sky blue?');
    expect(r.status).toBe('running');
    expect(r.answer).toBe('Because of scattering.');
    expect(r.reasoning).toBe('Rayleigh scattering.');
  });

  it('discards the partial text of the current call on reset, then applies the chunk', () => {
    const { events, add } = script();
    add('agent_start', 'lead_agent', { round: 0 });
    add('llm_chunk', 'lead_agent', { content: 'Half an ans', reasoning: 'half a thought' });
    add('llm_chunk', 'lead_agent', { reset: true, content: 'A' });
    add('llm_chunk', 'lead_agent', { content: ' whole answer.' });
    const r = run(applyEvents(emptyRunsState(), events));
    expect(r.answer).toBe('A whole answer.');
    expect(r.reasoning).toBe('');
  });

  it('moves text written before a tool call out of the answer into the step', () => {
    const { events, add } = script();
    add('agent_start', 'lead_agent', { round: 0 });
    add('llm_chunk', 'lead_agent', { content: 'Let me plan.' });
    add('llm_complete', 'lead_agent', {
      content: 'Let me plan.',
      tool_calls: [{ id: 't1', name: 'create_artifact', params: {} }],
      usage: usage(1200),
      duration_ms: 2100,
    });
    const r = run(applyEvents(emptyRunsState(), events));
    expect(r.answer).toBe('');
    expect(agents(r)[0]).toMatchObject({ text: 'Let me plan.', answered: false, tokens: 1200, durationMs: 2100 });
  });

  it('starts a new candidate answer with each round of the lead', () => {
    const { events, add } = script();
    add('agent_start', 'lead_agent', { round: 0 });
    add('llm_chunk', 'lead_agent', { content: 'Searching first.' });
    add('agent_complete', 'lead_agent', { content: 'Searching first.', routing: 'tool_call' });
    add('agent_start', 'lead_agent', { round: 1 });
    add('llm_chunk', 'lead_agent', { content: 'Final.' });
    const r = run(applyEvents(emptyRunsState(), events));
    expect(r.answer).toBe('Final.');
    expect(agents(r)[0]?.text).toBe('Searching first.');
  });
});

describe('applyEvent: tool steps and sub-agents', () => {
  it('records a tool call from start to completion, and a failed one as an error', () => {
    const { events, add } = script();
    add('agent_start', 'lead_agent', { round: 0 });
    add('tool_start', 'lead_agent', { call_id: 'a', tool: 'create_artifact', params: { id: 'task_plan' } });
    const running = run(applyEvents(emptyRunsState(), events));
    expect(tools(running)[0]).toMatchObject({ status: 'running', tool: 'create_artifact', params: { id: 'task_plan' } });

    add('tool_complete', 'lead_agent', { call_id: 'a', tool: 'create_artifact', success: true, result: 'ok', duration_ms: 3 });
    add('tool_start', 'lead_agent', { call_id: 'b', tool: 'update_artifact', params: { id: 'task_plan' } });
    add('tool_complete', 'lead_agent', { call_id: 'b', tool: 'update_artifact', success: false, error: 'old_str not found', duration_ms: 1 });
    const r = run(applyEvents(emptyRunsState(), events));
    expect(tools(r).map((t) => [t.status, t.result, t.error, t.durationMs])).toEqual([
      ['done', 'ok', '', 3],
      ['error', '', 'old_str not found', 1],
    ]);
  });

  it('nests a sub-agent under the call_subagent that started it and returns to the lead', () => {
    const { events, add } = script();
    add('agent_start', 'lead_agent', { round: 0 });
    add('agent_complete', 'lead_agent', { content: '', routing: 'subagent', target: 'search_agent' });
    add('tool_start', 'lead_agent', { call_id: 's', tool: 'call_subagent', params: { agent_name: 'search_agent' } });
    add('subagent_instruction', 'lead_agent', { target: 'search_agent', instruction: 'Find X.' });
    add('agent_start', 'search_agent', { round: 0 });
    add('llm_chunk', 'search_agent', { content: 'looking' });
    add('agent_complete', 'search_agent', { content: 'looking', routing: 'tool_call' });
    add('tool_start', 'search_agent', { call_id: 'w', tool: 'web_search', params: { query: 'x' } });
    add('tool_complete', 'search_agent', { call_id: 'w', tool: 'web_search', success: true, result: '1. a\n2. b', duration_ms: 1200 });
    add('agent_start', 'search_agent', { round: 1 });
    add('agent_complete', 'search_agent', { content: 'Found X.' });
    add('tool_complete', 'lead_agent', { call_id: 's', tool: 'call_subagent', success: true, result: 'Found X.', duration_ms: 5000 });
    add('agent_start', 'lead_agent', { round: 1 });
    add('tool_start', 'lead_agent', { call_id: 'f', tool: 'create_artifact', params: { id: 'report' } });
    const r = run(applyEvents(emptyRunsState(), events));

    const lines = r.steps.map((s) => `${String(s.depth)} ${s.kind === 'tool' ? s.tool : s.kind === 'agent' ? s.agent : s.text}`);
    expect(lines).toEqual([
      '0 lead_agent',
      '0 call_subagent',
      '1 search_agent',
      '1 web_search',
      '1 search_agent',
      '0 lead_agent',
      '0 create_artifact',
    ]);
    const [, first, second] = agents(r);
    expect(first).toMatchObject({ agent: 'search_agent', instruction: 'Find X.', text: 'looking', status: 'done' });
    expect(second).toMatchObject({ instruction: '', text: 'Found X.', answered: true });
    // Sub-agent text never leaks into the lead's answer.
    expect(r.answer).toBe('');
    expect(tools(r)[0]).toMatchObject({ status: 'done', result: 'Found X.' });
  });
});

describe('applyEvent: missing events', () => {
  it('closes an agent round whose agent_complete never came when the next round starts', () => {
    const { events, add } = script();
    add('agent_start', 'search_agent', { round: 0 });
    add('agent_start', 'search_agent', { round: 1 });
    const r = run(applyEvents(emptyRunsState(), events));
    expect(agents(r).map((a) => [a.round, a.status])).toEqual([
      [0, 'done'],
      [1, 'running'],
    ]);
  });

  it('streams chunks of a run whose start it never saw', () => {
    const { events, add } = script();
    add('llm_chunk', 'lead_agent', { content: 'mid-way' });
    expect(run(applyEvents(emptyRunsState(), events))).toMatchObject({ status: 'running', answer: 'mid-way', firstSeq: 0 });
  });
});

describe('applyEvent: terminal states', () => {
  function started() {
    const s = script();
    s.add('metadata', '', { content: 'Q', model: 'qwen', tool_call_mode: 'native' });
    s.add('agent_start', 'lead_agent', { round: 0 });
    s.add('tool_start', 'lead_agent', { call_id: 'a', tool: 'web_fetch', params: { url: 'https://a.example' } });
    return s;
  }

  it('complete takes the response, figures and closes running steps', () => {
    const { events, add } = started();
    add('llm_chunk', 'lead_agent', { content: 'partial' });
    add('complete', '', { response: 'The answer.', usage: usage(5000), duration_ms: 42000, steps: 3 });
    const r = run(applyEvents(emptyRunsState(), events));
    expect(r.status).toBe('complete');
    expect(r.answer).toBe('The answer.');
    expect(r.figures).toEqual({ steps: 3, usage: usage(5000), durationMs: 42000 });
    expect(r.steps.every((s) => s.status === 'done')).toBe(true);
    expect(isRunning(applyEvents(emptyRunsState(), events).conversations[CONV])).toBe(false);
  });

  it('cancelled keeps the partial answer, marks running steps stopped and keeps the reason', () => {
    const { events, add } = started();
    add('cancelled', '', { reason: 'stopped by the user', usage: usage(100), duration_ms: 900, steps: 1 });
    const r = run(applyEvents(emptyRunsState(), events));
    expect(r.status).toBe('cancelled');
    expect(r.reason).toBe('stopped by the user');
    expect(r.error).toBe('');
    expect(r.steps.map((s) => s.status)).toEqual(['stopped', 'stopped']);
  });

  it('error keeps the message and marks running steps failed', () => {
    const { events, add } = started();
    add('error', '', { error: 'lead_agent: 401 Unauthorized', usage: usage(10), duration_ms: 100, steps: 0 });
    const r = run(applyEvents(emptyRunsState(), events));
    expect(r.status).toBe('error');
    expect(r.error).toBe('lead_agent: 401 Unauthorized');
    expect(r.figures?.steps).toBe(0);
    expect(r.steps.map((s) => s.status)).toEqual(['error', 'error']);
  });

  it('ignores events after the terminal one', () => {
    const { events, add } = started();
    add('complete', '', { response: 'Done.' });
    add('llm_chunk', 'lead_agent', { content: 'late' });
    add('tool_start', 'lead_agent', { call_id: 'late', tool: 'web_search', params: {} });
    const r = run(applyEvents(emptyRunsState(), events));
    expect(r.answer).toBe('Done.');
    expect(tools(r)).toHaveLength(1);
  });
});

describe('applyEvent: duplicates and chunk seq', () => {
  it('ignores persisted events with a seq already applied and returns the same state', () => {
    const { events, add } = script();
    add('agent_start', 'lead_agent', { round: 0 });
    const toolStart = add('tool_start', 'lead_agent', { call_id: 'a', tool: 'web_search', params: {} });
    const state = applyEvents(emptyRunsState(), events);
    expect(applyEvent(state, toolStart)).toBe(state);
    expect(applyEvent(state, { ...toolStart, seq: 1 })).toBe(state);
    expect(tools(run(state))).toHaveLength(1);
  });

  it('applies chunks carrying the last persisted seq but drops chunks older than it', () => {
    const { events, add } = script();
    add('agent_start', 'lead_agent', { round: 0 }); // seq 1
    const chunk = add('llm_chunk', 'lead_agent', { content: 'a' }); // seq 1
    add('tool_start', 'lead_agent', { call_id: 'x', tool: 't', params: {} }); // seq 2
    let state = applyEvents(emptyRunsState(), events);
    expect(run(state).answer).toBe('a');
    state = applyEvent(state, { ...chunk, data: { content: 'stale' } });
    expect(run(state).answer).toBe('a');
    state = applyEvent(state, { ...chunk, seq: 2, data: { content: 'b' } });
    expect(run(state).answer).toBe('ab');
  });

  it('does not mutate the state it is given', () => {
    const { events, add } = script();
    add('agent_start', 'lead_agent', { round: 0 });
    const before = applyEvents(emptyRunsState(), events);
    const copy = structuredClone(before);
    applyEvents(before, [
      { ...events[0]!, type: 'llm_chunk', data: { content: 'x' } },
      { ...events[0]!, type: 'tool_start', seq: 2, data: { call_id: 'q', tool: 'web_search', params: {} } },
    ]);
    expect(before).toEqual(copy);
  });

  it('ignores events without conversation or message id', () => {
    const { add } = script();
    const ev = add('agent_start', 'lead_agent', { round: 0 });
    const state = emptyRunsState();
    expect(applyEvent(state, { ...ev, conversation_id: '' })).toBe(state);
    expect(applyEvent(state, { ...ev, message_id: '' })).toBe(state);
  });
});

describe('applyEvent: artifacts', () => {
  const snap = (id: string, version: number, content: string) => ({
    artifact: { id, content_type: 'text/markdown', title: id, content, version, source: 'agent', update_type: 'update' },
  });

  it('keeps the latest full snapshot per artifact, unsaved until the run ends', () => {
    const { events, add } = script();
    add('agent_start', 'lead_agent', { round: 0 });
    add('artifact_changed', 'lead_agent', snap('task_plan', 1, '- [ ] a'));
    add('artifact_changed', 'lead_agent', snap('report', 1, '# R'));
    add('artifact_changed', 'lead_agent', snap('task_plan', 2, '- [x] a'));
    let state = applyEvents(emptyRunsState(), events);
    const conv = state.conversations[CONV]!;
    expect(conv.artifacts.task_plan).toMatchObject({ unsaved: true, snapshot: { version: 2, content: '- [x] a' } });
    expect(run(state).artifactIds).toEqual(['task_plan', 'report']);

    add('complete', '', { response: 'ok', flush_failed: ['report'] });
    state = applyEvents(emptyRunsState(), events);
    expect(state.conversations[CONV]!.artifacts.task_plan?.unsaved).toBe(false);
    expect(state.conversations[CONV]!.artifacts.report?.unsaved).toBe(true);
    expect(run(state).flushFailed).toEqual(['report']);
  });
});

describe('replayRun and hydrateConversation', () => {
  it('rebuilds a past run from its stored events', () => {
    const { events, add } = script();
    add('metadata', '', { content: 'Q', model: 'm', tool_call_mode: 'native' });
    add('agent_start', 'lead_agent', { round: 0 });
    add('complete', '', { response: 'A', usage: usage(50), duration_ms: 10, steps: 0 });
    expect(replayRun(events, MSG)).toMatchObject({ question: 'Q', answer: 'A', status: 'complete' });
    expect(replayRun(events, 'other')).toBeUndefined();
  });

  it('adds a running run seen only from the middle, keeping runs it already has', () => {
    const { events, add } = script();
    add('metadata', '', { content: 'first' }, 'm0'); // seq 1
    add('complete', '', { response: 'one' }, 'm0'); // seq 2
    add('metadata', '', { content: 'second' }, 'm1'); // seq 3: this window missed it
    add('agent_start', 'lead_agent', { round: 0 }, 'm1'); // seq 4: missed too
    add('tool_start', 'lead_agent', { call_id: 'a', tool: 'web_search', params: {} }, 'm1'); // seq 5: seen live
    const live = applyEvents(emptyRunsState(), [...events.slice(0, 2), ...events.slice(4)]);
    expect(run(live, 'm1').question).toBe('');

    const hydrated = hydrateConversation(live, CONV, events.slice(2));
    const conv = hydrated.conversations[CONV]!;
    expect(runsOf(conv).map((r) => [r.messageId, r.question, r.status, r.steps.length])).toEqual([
      ['m0', 'first', 'complete', 0],
      ['m1', 'second', 'running', 2],
    ]);
    expect(conv.lastSeq).toBe(5);
  });

  it('takes the stored run when it reaches further, e.g. a terminal event missed while disconnected', () => {
    const { events, add } = script();
    add('metadata', '', { content: 'Q' });
    add('agent_start', 'lead_agent', { round: 0 });
    add('llm_chunk', 'lead_agent', { content: 'streamed' });
    const live = applyEvents(emptyRunsState(), events);
    add('agent_complete', 'lead_agent', { content: 'streamed' });
    add('complete', '', { response: 'Stored answer.' });
    const stored = events.filter((e) => e.type !== 'llm_chunk');
    const r = run(hydrateConversation(live, CONV, stored));
    expect([r.status, r.answer]).toEqual(['complete', 'Stored answer.']);
  });

  it('keeps the streamed text of a run that is still going when it takes the stored copy', () => {
    const { events, add } = script();
    add('agent_start', 'lead_agent', { round: 0 }); // seq 1, missed
    add('tool_start', 'lead_agent', { call_id: 'a', tool: 'web_search', params: {} }); // seq 2, missed
    add('llm_chunk', 'lead_agent', { content: 'so far' });
    const live = applyEvents(emptyRunsState(), events.slice(2));
    const r = run(hydrateConversation(live, CONV, events.slice(0, 2)));
    expect([r.answer, tools(r).length]).toEqual(['so far', 1]);
  });

  it('keeps a partial run when the stored events end before what it has seen', () => {
    const { events, add } = script();
    add('metadata', '', { content: 'Q' });
    add('agent_start', 'lead_agent', { round: 0 });
    add('tool_start', 'lead_agent', { call_id: 'a', tool: 'web_search', params: {} });
    const live = applyEvents(emptyRunsState(), events.slice(2));
    expect(hydrateConversation(live, CONV, events.slice(0, 2))).toBe(live);
  });

  it('keeps a run it saw from the start instead of the stored copy', () => {
    const { events, add } = script();
    add('metadata', '', { content: 'Q' });
    add('agent_start', 'lead_agent', { round: 0 });
    const live = applyEvents(emptyRunsState(), events);
    expect(hydrateConversation(live, CONV, events.slice(0, 1))).toBe(live);
  });
});

describe('parseEvent', () => {
  it('accepts objects and JSON strings and fills missing data', () => {
    const obj = { type: 'tool_start', conversation_id: 'c', message_id: 'm', seq: 3, created_at: 't', data: { call_id: 'x' } };
    expect(parseEvent(obj)).toMatchObject({ type: 'tool_start', seq: 3, data: { call_id: 'x' } });
    expect(parseEvent(JSON.stringify(obj))).toMatchObject({ seq: 3 });
    expect(parseEvent({ ...obj, data: '{"a":1}' })?.data).toEqual({ a: 1 });
    expect(parseEvent({ ...obj, data: null })?.data).toEqual({});
  });

  it('rejects what is not an event', () => {
    expect(parseEvent('not json')).toBeNull();
    expect(parseEvent(null)).toBeNull();
    expect(parseEvent({ type: 'x', conversation_id: 'c' })).toBeNull();
    expect(parseEvent({ type: 'x', conversation_id: 'c', seq: '1' })).toBeNull();
  });
});

describe('visibleText', () => {
  it.each([
    ['Plain answer.', 'Plain answer.'],
    ['Searching.\n<tool_call><name>web_search</name></tool_call>', 'Searching.'],
    ['Searching.\n<tool_c', 'Searching.'],
    ['a < b and c', 'a < b and c'],
  ])('%j -> %j', (input, want) => {
    expect(visibleText(input)).toBe(want);
  });
});

describe('applyEvent: conversation events', () => {
  const lead = (add: ReturnType<typeof script>['add']) => {
    add('metadata', '', { content: 'Q', model: 'm', tool_call_mode: 'native', parent_id: 'm0' });
    add('agent_start', 'lead_agent', { round: 0 });
  };
  const notes = (r: RunState) => r.steps.filter((s): s is NoteStep => s.kind === 'note');

  it('records the parent and the lead context size from llm_complete (not a sub-agent\'s)', () => {
    const { events, add } = script();
    lead(add);
    add('llm_complete', 'lead_agent', { content: '', tool_calls: [{ id: 'x', name: 'call_subagent', params: {} }], usage: { prompt_tokens: 41_000, completion_tokens: 50, total_tokens: 41_050 } });
    add('agent_start', 'search_agent', { round: 0 });
    add('llm_complete', 'search_agent', { content: 'x', usage: { prompt_tokens: 900, completion_tokens: 5, total_tokens: 905 } });
    const r = run(applyEvents(emptyRunsState(), events));
    expect(r.parentId).toBe('m0');
    expect(r.contextTokens).toBe(41_000);
  });

  it('shows each hook that ran as a line of the activity, a failed one as an error with its reason, also after the run', () => {
    const { events, add } = script();
    lead(add);
    add('hook_result', 'lead_agent', { hook: 'links', event: 'PostToolUse', ok: true, artifacts: 2, tool_name: 'web_fetch', tool_call_id: 'c1', duration_ms: 40 });
    add('hook_result', 'lead_agent', { hook: 'slow', event: 'PostToolUse', ok: false, error: 'timed out after 10s and was killed', artifacts: 0, tool_name: 'web_fetch', duration_ms: 10_000 });
    add('complete', '', { response: 'done', usage: {}, duration_ms: 5, steps: 1 });
    add('hook_result', '', { hook: 'notify', event: 'Stop', ok: false, error: 'exit status 1: no such channel', artifacts: 0, duration_ms: 3 });
    const r = run(applyEvents(emptyRunsState(), events));
    expect(r.status).toBe('complete');
    expect(notes(r)).toMatchObject([
      { status: 'done', text: 'Hook links ran after web_fetch: declared 2 links or files', detail: '' },
      { status: 'error', text: 'Hook slow failed after web_fetch', detail: 'timed out after 10s and was killed' },
      { status: 'error', text: 'Hook notify failed after the run', detail: 'exit status 1: no such channel' },
    ]);
  });

  it('turns compaction_start/summary into a marker with the summary, and a failed one into a warning', () => {
    const { events, add } = script();
    lead(add);
    add('compaction_start', 'lead_agent', { tokens_before: 41_000, threshold: 40_000, window: 50_000, messages: 12 });
    let r = run(applyEvents(emptyRunsState(), events));
    expect(r.compactions).toMatchObject([{ status: 'running', tokensBefore: 41_000, window: 50_000 }]);
    expect(notes(r)[0]).toMatchObject({ status: 'running', text: 'Compacting context' });
    add('compaction_summary', 'lead_agent', { success: true, summary: '## 1. Primary request', kept: 'Q', tokens_before: 41_000, tokens_after: 3_000, duration_ms: 900 });
    r = run(applyEvents(emptyRunsState(), events));
    expect(r.compactions[0]).toMatchObject({ status: 'done', tokensAfter: 3_000, summary: '## 1. Primary request', kept: 'Q' });
    expect(notes(r)).toHaveLength(1);
    expect(notes(r)[0]).toMatchObject({ status: 'done', text: 'Context compacted: 41k → 3k tokens', detail: '## 1. Primary request' });
    expect(r.contextTokens).toBe(3_000);

    add('compaction_start', 'search_agent', { tokens_before: 9_000, threshold: 8_000, window: 10_000, messages: 4 });
    add('compaction_summary', 'search_agent', { success: false, error: 'model timeout', tokens_before: 9_000, duration_ms: 100 });
    r = run(applyEvents(emptyRunsState(), events));
    expect(r.compactions[1]).toMatchObject({ agent: 'search_agent', status: 'failed', error: 'model timeout', tokensAfter: 0 });
    expect(notes(r)[1]).toMatchObject({ status: 'error', detail: 'model timeout' });
    expect(notes(r)[1]?.text).toContain('search_agent');
    expect(r.contextTokens).toBe(3_000);
  });

  it('a summary without its start still makes a marker', () => {
    const { events, add } = script();
    lead(add);
    add('compaction_summary', 'lead_agent', { success: true, summary: 'S', tokens_before: 10_000, tokens_after: 1_000, duration_ms: 1 });
    const r = run(applyEvents(emptyRunsState(), events));
    expect(r.compactions).toHaveLength(1);
    expect(notes(r)[0]?.text).toBe('Context compacted: 10k → 1k tokens');
  });

  it('queues messages until user_input delivers them, and drops the rest when the run ends', () => {
    const { events, add } = script();
    lead(add);
    add('queued_message', 'lead_agent', { id: 'q1', content: 'Also Italy' });
    add('queued_message', 'lead_agent', { id: 'q1', content: 'Also Italy' });
    add('queued_message', 'lead_agent', { id: 'q2', content: 'And Spain' });
    let r = run(applyEvents(emptyRunsState(), events));
    expect(r.queued.map((q) => [q.id, q.status])).toEqual([['q1', 'queued'], ['q2', 'queued']]);
    add('user_input', 'lead_agent', { ids: ['q1'], content: 'Also Italy' });
    r = run(applyEvents(emptyRunsState(), events));
    expect(r.queued.map((q) => q.status)).toEqual(['delivered', 'queued']);
    expect(notes(r).at(-1)).toMatchObject({ status: 'done', detail: 'Also Italy' });
    add('cancelled', '', { reason: 'stopped' });
    r = run(applyEvents(emptyRunsState(), events));
    expect(r.queued.map((q) => q.status)).toEqual(['delivered', 'dropped']);
  });

  it('knows a delivered message from user_input alone (its queued_message was not seen)', () => {
    const { events, add } = script();
    lead(add);
    add('user_input', 'lead_agent', { ids: ['q9'], content: 'Late' });
    expect(run(applyEvents(emptyRunsState(), events)).queued).toMatchObject([{ id: 'q9', content: 'Late', status: 'delivered' }]);
  });

  it('tracks permission requests until their result, across conversations', () => {
    const { events, add } = script();
    lead(add);
    add('permission_request', 'crawl_agent', { request_id: 'r1', call_id: 'c1', tool: 'web_fetch', params: { url: 'https://example.org/a' }, timeout_ms: 30_000 });
    add('permission_request', 'search_agent', { request_id: 'r2', call_id: 'c2', tool: 'web_search', params: { query: 'heat pumps' }, timeout_ms: 30_000 });
    let state = applyEvents(emptyRunsState(), events);
    const other = applyEvent(state, { ...events[0]!, conversation_id: 'c0', message_id: 'mx', seq: 1 });
    state = applyEvent(other, { ...events.at(-1)!, conversation_id: 'c0', message_id: 'mx', seq: 2, data: { request_id: 'r0', tool: 'web_fetch', timeout_ms: 5 } });
    expect(pendingPermissions(state, CONV).map((p) => [p.conversationId, p.requestId])).toEqual([
      [CONV, 'r1'],
      [CONV, 'r2'],
      ['c0', 'r0'],
    ]);
    const r1 = run(state).permissions[0]!;
    expect(r1).toMatchObject({ tool: 'web_fetch', timeoutMs: 30_000, agent: 'crawl_agent', decision: '', requestedAt: '2026-01-02T03:04:05Z' });
    expect(notes(run(state))[0]?.text).toBe('Waiting for your permission: web_fetch example.org/a');

    add('permission_result', 'crawl_agent', { request_id: 'r1', tool: 'web_fetch', decision: 'approve' });
    add('permission_result', 'search_agent', { request_id: 'r2', tool: 'web_search', decision: 'timeout' });
    const r = run(applyEvents(emptyRunsState(), events));
    expect(r.permissions.map((p) => p.decision)).toEqual(['approve', 'timeout']);
    expect(notes(r).map((n) => [n.text, n.status])).toEqual([
      ['web_fetch example.org/a: allowed', 'done'],
      ['web_search “heat pumps”: not answered in time (denied)', 'error'],
    ]);
    expect(pendingPermissions(applyEvents(emptyRunsState(), events))).toEqual([]);
  });

  it('a request still pending when the run ends is cancelled', () => {
    const { events, add } = script();
    lead(add);
    add('permission_request', 'crawl_agent', { request_id: 'r1', tool: 'web_fetch', params: {}, timeout_ms: 1000 });
    add('cancelled', '', {});
    const state = applyEvents(emptyRunsState(), events);
    expect(run(state).permissions[0]?.decision).toBe('cancelled');
    expect(pendingPermissions(state)).toEqual([]);
  });

  it('permissionSubject names the URL or query', () => {
    expect(permissionSubject({ tool: 'web_fetch', params: { url: 'https://www.example.org/page/' } })).toBe('web_fetch example.org/page');
    expect(permissionSubject({ tool: 'web_search', params: { query: 'q' } })).toBe('web_search “q”');
    expect(permissionSubject({ tool: 'rewrite_artifact', params: { id: 'report' } })).toBe('rewrite_artifact report');
    expect(permissionSubject({ tool: 'x', params: {} })).toBe('x');
  });
});

describe('endedRun', () => {
  it('closes a run whose events stop without a terminal event (interrupted)', () => {
    const { events, add } = script();
    add('metadata', '', { content: 'Q', model: 'm', tool_call_mode: 'native' });
    add('agent_start', 'lead_agent', { round: 0 });
    add('queued_message', 'lead_agent', { id: 'q1', content: 'more' });
    add('permission_request', 'lead_agent', { request_id: 'r1', tool: 'web_fetch', params: {}, timeout_ms: 1 });
    const r = run(applyEvents(emptyRunsState(), events));
    const e = endedRun(r);
    expect(e.status).toBe('cancelled');
    expect(e.steps.every((s) => s.status !== 'running')).toBe(true);
    expect(e.queued[0]?.status).toBe('dropped');
    expect(e.permissions[0]?.decision).toBe('cancelled');
    const done = { ...r, status: 'complete' as const };
    expect(endedRun(done)).toBe(done);
  });
});
