// ConversationService (app/conversations.go): the conversation list and search, one
// conversation's messages, branches and history, its numbered sources, and its workspace
// folder with the local-file index. Each function is one bound call through callService plus
// the normalization of its answer; the normalizers are exported where events carry the same
// data (source_added, index_progress).

import { imageRefs, type ImageRef } from '../run/image-refs';
import * as ConversationService from '../../wailsjs/go/app/ConversationService';
import type { app, localfiles, sources } from '../../wailsjs/go/models';
import type { RunEvent } from '../run/event-types';
import { parseEvent } from '../run/parse-event';
import { callService, isObject, asString as s, asNumber as n, asBool as b, asObject as o, asList as list, asStrings, type Model, wire } from './call';

/** Runs the bound call ConversationService.`method` (callService). */
const call = <T>(method: string, fn: () => Promise<T>): Promise<T> => callService('ConversationService', method, fn);

/** Status of a stored message (app.MessageView.Status, a Go string with these values). */
export type MessageStatus = 'running' | 'complete' | 'cancelled' | 'error' | 'interrupted';

const STATUSES: readonly MessageStatus[] = ['running', 'complete', 'cancelled', 'error', 'interrupted'];

/**
 * One row of the conversation list (app.ConversationSummary without the search snippet);
 * times are RFC 3339. `last_status` is the status of the conversation's latest run (its
 * active branch's last message), "" without one; the sidebar marks error and interrupted as
 * failed, cancelled as stopped. `pinned` puts it in the sidebar's Pinned group, `archived`
 * in the collapsed Archived group (which wins when both are set).
 */
export type Conversation = Omit<Model<app.ConversationSummary>, 'snippet' | 'last_status'> & { last_status: MessageStatus | '' };

/** One conversation found by searchConversations, with `snippet` (plain text) around the match. */
export type SearchHit = Conversation & Pick<Model<app.ConversationSummary>, 'snippet'>;

/**
 * One user message and its answer (app.MessageView). `sibling_ids` are the ids of the
 * branches at this point of the message tree, oldest first, this one included;
 * `sibling_index` is this message's 0-based position in them (navigator: ‹ index+1 / length ›).
 * `images` are the pictures attached to the question ([] when none).
 */
export type Message = Omit<Model<app.MessageView>, 'status' | 'feedback' | 'images'> & { status: MessageStatus; feedback?: Feedback; images: ImageRef[] };

/** A thumb of a run's rating: up, down, or '' (not rated). */
export type Rating = 'up' | 'down' | '';

/**
 * The user's rating of one run (app.FeedbackView): `rating` up or down ('' once cleared),
 * `note` the optional remark (plain text), `at` when it was given (RFC 3339, '' once cleared).
 */
export interface Feedback {
  rating: Rating;
  note: string;
  at: string;
}

/** A FeedbackView from the backend, or undefined when `v` holds no rating. */
export function feedbackOf(v: unknown): Feedback | undefined {
  if (!isObject(v)) return undefined;
  const rating = v.rating === 'up' || v.rating === 'down' ? v.rating : '';
  if (rating === '') return undefined;
  return { rating, note: s(v.note), at: s(v.at) };
}

/** A conversation with the messages on its active branch, root first (app.ConversationDetail). */
export type ConversationDetail = Omit<Model<app.ConversationDetail>, 'conversation' | 'messages'> & {
  conversation: Conversation;
  messages: Message[];
};

/** A conversation's last_status: a MessageStatus, or "" (no message yet, or unknown). */
export function lastStatus(v: unknown): MessageStatus | '' {
  return STATUSES.find((st) => st === v) ?? '';
}

function conversation(v: unknown): Conversation {
  const x = o(v);
  return {
    id: s(x.id),
    title: s(x.title),
    created_at: s(x.created_at),
    updated_at: s(x.updated_at),
    running: b(x.running),
    last_status: lastStatus(x.last_status),
    pinned: b(x.pinned),
    archived: b(x.archived),
  };
}

function message(v: unknown): Message {
  const x = o(v);
  return {
    id: s(x.id),
    parent_id: s(x.parent_id),
    content: s(x.content),
    response: s(x.response),
    status: STATUSES.find((st) => st === x.status) ?? 'complete',
    error: s(x.error),
    created_at: s(x.created_at),
    sibling_ids: asStrings(x.sibling_ids),
    sibling_index: n(x.sibling_index),
    feedback: feedbackOf(x.feedback),
    images: imageRefs(x.images),
  };
}

function detail(v: unknown): ConversationDetail {
  const r = o(v);
  return { conversation: conversation(r.conversation), messages: list(r.messages).map(message) };
}

/** Conversations, most recently updated first (ConversationService.List). */
export async function listConversations(): Promise<Conversation[]> {
  return list(await call('List', () => ConversationService.List())).map(conversation);
}

/** A conversation and the messages on its active branch (ConversationService.Get). */
export async function getConversation(id: string): Promise<ConversationDetail> {
  return detail(await call('Get', () => ConversationService.Get(id)));
}

/**
 * The stored events of one message's run in seq order (ConversationService.Events). Entries
 * that are not valid events are dropped.
 */
export async function messageEvents(conversationId: string, messageId: string): Promise<RunEvent[]> {
  const raw = list(await call('Events', () => ConversationService.Events(conversationId, messageId)));
  return raw.map(parseEvent).filter((e): e is RunEvent => e !== null);
}

/**
 * Rates one finished run (ConversationService.SetFeedback): `rating` up or down with an
 * optional `note`, or '' (and no note) to clear the rating. Resolves with the rating as
 * stored (undefined once cleared). Rejects with invalid_request for a bad rating or note
 * (over 2,000 characters) or a run still going, not_found for an unknown message.
 */
export async function setFeedback(conversationId: string, messageId: string, rating: Rating, note: string): Promise<Feedback | undefined> {
  return feedbackOf(await call('SetFeedback', () => ConversationService.SetFeedback(conversationId, messageId, rating, note)));
}

/** Sets a conversation's title (ConversationService.Rename). */
export async function renameConversation(id: string, title: string): Promise<void> {
  await call('Rename', () => ConversationService.Rename(id, title));
}

/** Pins (true) or unpins (false) a conversation (ConversationService.Pin); rejects with an ApiError. */
export async function pinConversation(id: string, pinned: boolean): Promise<void> {
  await call('Pin', () => ConversationService.Pin(id, pinned));
}

/** Archives (true) or restores (false) a conversation (ConversationService.Archive); rejects with an ApiError. */
export async function archiveConversation(id: string, archived: boolean): Promise<void> {
  await call('Archive', () => ConversationService.Archive(id, archived));
}

/** Removes a conversation and everything in it (ConversationService.Delete). */
export async function deleteConversation(id: string): Promise<void> {
  await call('Delete', () => ConversationService.Delete(id));
}

/**
 * Shows another branch (ConversationService.SwitchBranch with the sibling to show): the
 * branch below `messageId` to its newest end becomes active. Resolves with the
 * conversation as getConversation returns it.
 */
export async function switchBranch(conversationId: string, messageId: string): Promise<ConversationDetail> {
  return detail(await call('SwitchBranch', () => ConversationService.SwitchBranch(conversationId, messageId)));
}

/**
 * Conversations whose title or message text contains every term of `query`, best first,
 * at most 100 (ConversationService.Search). Snippets are plain text; highlight them with
 * highlightTerms, never as HTML.
 */
export async function searchConversations(query: string): Promise<SearchHit[]> {
  return list(await call('Search', () => ConversationService.Search(query))).map((v) => ({ ...conversation(v), snippet: s(o(v).snippet) }));
}

/**
 * Cursors of one history page request (app.HistoryRequest), event seqs, exclusive:
 * `latest` for the newest page; `before_seq` for older events; `after_seq` for newer.
 * `limit` is the page size (backend default 200, at most 1000).
 */
export type HistoryRequest = Partial<Model<app.HistoryRequest>>;

/**
 * One page of a conversation's history (app.HistoryPage, its fields in camelCase and its
 * events parsed): stored events of the active branch in ascending seq; firstSeq/lastSeq are
 * 0 for an empty page.
 */
export interface HistoryPage {
  events: RunEvent[];
  hasBefore: boolean;
  hasAfter: boolean;
  firstSeq: number;
  lastSeq: number;
}

/**
 * One page of the history of a conversation's active branch (ConversationService.History).
 * Entries that are not valid events are dropped. Rejects with "unsupported" when the
 * backend has no History (callers fall back to ConversationService.Events).
 */
export async function historyPage(conversationId: string, req: HistoryRequest): Promise<HistoryPage> {
  const r = o(await call('History', () => ConversationService.History(conversationId, wire<app.HistoryRequest>(req))));
  return {
    events: list(r.events)
      .map(parseEvent)
      .filter((e): e is RunEvent => e !== null),
    hasBefore: b(r.has_before),
    hasAfter: b(r.has_after),
    firstSeq: n(r.first_seq),
    lastSeq: n(r.last_seq),
  };
}

/**
 * One source of a conversation (sources.Source). `n` starts at 1 and never changes; `kind`
 * is "web" (`location`: an absolute URL, the final one for a fetched page) or "file"
 * (`location`: the workspace-relative slash path); other kinds from newer backends are kept
 * as strings. `title`, `site`, `excerpt` and `published` are plain text from outside the
 * app: render them as text only. `page` and `line` are 0 when unknown. `fetched` is true
 * once the page or file was read, not only listed. `added_at` is RFC 3339.
 */
export type Source = Omit<Model<sources.Source>, 'added_at'> & { added_at: string };

const int = (v: unknown): number => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : 0);

/**
 * Normalizes one source as it arrives from ConversationService.Sources or a source_added
 * event's data (Go's JSON: missing fields, null). Returns null unless it has a number ≥ 1
 * and a location.
 */
export function normalizeSource(v: unknown): Source | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const x = o(v);
  const num = int(x.n);
  const location = s(x.location);
  if (num === 0 || location === '') return null;
  return {
    n: num,
    kind: s(x.kind),
    location,
    title: s(x.title),
    site: s(x.site),
    excerpt: s(x.excerpt),
    published: s(x.published),
    page: int(x.page),
    line: int(x.line),
    fetched: x.fetched === true,
    message_id: s(x.message_id),
    added_at: s(x.added_at),
  };
}

/**
 * The conversation's sources in number order (ConversationService.Sources); an empty list
 * for a conversation without any. Rejects with ApiError "unavailable" when no backend is
 * attached, "unsupported" when the backend has no Sources method, else the call's error.
 */
export async function listSources(conversationId: string): Promise<Source[]> {
  const raw = list(await call('Sources', () => ConversationService.Sources(conversationId)));
  return raw
    .map(normalizeSource)
    .filter((x): x is Source => x !== null)
    .sort((p, q) => p.n - q.n);
}

/** Phases of an indexing pass: walking the folder, reading changed files, finished. */
export type IndexPhase = 'scanning' | 'indexing' | 'done';

/**
 * The progress of an indexing pass (localfiles.Progress, total_bytes as totalBytes):
 * `total` files considered, `done` of them settled, `changed` had to be read, `failed` and
 * `skipped` could not be indexed, `bytes` read of `totalBytes`, `removed` rows of files that
 * are gone; `truncated` when the folder has more files than are indexed; `error` the reason a
 * pass stopped early. `phase` is an IndexPhase, or another string from a newer backend.
 */
export type IndexProgress = Omit<Model<localfiles.Progress>, 'total_bytes'> & { totalBytes: number };

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
 * A conversation's workspace folder and what its index holds (app.WorkspaceStatus, with
 * conversationId, canChoose and byExt in camelCase): the absolute `folder`, whether the user
 * `chosen` it (else the default folder) and whether it `exists`; `canChoose` when a native
 * folder dialog is at hand (the desktop window); `indexing` while a pass runs, `progress`
 * the last one reported (null before any); counts of indexed `files` (`uploads` of them),
 * `skipped` and `failed` files, indexed `bytes` and indexed files by extension.
 */
export type WorkspaceStatus = Omit<Model<app.WorkspaceStatus>, 'conversation_id' | 'can_choose' | 'by_ext' | 'progress'> & {
  conversationId: string;
  canChoose: boolean;
  progress: IndexProgress | null;
  byExt: Record<string, number>;
};

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
export type IndexFailure = Model<app.IndexFailure>;

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
 * A conversation file made by exportConversation (app.ExportResult): in the window the
 * backend wrote it where the user chose in the save dialog and `saved_path` names it ("" when
 * the user cancelled); in browser mode `data` holds the zip as base64 for the page to
 * download under `filename`.
 */
export interface ConversationExport {
  filename: string;
  mime: string;
  data: string;
  saved_path: string;
}

/**
 * What importing a conversation file stored (app.ConversationImport): the new
 * conversation's id ("" when the user cancelled the open dialog) and title, its messages
 * (every branch), artifacts, upload originals and workspace files.
 */
export type ConversationImport = Model<app.ConversationImport>;

function conversationImport(v: unknown): ConversationImport {
  const x = o(v);
  return {
    conversation_id: s(x.conversation_id),
    title: s(x.title),
    messages: n(x.messages),
    artifacts: n(x.artifacts),
    uploads: n(x.uploads),
    files: n(x.files),
  };
}

/**
 * Exports a whole conversation to one file (ConversationService.Export): every branch, its
 * events, artifacts with every version, sources, declared links and files, and the
 * originals of its uploads. See ConversationExport for the window versus browser mode.
 */
export async function exportConversation(id: string): Promise<ConversationExport> {
  const r = o(await call('Export', () => ConversationService.Export(id)));
  return { filename: s(r.filename), mime: s(r.mime), data: s(r.data), saved_path: s(r.saved_path) };
}

/**
 * Imports a conversation file the page read (browser mode's file input; `data` is the
 * file as base64) as a new conversation (ConversationService.Import). Rejects with
 * invalid_request, saying what is wrong, for a file that is not a valid conversation file
 * (nothing is then stored).
 */
export async function importConversation(name: string, data: string): Promise<ConversationImport> {
  return conversationImport(await call('Import', () => ConversationService.Import(wire<app.UploadFile>({ name, data: data as unknown as number[] }))));
}

/**
 * Asks for a conversation file with the window's open dialog and imports it
 * (ConversationService.ImportFile); resolves with an empty conversation_id when the user
 * cancelled. Rejects with desktop_only in browser mode (use importConversation).
 */
export async function importConversationFile(): Promise<ConversationImport> {
  return conversationImport(await call('ImportFile', () => ConversationService.ImportFile()));
}
