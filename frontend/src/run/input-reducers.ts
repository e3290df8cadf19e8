// Reducers of what the user does during a run: messages added (queued_message, user_input)
// and permission requests with their decisions (permission_request, permission_result).
import type {
  DataPermissionRequest,
  DataPermissionResult,
  DataQueuedMessage,
  DataUserInput,
  NoteStep,
  PermissionAsk,
  PermissionDecision,
  QueuedInput,
  RunEvent,
  RunState,
} from './events';
import { clip, shortUrl } from '../shared/format';
import { noteText } from './localize';
import { findLast, num, obj, ownerOf, placeOf, replaceStep, rootAgent, str } from './run-util';
import { parseMcpToolName } from '../shared/mcp-names';

// i18n-keys: chat:notes.addedReached chat:notes.permissionWaiting
const DECISIONS: readonly PermissionDecision[] = ['approve', 'deny', 'always_allow', 'timeout', 'cancelled'];

/**
 * What a permission request is about, for one line: "web_fetch example.org/page"; an MCP
 * tool as "<tool> · <server>" ("echo · everything").
 */
export function permissionSubject(ask: Pick<PermissionAsk, 'tool' | 'params'>): string {
  const mcp = parseMcpToolName(ask.tool);
  if (mcp !== null) return `${mcp.tool} · ${mcp.server}`;
  const p = ask.params;
  const v = ask.tool === 'web_fetch' ? p.url : ask.tool === 'web_search' ? p.query : (p.id ?? p.agent_name);
  const detail = typeof v === 'string' ? (ask.tool === 'web_search' ? `“${clip(v, 80)}”` : shortUrl(v, 70)) : '';
  return detail ? `${ask.tool} ${detail}` : ask.tool;
}

/** queued_message: the user sent a message during the run; it waits for the lead's next round. */
export function queuedMessage(run: RunState, ev: RunEvent): RunState {
  const q = ev.data as Partial<DataQueuedMessage>;
  const id = str(q.id);
  if (id === '' || run.queued.some((x) => x.id === id)) return run;
  return { ...run, queued: [...run.queued, { id, content: str(q.content), status: 'queued', seq: ev.seq }] };
}

/** user_input: queued messages handed to the lead at a round's start. */
export function userInput(run: RunState, ev: RunEvent): RunState {
  const u = ev.data as Partial<DataUserInput>;
  const ids = Array.isArray(u.ids) ? u.ids.filter((x): x is string => typeof x === 'string') : [];
  const content = str(u.content);
  // A message queued before this window saw its queued_message is known from user_input alone.
  const known = new Set(run.queued.map((x) => x.id));
  const added: QueuedInput[] = ids
    .filter((id) => !known.has(id))
    .map((id) => ({ id, content: ids.length === 1 ? content : '', status: 'delivered', seq: ev.seq }));
  const note: NoteStep = {
    kind: 'note',
    key: `n${String(ev.seq)}`,
    ...noteText({ key: 'chat:notes.addedReached', params: { agent: rootAgent(run) } }),
    depth: 0,
    status: 'done',
    detail: content,
  };
  return {
    ...run,
    queued: [...run.queued.map((x) => (ids.includes(x.id) ? { ...x, status: 'delivered' as const } : x)), ...added],
    steps: [...run.steps, note],
  };
}

/** permission_request: a confirm tool waits for the user. */
export function permissionRequest(run: RunState, ev: RunEvent): RunState {
  const r = ev.data as Partial<DataPermissionRequest>;
  const requestId = str(r.request_id);
  if (requestId === '' || run.permissions.some((x) => x.requestId === requestId)) return run;
  const owner = ownerOf(run, ev.agent_name);
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
  const note: NoteStep = {
    kind: 'note',
    key: `p${requestId}`,
    ...noteText({ key: 'chat:notes.permissionWaiting', params: { subject: permissionSubject(ask) } }),
    ...placeOf(run, ev),
    status: 'running',
  };
  return { ...run, permissions: [...run.permissions, ask], steps: [...run.steps, note] };
}

/** permission_result: what was decided for a request (an unknown decision counts as deny). */
export function permissionResult(run: RunState, ev: RunEvent): RunState {
  const r = ev.data as Partial<DataPermissionResult>;
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
        // i18n-keys: chat:notes.permission.approve chat:notes.permission.always_allow chat:notes.permission.deny chat:notes.permission.timeout chat:notes.permission.cancelled
        ...noteText({ key: `chat:notes.permission.${decision}`, params: { subject: permissionSubject(ask) } }),
        status: allowed ? 'done' : decision === 'cancelled' ? 'stopped' : 'error',
      })
    : run.steps;
  return { ...run, permissions: run.permissions.map((x, i) => (i === at ? ask : x)), steps };
}
