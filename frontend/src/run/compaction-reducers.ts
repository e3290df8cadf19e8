// Reducers of context compactions: compaction_start and compaction_summary, each with its
// line in the activity flow.
import type { Compaction, DataCompactionStart, DataCompactionSummary, NoteStep, RunEvent, RunState, TextPart } from './events';
import { formatCount } from '../shared/format';
import { i18n } from '../i18n/i18n';
import { noteText } from './localize';
import { findLast, instanceOf, num, ownerOf, placeOf, replaceStep, rootAgent, str } from './run-util';

/** compaction_start: an agent's context passed its threshold and is being summarised. */
export function compactionStart(run: RunState, ev: RunEvent): RunState {
  const c = ev.data as Partial<DataCompactionStart>;
  const owner = ownerOf(run, ev.agent_name);
  const mark: Compaction = {
    seq: ev.seq,
    agent: owner,
    ...(instanceOf(ev) !== '' ? { instance: instanceOf(ev) } : {}),
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
  const note: NoteStep = {
    kind: 'note',
    key: `n${String(ev.seq)}`,
    // i18n-keys: chat:notes.compacting chat:notes.compactingAgent
    ...noteText(owner === rootAgent(run) ? { key: 'chat:notes.compacting' } : { key: 'chat:notes.compactingAgent', params: { agent: owner } }),
    ...placeOf(run, ev),
    status: 'running',
  };
  return { ...run, compactions: [...run.compactions, mark], steps: [...run.steps, note] };
}

/** The line of a finished compaction (agent "" for the root agent). */
function summaryParts(ok: boolean, mark: Compaction, agent: string): TextPart {
  // i18n-keys: chat:notes.compacted chat:notes.compactedAgent chat:notes.compactionFailed chat:notes.compactionFailedAgent
  const before = formatCount(mark.tokensBefore);
  const after = formatCount(mark.tokensAfter);
  if (ok) return agent === '' ? { key: 'chat:notes.compacted', params: { before, after } } : { key: 'chat:notes.compactedAgent', params: { agent, before, after } };
  return agent === '' ? { key: 'chat:notes.compactionFailed' } : { key: 'chat:notes.compactionFailedAgent', params: { agent } };
}

/** compaction_summary: the compaction ended; a failed one is ignored as a boundary. */
export function compactionSummary(run: RunState, ev: RunEvent): RunState {
  const c = ev.data as Partial<DataCompactionSummary>;
  const owner = ownerOf(run, ev.agent_name);
  const ok = c.success === true;
  const instance = instanceOf(ev);
  const at = run.compactions.findLastIndex((m) => m.agent === owner && (m.instance ?? '') === instance && m.status === 'running');
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
    error: ok ? '' : str(c.error) || i18n.t('chat:run.summaryFailed'),
    durationMs: num(c.duration_ms),
  };
  const compactions = at >= 0 ? run.compactions.map((m, i) => (i === at ? mark : m)) : [...run.compactions, mark];
  const note: NoteStep = {
    kind: 'note',
    key: `n${String(mark.seq)}`,
    ...noteText(summaryParts(ok, mark, owner === rootAgent(run) ? '' : owner)),
    ...placeOf(run, ev),
    status: ok ? 'done' : 'error',
    detail: ok ? mark.summary : mark.error,
  };
  const found = findLast(run.steps, (s): s is NoteStep => s.kind === 'note' && s.key === note.key);
  const steps = found ? replaceStep(run.steps, found.i, note) : [...run.steps, note];
  const contextTokens = ok && owner === rootAgent(run) && instance === '' && mark.tokensAfter > 0 ? mark.tokensAfter : run.contextTokens;
  return { ...run, compactions, steps, contextTokens };
}
