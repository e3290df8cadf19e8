// Typed wrappers over the bound calls of the conversation features (issue 4, item 10):
// branches (edit and resend, regenerate, switch), history paging, search, queued messages,
// permission answers, recovered drafts and the context/tool settings. Like api.ts, every call
// resolves with normalized objects or rejects with an ApiError; nothing else in the UI
// imports these bindings.

import * as ArtifactService from '../wailsjs/go/app/ArtifactService';
import * as ChatService from '../wailsjs/go/app/ChatService';
import * as ConversationService from '../wailsjs/go/app/ConversationService';
import * as SettingsService from '../wailsjs/go/app/SettingsService';
import { app } from '../wailsjs/go/models';
import { getConversation, lastStatus, type Conversation, type ConversationDetail, type SendResult } from './api';
import { callService as call, asString as s, asNumber as n, asBool as b, asObject as o, asList as list } from './api-call';
import { parseEvent, type RunEvent } from './events';

/**
 * Edit and resend (ChatService.Send with edit_of): `content` becomes a new sibling of the
 * question `messageId` (a new branch, made active) and a run starts for it. Rejects like
 * sendMessage, and with code message_not_found for a message outside the conversation.
 */
export async function sendEdited(conversationId: string, messageId: string, content: string): Promise<SendResult> {
  const r = o(
    await call('ChatService', 'Send', () =>
      ChatService.Send(new app.SendRequest({ conversation_id: conversationId, content, edit_of: messageId })),
    ),
  );
  return { conversation_id: s(r.conversation_id), message_id: s(r.message_id) };
}

/**
 * Runs question `messageId` again as a new answer beside the old one
 * (ChatService.Regenerate): a new sibling with the same content, made the active branch.
 */
export async function regenerate(conversationId: string, messageId: string): Promise<SendResult> {
  const r = o(await call('ChatService', 'Regenerate', () => ChatService.Regenerate(conversationId, messageId)));
  return { conversation_id: s(r.conversation_id), message_id: s(r.message_id) };
}

/**
 * What became of a message sent during a run (app.QueueResult): `queued` with `queuedId`
 * when the running lead takes it at its next round; otherwise a new run was started and
 * `run` names it (handle it like a sendMessage result).
 */
export interface QueueResult {
  queued: boolean;
  queuedId: string;
  run: SendResult;
}

/** Sends `content` to the research going in a conversation (ChatService.Queue); see QueueResult. */
export async function queueMessage(conversationId: string, content: string): Promise<QueueResult> {
  const r = o(await call('ChatService', 'Queue', () => ChatService.Queue(conversationId, content)));
  const run = o(r.run);
  return {
    queued: b(r.queued),
    queuedId: s(r.queued_id),
    run: { conversation_id: s(run.conversation_id) || conversationId, message_id: s(run.message_id) },
  };
}

/** The answers a user can give to a permission request. */
export type PermissionReply = 'approve' | 'deny' | 'always_allow';

/**
 * Answers permission request `requestId` of the run going in a conversation
 * (ChatService.Respond). always_allow also stores the tool as "auto" in the settings.
 * Rejects when the request is unknown or already decided (it may have timed out).
 */
export async function respondPermission(conversationId: string, requestId: string, decision: PermissionReply): Promise<void> {
  await call('ChatService', 'Respond', () => ChatService.Respond(conversationId, requestId, decision));
}

/**
 * Shows another branch (ConversationService.SwitchBranch with the sibling to show): the
 * branch below `messageId` to its newest end becomes active. Resolves with the
 * conversation as getConversation returns it.
 */
export async function switchBranch(conversationId: string, messageId: string): Promise<ConversationDetail> {
  await call('ConversationService', 'SwitchBranch', () => ConversationService.SwitchBranch(conversationId, messageId));
  return getConversation(conversationId);
}

/** One conversation found by searchConversations, with `snippet` (plain text) around the match. */
export interface SearchHit extends Conversation {
  snippet: string;
}

/**
 * Conversations whose title or message text contains every term of `query`, best first,
 * at most 100 (ConversationService.Search). Snippets are plain text; highlight them with
 * highlightTerms, never as HTML.
 */
export async function searchConversations(query: string): Promise<SearchHit[]> {
  return list(await call('ConversationService', 'Search', () => ConversationService.Search(query))).map((v) => {
    const x = o(v);
    return {
      id: s(x.id),
      title: s(x.title),
      created_at: s(x.created_at),
      updated_at: s(x.updated_at),
      running: b(x.running),
      last_status: lastStatus(x.last_status),
      snippet: s(x.snippet),
    };
  });
}

/**
 * Cursors of one history page request (app.HistoryRequest), event seqs, exclusive:
 * `latest` for the newest page; `before_seq` for older events; `after_seq` for newer.
 * `limit` is the page size (backend default 200, at most 1000).
 */
export interface HistoryRequest {
  before_seq?: number;
  after_seq?: number;
  limit?: number;
  latest?: boolean;
}

/**
 * One page of a conversation's history (app.HistoryPage): stored events of the active
 * branch in ascending seq; firstSeq/lastSeq are 0 for an empty page.
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
  const r = o(
    await call('ConversationService', 'History', () => ConversationService.History(conversationId, new app.HistoryRequest(req))),
  );
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
 * An artifact's unsaved state left by a run the app did not finish (app.DraftView).
 * base_version: the version the run started from (0 = the run created it);
 * current_version: the stored version now (0 = none); size in bytes; saved_at RFC 3339.
 */
export interface Draft {
  artifact_id: string;
  message_id: string;
  title: string;
  content_type: string;
  content: string;
  size: number;
  base_version: number;
  current_version: number;
  question: string;
  saved_at: string;
}

/** The recovered drafts of a conversation, newest first (ArtifactService.Drafts); [] when none. */
export async function listDrafts(conversationId: string): Promise<Draft[]> {
  return list(await call('ArtifactService', 'Drafts', () => ArtifactService.Drafts(conversationId))).map((v) => {
    const x = o(v);
    return {
      artifact_id: s(x.artifact_id),
      message_id: s(x.message_id),
      title: s(x.title),
      content_type: s(x.content_type),
      content: s(x.content),
      size: n(x.size),
      base_version: n(x.base_version),
      current_version: n(x.current_version),
      question: s(x.question),
      saved_at: s(x.saved_at),
    };
  });
}

/**
 * Saves a recovered draft as a new version of its artifact, or creates the artifact
 * (ArtifactService.KeepDraft). Rejects when the draft is gone or a run is changing the
 * artifact now (code conflict).
 */
export async function keepDraft(conversationId: string, artifactId: string, messageId: string): Promise<void> {
  await call('ArtifactService', 'KeepDraft', () => ArtifactService.KeepDraft(conversationId, artifactId, messageId));
}

/** Deletes a recovered draft; the stored artifact stays as it is (ArtifactService.DiscardDraft). */
export async function discardDraft(conversationId: string, artifactId: string, messageId: string): Promise<void> {
  await call('ArtifactService', 'DiscardDraft', () => ArtifactService.DiscardDraft(conversationId, artifactId, messageId));
}

/** A tool's permission policy: run at once, or ask the user first. */
export type ToolPolicy = 'auto' | 'confirm';

/**
 * The model-context and tool settings (part of app.SettingsView / SettingsInput). Token
 * counts are tokens; context_window 0 = by model name (effective_context_window is the
 * one in use); compact_at_percent 50–95 (0 = 80); permission_timeout_seconds 1–3600 (0 = 120).
 */
export interface ConversationSettings {
  /** The chosen model, whose context the window and threshold are. */
  model: string;
  context_window: number;
  effective_context_window: number;
  compact_at_percent: number;
  tool_permissions: Record<string, ToolPolicy>;
  permission_timeout_seconds: number;
}

/** The compaction threshold when the settings give none (engine.DefaultCompactAt). */
export const DEFAULT_COMPACT_AT_PERCENT = 80;
/** The permission wait when the settings give none, in seconds (engine default). */
export const DEFAULT_PERMISSION_TIMEOUT_SECONDS = 120;

/** The model-context and tool settings (from SettingsService.Get); defaults filled in. */
export async function getConversationSettings(): Promise<ConversationSettings> {
  const x = o(await call('SettingsService', 'Get', () => SettingsService.Get()));
  const perms: Record<string, ToolPolicy> = {};
  for (const [tool, p] of Object.entries(o(x.tool_permissions))) {
    if (p === 'auto' || p === 'confirm') perms[tool] = p;
  }
  return {
    model: s(x.model),
    context_window: n(x.context_window),
    effective_context_window: n(x.effective_context_window),
    compact_at_percent: n(x.compact_at_percent) || DEFAULT_COMPACT_AT_PERCENT,
    tool_permissions: perms,
    permission_timeout_seconds: n(x.permission_timeout_seconds) || DEFAULT_PERMISSION_TIMEOUT_SECONDS,
  };
}

/**
 * One model's context settings (app.ModelContextView; issue 4, a threshold per model):
 * context_window in tokens as set (0 = by model name), effective_context_window the one in
 * use, compact_at_percent the compaction threshold in percent of it.
 */
export interface ModelContext {
  model: string;
  context_window: number;
  effective_context_window: number;
  compact_at_percent: number;
}

/**
 * The context settings stored for `model` (SettingsService.ModelContext), which need not be
 * the chosen model: the settings dialog shows them while the user types a model's name.
 * Rejects with ApiError (code "unsupported" on a backend without per-model settings).
 */
export async function getModelContext(model: string): Promise<ModelContext> {
  const x = o(await call('SettingsService', 'ModelContext', () => SettingsService.ModelContext(model)));
  return {
    model: s(x.model),
    context_window: n(x.context_window),
    effective_context_window: n(x.effective_context_window),
    compact_at_percent: n(x.compact_at_percent) || DEFAULT_COMPACT_AT_PERCENT,
  };
}

/** The name of the browser event sent after the settings were saved (the meter reloads them). */
export const SETTINGS_SAVED_EVENT = 'af:settings-saved';
