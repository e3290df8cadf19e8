// Typed wrappers over the bound calls of the conversation's workspace folder and its
// local-file index (issue 9, item 6), and the reading of index_progress events. Like api.ts,
// every call resolves with normalized objects or rejects with an ApiError; nothing else in
// the UI imports these bindings.

import * as ConversationService from '../wailsjs/go/app/ConversationService';
import { onRunEvent } from './api';
import { callService, isObject, asString as s, asNumber as n, asBool as b, asObject as o, asList as list } from './api-call';

/** Runs the bound call ConversationService.`method` (callService). */
const call = <T>(method: string, fn: () => Promise<T>): Promise<T> => callService('ConversationService', method, fn);

/** Phases of an indexing pass: walking the folder, reading changed files, finished. */
export type IndexPhase = 'scanning' | 'indexing' | 'done';

/**
 * The progress of an indexing pass (localfiles.Progress): `total` files considered, `done`
 * of them settled, `changed` had to be read, `failed` and `skipped` could not be indexed,
 * `bytes` read of `totalBytes`, `removed` rows of files that are gone; `truncated` when the
 * folder has more files than are indexed; `error` the reason a pass stopped early.
 */
export interface IndexProgress {
  /** An IndexPhase; another string from a newer backend. */
  phase: string;
  workspace: string;
  total: number;
  done: number;
  changed: number;
  failed: number;
  skipped: number;
  removed: number;
  bytes: number;
  totalBytes: number;
  truncated: boolean;
  error: string;
}

/** Normalizes an index progress as it arrives from a bound call or an index_progress event. */
export function indexProgress(v: unknown): IndexProgress {
  const x = o(v);
  return {
    phase: s(x.phase),
    workspace: s(x.workspace),
    total: n(x.total),
    done: n(x.done),
    changed: n(x.changed),
    failed: n(x.failed),
    skipped: n(x.skipped),
    removed: n(x.removed),
    bytes: n(x.bytes),
    totalBytes: n(x.total_bytes),
    truncated: b(x.truncated),
    error: s(x.error),
  };
}

/**
 * A conversation's workspace folder and what its index holds (app.WorkspaceStatus): the
 * absolute `folder`, whether the user `chosen` it (else the default folder) and whether it
 * `exists`; `canChoose` when a native folder dialog is at hand (the desktop window);
 * `indexing` while a pass runs, `progress` the last one reported (null before any); counts
 * of indexed `files` (`uploads` of them), `skipped` and `failed` files, indexed `bytes` and
 * indexed files by extension.
 */
export interface WorkspaceStatus {
  conversationId: string;
  folder: string;
  chosen: boolean;
  exists: boolean;
  canChoose: boolean;
  indexing: boolean;
  progress: IndexProgress | null;
  files: number;
  uploads: number;
  skipped: number;
  failed: number;
  bytes: number;
  byExt: Record<string, number>;
}

/** Normalizes a workspace status from a bound call. */
export function workspaceStatus(v: unknown): WorkspaceStatus {
  const x = o(v);
  const byExt: Record<string, number> = {};
  for (const [k, c] of Object.entries(o(x.by_ext))) byExt[k] = n(c);
  return {
    conversationId: s(x.conversation_id),
    folder: s(x.folder),
    chosen: b(x.chosen),
    exists: b(x.exists),
    canChoose: b(x.can_choose),
    indexing: b(x.indexing),
    progress: isObject(x.progress) ? indexProgress(x.progress) : null,
    files: n(x.files),
    uploads: n(x.uploads),
    skipped: n(x.skipped),
    failed: n(x.failed),
    bytes: n(x.bytes),
    byExt,
  };
}

/** A file the index left out (app.IndexFailure): `status` "skipped" (by policy) or "failed". */
export interface IndexFailure {
  path: string;
  status: string;
  reason: string;
  size: number;
}

/** The workspace status of a conversation (ConversationService.WorkspaceStatus). */
export async function getWorkspaceStatus(conversationId: string): Promise<WorkspaceStatus> {
  return workspaceStatus(await call('WorkspaceStatus', () => ConversationService.WorkspaceStatus(conversationId)));
}

/**
 * Asks for a folder with the native dialog and makes it the conversation's workspace
 * (ConversationService.ChooseWorkspace); `conversationId` "" starts a conversation named after
 * the folder. A cancelled dialog resolves with the unchanged status (an empty one for "").
 * Rejects with code "desktop_only" in browser mode.
 */
export async function chooseWorkspace(conversationId: string): Promise<WorkspaceStatus> {
  return workspaceStatus(await call('ChooseWorkspace', () => ConversationService.ChooseWorkspace(conversationId)));
}

/** Makes the default folder the conversation's workspace again (ConversationService.ResetWorkspace). */
export async function resetWorkspace(conversationId: string): Promise<WorkspaceStatus> {
  return workspaceStatus(await call('ResetWorkspace', () => ConversationService.ResetWorkspace(conversationId)));
}

/** Starts indexing the workspace again, failed files included (ConversationService.Reindex). */
export async function reindexWorkspace(conversationId: string): Promise<WorkspaceStatus> {
  return workspaceStatus(await call('Reindex', () => ConversationService.Reindex(conversationId)));
}

/** The files the index left out, with the reason (ConversationService.WorkspaceFailures). */
export async function workspaceFailures(conversationId: string): Promise<IndexFailure[]> {
  const raw = list(await call('WorkspaceFailures', () => ConversationService.WorkspaceFailures(conversationId)));
  return raw.map((v) => {
    const x = o(v);
    return { path: s(x.path), status: s(x.status), reason: s(x.reason), size: n(x.size) };
  });
}

/**
 * Calls `handler` with the conversation id and progress of every index_progress event.
 * Returns the function that unsubscribes.
 */
export function onIndexProgress(handler: (conversationId: string, p: IndexProgress) => void): () => void {
  return onRunEvent((ev) => {
    if (ev.type !== 'index_progress') return;
    handler(ev.conversation_id, indexProgress(ev.data));
  });
}
