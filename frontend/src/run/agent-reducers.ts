// Reducers of an agent's rounds: agent_start, llm_chunk, llm_complete and agent_complete.
// The root (lead) agent's text is the run's candidate answer; a sub-agent's text stays in its step.
import type { AgentStep, DataAgentComplete, DataAgentStart, DataLLMChunk, DataLLMComplete, RunEvent, RunState } from './events';
import { instanceOf, LEAD_AGENT, num, ownerOf, replaceStep, rootAgent, runningAgentStep, str, usageOf } from './run-util';

/** Applies one streamed delta (llm_chunk) to the root agent's answer or a sub-agent's step. */
export function applyChunk(run: RunState, ev: RunEvent): RunState {
  const d = ev.data as DataLLMChunk;
  const content = str(d.content);
  const reasoning = str(d.reasoning);
  const agent = ownerOf(run, ev.agent_name);
  const instance = instanceOf(ev);
  if (agent === rootAgent(run) && instance === '') {
    const base = d.reset === true ? { answer: '', reasoning: '' } : run;
    return { ...run, answer: base.answer + content, reasoning: base.reasoning + reasoning };
  }
  const found = runningAgentStep(run.steps, agent, instance);
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

/**
 * agent_start: a new round of an agent, nested by the agent stack; a round of a sub-agent
 * instance (data.instance) goes in that instance's lane, one below the lead, and leaves the
 * stack alone, since instances of one reply run at once.
 */
export function agentStart(run: RunState, ev: RunEvent): RunState {
  const d = ev.data as Partial<DataAgentStart>;
  const name = ev.agent_name || LEAD_AGENT;
  const instance = instanceOf(ev);
  const at = run.agentStack.indexOf(name);
  const agentStack = instance !== '' ? run.agentStack : at >= 0 ? run.agentStack.slice(0, at + 1) : [...run.agentStack, name];
  const depth = instance !== '' ? 1 : agentStack.length - 1;
  const { [name]: pending = '', ...pendingInstructions } = run.pendingInstructions;
  const step: AgentStep = {
    kind: 'agent',
    key: `a${String(ev.seq)}-${String(run.steps.length)}`,
    agent: name,
    round: num(d.round),
    depth,
    ...(instance !== '' ? { instance } : {}),
    instruction: str(d.instruction) || pending,
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
      : s.agent === name && (s.instance ?? '') === instance && s.status === 'running'
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

/** llm_complete: the whole text of one LLM call, its tokens and duration. */
export function llmComplete(initial: RunState, ev: RunEvent): RunState {
  let run = initial;
  const c = ev.data as Partial<DataLLMComplete>;
  const owner = ownerOf(run, ev.agent_name);
  const instance = instanceOf(ev);
  const prompt = usageOf(c.usage).prompt_tokens;
  if (owner === rootAgent(run) && instance === '' && prompt > 0) run = { ...run, contextTokens: prompt };
  const found = runningAgentStep(run.steps, owner, instance);
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

/** agent_complete: the round ends, with an answer or a routing (tool call, delegation). */
export function agentComplete(run: RunState, ev: RunEvent): RunState {
  const c = ev.data as Partial<DataAgentComplete>;
  const instance = instanceOf(ev);
  const found = runningAgentStep(run.steps, ownerOf(run, ev.agent_name), instance);
  if (!found) return run;
  const { i, step } = found;
  const routing = str(c.routing);
  const content = str(c.content);
  const closed = { status: 'done' as const, routing, target: str(c.target) };
  if (step.depth !== 0) {
    // A sub-agent that answers returns control to the agent that called it.
    const agentStack = routing === '' && instance === '' ? run.agentStack.slice(0, step.depth) : run.agentStack;
    return {
      ...run,
      agentStack,
      steps: replaceStep(run.steps, i, { ...step, ...closed, answered: routing === '', text: step.text || content }),
    };
  }
  if (routing !== '') return archiveRootText(run, i, { ...step, ...closed }, step.text || content, step.reasoning);
  const answer = run.answer || content;
  return {
    ...run,
    answer,
    steps: replaceStep(run.steps, i, { ...step, ...closed, answered: true, text: step.text || answer }),
  };
}
