// Typed wrappers over the generated Wails bindings (frontend/wailsjs). Every call resolves
// with plain, normalized objects or rejects with an ApiError; nothing else in the UI imports
// the bindings directly.

import * as ArtifactService from '../wailsjs/go/app/ArtifactService';
import * as ChatService from '../wailsjs/go/app/ChatService';
import * as ConversationService from '../wailsjs/go/app/ConversationService';
import * as SettingsService from '../wailsjs/go/app/SettingsService';
import { app } from '../wailsjs/go/models';
import { BrowserOpenURL, ClipboardSetText, EventsOn, OnFileDrop, OnFileDropOff } from '../wailsjs/runtime/runtime';
import { needsSetup, isErrorCode, parseErrorPayload, payloadOf, type ErrorPayload } from './errors';
import { parseEvent, type RunEvent } from './events';

/** The runtime event on which every run event arrives (app.RunEventName). */
export const RUN_EVENT_NAME = 'run:event';

/**
 * An error from a bound method, with the backend's stable code (app.AppError; the codes
 * and their fixes are in errors.ts). The backend rejects with the AppError's JSON text
 * (window and browser mode alike); its Error() form "<code>: <message>" is read too when
 * the code is one of ERROR_CODES; anything else gets code "error" and the whole text as
 * message. `code` is "unavailable" when no backend is attached to the page.
 */
export class ApiError extends Error {
  /** Machine-readable code, e.g. "invalid_settings"; "error" when the backend gave none. */
  readonly code: string;
  /** Field name → what is wrong with it (invalid_settings, validation; search_failed: "reason"). */
  readonly fields: Readonly<Record<string, string>>;
  /** The underlying error's text when the message replaces it ("" otherwise). */
  readonly detail: string;
  /** Trying again later may succeed. */
  readonly retryable: boolean;

  /** Creates an ApiError; `message` is shown to the user as is. */
  constructor(code: string, message: string, extra: { fields?: Record<string, string>; detail?: string; retryable?: boolean } = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.fields = extra.fields ?? {};
    this.detail = extra.detail ?? '';
    this.retryable = extra.retryable ?? false;
  }
}

const CODE_RE = /^([a-z][a-z0-9_]{0,63}):\s+([\s\S]+)$/;

/** The ApiError of a decoded AppError. */
function fromPayload(p: ErrorPayload): ApiError {
  return new ApiError(p.code, p.message === '' ? p.code : p.message, { fields: p.fields, detail: p.detail, retryable: p.retryable });
}

/**
 * Converts whatever a bound call rejected with (an Error or string holding an AppError's
 * JSON, an AppError object, a "code: message" text with a known code, or other) into an
 * ApiError (see ApiError).
 */
export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  let text: string;
  if (typeof e === 'string') {
    text = e;
  } else if (e instanceof Error) {
    text = e.message;
  } else if (typeof e === 'object' && e !== null) {
    const p = payloadOf(e);
    if (p !== null && p.message !== '') return fromPayload(p);
    const o = e as { message?: unknown; error?: unknown };
    const msg = typeof o.message === 'string' ? o.message : typeof o.error === 'string' ? o.error : '';
    text = msg !== '' ? msg : JSON.stringify(e);
  } else {
    text = String(e);
  }
  text = text.trim();
  const p = parseErrorPayload(text);
  if (p !== null) return fromPayload(p);
  const m = CODE_RE.exec(text);
  if (m?.[1] && m[2] && isErrorCode(m[1])) return new ApiError(m[1], m[2].trim());
  return new ApiError('error', text === '' ? 'Unknown error' : text);
}

/**
 * Reports whether `e` means the model is not set up (code model_not_configured or
 * invalid_settings), so the UI can offer to open the settings. Decided by the code only.
 */
export function isSettingsError(e: unknown): boolean {
  return needsSetup(toApiError(e).code);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return (typeof v === 'object' || typeof v === 'function') && v !== null;
}

/** window.go.app exists: the Wails runtime (or the browser-mode shim) is attached. */
function backendAttached(): boolean {
  const go: unknown = (window as unknown as Record<string, unknown>).go;
  return isObject(go) && isObject(go.app);
}

/** window.runtime exists. */
function runtimeAttached(): boolean {
  return isObject((window as unknown as Record<string, unknown>).runtime);
}

async function call<T>(fn: () => Promise<T>): Promise<T> {
  if (!backendAttached()) {
    throw new ApiError('unavailable', 'The ArtifactFlow backend is not connected to this page.');
  }
  try {
    return await fn();
  } catch (e) {
    throw toApiError(e);
  }
}

/** One row of the conversation list (app.ConversationSummary); times are RFC 3339. */
export interface Conversation {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
  running: boolean;
  /**
   * The status of the conversation's latest run (its active branch's last message); ""
   * without one. The sidebar marks error and interrupted as failed, cancelled as stopped.
   */
  last_status: MessageStatus | '';
}

/** Status of a stored message (app.MessageView.Status). */
export type MessageStatus = 'running' | 'complete' | 'cancelled' | 'error' | 'interrupted';

/** One user message and its answer (app.MessageView). */
export interface Message {
  id: string;
  parent_id: string;
  content: string;
  response: string;
  status: MessageStatus;
  error: string;
  created_at: string;
  /** Ids of the branches at this point of the message tree, oldest first, this one included. */
  sibling_ids: string[];
  /** This message's 0-based position in sibling_ids (navigator: ‹ index+1 / length ›). */
  sibling_index: number;
}

/** A conversation with the messages on its active branch, root first (app.ConversationDetail). */
export interface ConversationDetail {
  conversation: Conversation;
  messages: Message[];
}

/** One artifact in the panel's list (app.ArtifactSummary); size in bytes. */
export interface ArtifactSummary {
  id: string;
  title: string;
  content_type: string;
  version: number;
  source: string;
  size: number;
  preview: string;
  updated_at: string;
  unsaved: boolean;
}

/** One artifact with its content (app.ArtifactView). */
export interface ArtifactView extends ArtifactSummary {
  content: string;
}

/** How a stored artifact version came to be (store.Update*). */
export type UpdateType = 'create' | 'update' | 'update_fuzzy' | 'rewrite' | 'user_edit' | 'restore' | 'upload' | 'recover';

/**
 * One stored version of an artifact (app.VersionView). `size` is in bytes; `message` is the
 * start of the question whose run produced it ("" for the user's own edits and uploads);
 * `created_at` is RFC 3339. An update_type the UI does not know is kept as the raw string.
 */
export interface ArtifactVersion {
  version: number;
  /** An UpdateType, or a newer one the UI does not know (shown as is). */
  update_type: string;
  source: string;
  size: number;
  message_id: string;
  message: string;
  created_at: string;
}

/** One stored version with its content (app.VersionContent). */
export interface ArtifactVersionContent extends ArtifactVersion {
  content: string;
}

/** Formats ArtifactService.Export accepts. */
export type ExportFormat = 'markdown' | 'html' | 'docx';

/**
 * An exported artifact (app.ExportResult). In browser mode `data` holds the file as base64
 * and `saved_path` is ""; in the window the native dialog wrote the file to `saved_path`
 * and `data` is "". Both empty means the user cancelled the dialog.
 */
export interface ExportResult {
  filename: string;
  mime: string;
  /** The file's bytes, base64 (standard alphabet, padded); "" when nothing to download. */
  data: string;
  saved_path: string;
}

/** One file to upload from the page: its name and its bytes as base64 (app.UploadFile). */
export interface UploadFile {
  name: string;
  data: string;
}

/**
 * What became of one uploaded file (app.UploadResult). `error` non-empty means it failed
 * (the text is for the user); otherwise it is artifact `artifact_id` of
 * `conversation_id`. `readable` false: stored, but its text could not be extracted
 * (`note` says why). `size` is in bytes.
 */
export interface UploadResult {
  name: string;
  conversation_id: string;
  artifact_id: string;
  title: string;
  content_type: string;
  size: number;
  readable: boolean;
  note: string;
  error: string;
}

/**
 * The model of one kind of agent (app.AgentModelSettings): the lead, or the sub-agents
 * (search and crawl). Empty fields inherit the model above: model "" and tool_call_mode ""
 * its name and mode, context_window 0 its window (tokens). temperature (0–2), top_p (0–1)
 * and max_tokens (per answer) are sent to the model only when set (null / 0 = unset).
 */
export interface AgentModelSettings {
  model: string;
  tool_call_mode: string;
  context_window: number;
  temperature: number | null;
  top_p: number | null;
  max_tokens: number;
}

/** One web search provider as the dialog lists it (app.SearchProviderView). */
export interface SearchProvider {
  id: string;
  name: string;
  /** An API key is required. */
  needs_key: boolean;
  /** A server URL is required (SearXNG). */
  needs_url: boolean;
  /** Where to get a key (or how to run the server); "" when none. */
  key_url: string;
  /** A key for this provider is stored (the key itself is never sent). */
  key_stored: boolean;
}

/** The stored search choice (app.SearchView): provider in effect, providers with a stored key, Wikipedia's language. */
export interface SearchSettings {
  provider: string;
  keys_stored: string[];
  /** Wikipedia's language code; "" = from the question's script. */
  language: string;
}

/** The settings as shown in the dialog (app.SettingsView); the API key itself is never sent. */
export interface Settings {
  base_url: string;
  api_key_set: boolean;
  model: string;
  tool_call_mode: string;
  searxng_url: string;
  allow_private_network: boolean;
  /** Size limit of one uploaded file, in MiB (1–1024; the backend's default is 20). */
  max_upload_mb: number;
  data_dir: string;
  search: SearchSettings;
  /** Every provider, the default (DuckDuckGo) first. */
  search_providers: SearchProvider[];
  /** False when the provider in effect lacks its key or URL; search_problem says why. */
  search_ready: boolean;
  search_problem: string;
  lead: AgentModelSettings;
  sub_agents: AgentModelSettings;
  /**
   * What sets a field for this session instead of config.json, by field name ("model",
   * "base_url", "api_key", "lead.model", "search.provider", "search.keys.<id>" ...): the
   * command-line flag ("--model") or "OPENAI_API_KEY". The dialog shows such fields
   * read-only; Save keeps their stored values (issue 10, item 6).
   */
  set_by: Record<string, string>;
  /** Remote images in markdown: "ask" (load after a click on "Load images") or "always". */
  load_remote_images: RemoteImages;
}

/** Settings.load_remote_images: remote images load after a click ("ask") or at once ("always"). */
export type RemoteImages = 'ask' | 'always';

/**
 * The search part of SettingsInput (app.SearchInput): keys typed per provider id (an empty
 * or missing key keeps the stored one), providers whose stored key is removed, and
 * Wikipedia's language.
 */
export interface SearchInput {
  provider: string;
  keys: Record<string, string>;
  clear_keys: string[];
  language: string;
}

/** What the settings dialog saves (app.SettingsInput); empty api_key keeps the stored key. */
export interface SettingsInput {
  base_url: string;
  api_key: string;
  clear_api_key: boolean;
  model: string;
  tool_call_mode: string;
  searxng_url: string;
  allow_private_network: boolean;
  /** Size limit of one uploaded file, in MiB (1–1024; 0 = the default, 20). */
  max_upload_mb: number;
  /** Left out: the stored search choice and agent models are kept. */
  search?: SearchInput;
  lead?: AgentModelSettings;
  sub_agents?: AgentModelSettings;
  /** Left out: remote images are asked for ("ask"). */
  load_remote_images?: RemoteImages;
}

/** Ids of a run that has started (app.SendResult). */
export interface SendResult {
  conversation_id: string;
  message_id: string;
}

type Loose = Record<string, unknown>;
const s = (v: unknown): string => (typeof v === 'string' ? v : '');
const n = (v: unknown): number => (typeof v === 'number' ? v : 0);
const b = (v: unknown): boolean => v === true;
const o = (v: unknown): Loose => (typeof v === 'object' && v !== null ? (v as Loose) : {});
// Go encodes a nil slice as null.
const list = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);

/** The upload limit (MiB) when the settings do not give one (config default). */
export const DEFAULT_MAX_UPLOAD_MB = 20;

function artifactVersion(v: unknown): ArtifactVersion {
  const x = o(v);
  return {
    version: n(x.version),
    update_type: s(x.update_type),
    source: s(x.source),
    size: n(x.size),
    message_id: s(x.message_id),
    message: s(x.message),
    created_at: s(x.created_at),
  };
}

function uploadResult(v: unknown): UploadResult {
  const x = o(v);
  return {
    name: s(x.name),
    conversation_id: s(x.conversation_id),
    artifact_id: s(x.artifact_id),
    title: s(x.title),
    content_type: s(x.content_type),
    size: n(x.size),
    readable: b(x.readable),
    note: s(x.note),
    error: s(x.error),
  };
}

/** []byte fields arrive as base64 strings; tolerate a number array too. */
function bytesField(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    let bin = '';
    for (const x of v) bin += String.fromCharCode(typeof x === 'number' ? x & 0xff : 0);
    return btoa(bin);
  }
  return '';
}

const STATUSES: readonly MessageStatus[] = ['running', 'complete', 'cancelled', 'error', 'interrupted'];

function conversation(v: unknown): Conversation {
  const x = o(v);
  return {
    id: s(x.id),
    title: s(x.title),
    created_at: s(x.created_at),
    updated_at: s(x.updated_at),
    running: b(x.running),
    last_status: lastStatus(x.last_status),
  };
}

/** A conversation's last_status: a MessageStatus, or "" (no message yet, or unknown). */
export function lastStatus(v: unknown): MessageStatus | '' {
  return STATUSES.find((st) => st === v) ?? '';
}

function message(v: unknown): Message {
  const x = o(v);
  const status = STATUSES.find((st) => st === x.status) ?? 'complete';
  return {
    id: s(x.id),
    parent_id: s(x.parent_id),
    content: s(x.content),
    response: s(x.response),
    status,
    error: s(x.error),
    created_at: s(x.created_at),
    sibling_ids: list(x.sibling_ids).filter((id): id is string => typeof id === 'string'),
    sibling_index: n(x.sibling_index),
  };
}

function artifactSummary(v: unknown): ArtifactSummary {
  const x = o(v);
  return {
    id: s(x.id),
    title: s(x.title),
    content_type: s(x.content_type),
    version: n(x.version),
    source: s(x.source),
    size: n(x.size),
    preview: s(x.preview),
    updated_at: s(x.updated_at),
    unsaved: b(x.unsaved),
  };
}

const numOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Normalizes an app.AgentModelSettings (missing fields: inherit / unset). */
export function agentModelSettings(v: unknown): AgentModelSettings {
  const x = o(v);
  return {
    model: s(x.model),
    tool_call_mode: s(x.tool_call_mode),
    context_window: n(x.context_window),
    temperature: numOrNull(x.temperature),
    top_p: numOrNull(x.top_p),
    max_tokens: n(x.max_tokens),
  };
}

function searchProvider(v: unknown): SearchProvider {
  const x = o(v);
  return { id: s(x.id), name: s(x.name) || s(x.id), needs_key: b(x.needs_key), needs_url: b(x.needs_url), key_url: s(x.key_url), key_stored: b(x.key_stored) };
}

function settings(v: unknown): Settings {
  const x = o(v);
  const search = o(x.search);
  return {
    search: {
      // An older backend without providers searched SearXNG when its URL was set.
      provider: s(search.provider) || (s(x.searxng_url) !== '' ? 'searxng' : 'duckduckgo'),
      keys_stored: list(search.keys_stored).filter((k): k is string => typeof k === 'string'),
      language: s(search.language),
    },
    search_providers: list(x.search_providers).map(searchProvider).filter((p) => p.id !== ''),
    // An older backend without the field could search only when a SearXNG URL was set.
    search_ready: typeof x.search_ready === 'boolean' ? x.search_ready : s(x.searxng_url) !== '',
    search_problem: s(x.search_problem),
    lead: agentModelSettings(x.lead),
    sub_agents: agentModelSettings(x.sub_agents),
    set_by: Object.fromEntries(Object.entries(o(x.set_by)).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '')),
    load_remote_images: x.load_remote_images === 'always' ? 'always' : 'ask',
    base_url: s(x.base_url),
    api_key_set: b(x.api_key_set),
    model: s(x.model),
    tool_call_mode: s(x.tool_call_mode) || 'native',
    searxng_url: s(x.searxng_url),
    allow_private_network: b(x.allow_private_network),
    max_upload_mb: n(x.max_upload_mb) > 0 ? n(x.max_upload_mb) : DEFAULT_MAX_UPLOAD_MB,
    data_dir: s(x.data_dir),
  };
}

/** Starts a research run (ChatService.Send); empty conversationId starts a new conversation. */
export async function sendMessage(conversationId: string, content: string): Promise<SendResult> {
  const r = o(await call(() => ChatService.Send(new app.SendRequest({ conversation_id: conversationId, content }))));
  return { conversation_id: s(r.conversation_id), message_id: s(r.message_id) };
}

/** Cancels the run going in a conversation (ChatService.Stop); a no-op when none is. */
export async function stopRun(conversationId: string): Promise<void> {
  await call(() => ChatService.Stop(conversationId));
}

/** Ids of conversations with a run in progress (ChatService.Running). */
export async function runningConversations(): Promise<string[]> {
  return list(await call(() => ChatService.Running())).filter((x): x is string => typeof x === 'string');
}

/** Conversations, most recently updated first (ConversationService.List). */
export async function listConversations(): Promise<Conversation[]> {
  return list(await call(() => ConversationService.List())).map(conversation);
}

/** A conversation and the messages on its active branch (ConversationService.Get). */
export async function getConversation(id: string): Promise<ConversationDetail> {
  const r = o(await call(() => ConversationService.Get(id)));
  return { conversation: conversation(r.conversation), messages: list(r.messages).map(message) };
}

/**
 * The stored events of one message's run in seq order (ConversationService.Events). Entries
 * that are not valid events are dropped.
 */
export async function messageEvents(conversationId: string, messageId: string): Promise<RunEvent[]> {
  const raw = list(await call(() => ConversationService.Events(conversationId, messageId)));
  return raw.map(parseEvent).filter((e): e is RunEvent => e !== null);
}

/** Sets a conversation's title (ConversationService.Rename). */
export async function renameConversation(id: string, title: string): Promise<void> {
  await call(() => ConversationService.Rename(id, title));
}

/** Removes a conversation and everything in it (ConversationService.Delete). */
export async function deleteConversation(id: string): Promise<void> {
  await call(() => ConversationService.Delete(id));
}

/** The artifacts of a conversation (ArtifactService.List). */
export async function listArtifacts(conversationId: string): Promise<ArtifactSummary[]> {
  return list(await call(() => ArtifactService.List(conversationId))).map(artifactSummary);
}

/** One artifact with its content (ArtifactService.Get). */
export async function getArtifact(conversationId: string, artifactId: string): Promise<ArtifactView> {
  const r = await call(() => ArtifactService.Get(conversationId, artifactId));
  return { ...artifactSummary(r), content: s(o(r).content) };
}

/** The stored versions of an artifact, oldest first (ArtifactService.Versions). */
export async function listVersions(conversationId: string, artifactId: string): Promise<ArtifactVersion[]> {
  return list(await call(() => ArtifactService.Versions(conversationId, artifactId))).map(artifactVersion);
}

/** One stored version with its content (ArtifactService.Version); rejects for an unknown version. */
export async function getVersion(conversationId: string, artifactId: string, version: number): Promise<ArtifactVersionContent> {
  const r = await call(() => ArtifactService.Version(conversationId, artifactId, version));
  return { ...artifactVersion(r), content: s(o(r).content) };
}

/**
 * Saves the user's edit as a new version (ArtifactService.Save). `baseVersion` is the version
 * the editor started from. Rejects with code "conflict" (message: what to do) when the
 * artifact moved past it or the running research holds unsaved changes to it.
 */
export async function saveArtifact(conversationId: string, artifactId: string, baseVersion: number, content: string): Promise<ArtifactView> {
  const r = await call(() => ArtifactService.Save(conversationId, artifactId, baseVersion, content));
  return { ...artifactSummary(r), content: s(o(r).content) };
}

/**
 * Makes stored `version` the content of a new version (ArtifactService.Restore), with
 * saveArtifact's conflict rule on `baseVersion` (the current version the user saw).
 */
export async function restoreVersion(conversationId: string, artifactId: string, version: number, baseVersion: number): Promise<ArtifactView> {
  const r = await call(() => ArtifactService.Restore(conversationId, artifactId, version, baseVersion));
  return { ...artifactSummary(r), content: s(o(r).content) };
}

/**
 * Exports one version (0 = the current content) as markdown, html or docx
 * (ArtifactService.Export). See ExportResult for browser mode versus the window.
 */
export async function exportArtifact(conversationId: string, artifactId: string, version: number, format: ExportFormat): Promise<ExportResult> {
  const r = o(await call(() => ArtifactService.Export(conversationId, artifactId, version, format)));
  return { filename: s(r.filename), mime: s(r.mime), data: bytesField(r.data), saved_path: s(r.saved_path) };
}

/**
 * Uploads files sent from the page (ArtifactService.Upload); conversationId "" creates a
 * conversation. Each file gets its own result, failures included; the call itself rejects
 * only when nothing could be done (e.g. unknown conversation).
 */
export async function uploadFiles(conversationId: string, files: UploadFile[]): Promise<UploadResult[]> {
  // The bindings type UploadFile.data as number[]; on the wire a Go []byte is base64.
  const payload = files.map((f) => new app.UploadFile({ name: f.name, data: f.data }));
  return list(await call(() => ArtifactService.Upload(conversationId, payload))).map(uploadResult);
}

/**
 * Uploads files dropped on the desktop window by their absolute paths
 * (ArtifactService.UploadPaths); results as for uploadFiles.
 */
export async function uploadPaths(conversationId: string, paths: string[]): Promise<UploadResult[]> {
  return list(await call(() => ArtifactService.UploadPaths(conversationId, paths))).map(uploadResult);
}

/** The current settings (SettingsService.Get). */
export async function getSettings(): Promise<Settings> {
  return settings(await call(() => SettingsService.Get()));
}

/** Validates and stores settings (SettingsService.Save); rejects with the validation error. */
export async function saveSettings(input: SettingsInput): Promise<Settings> {
  return settings(await call(() => SettingsService.Save(new app.SettingsInput(input))));
}

/**
 * Calls `handler` with every run event (RUN_EVENT_NAME); payloads that are not events are
 * dropped. Returns the function that unsubscribes. Without a backend it does nothing.
 */
export function onRunEvent(handler: (ev: RunEvent) => void): () => void {
  if (!runtimeAttached()) return () => undefined;
  return EventsOn(RUN_EVENT_NAME, (payload: unknown) => {
    const ev = parseEvent(payload);
    if (ev !== null) handler(ev);
  });
}

/** The event the browser-mode shim emits each time its event stream (re)connects. */
export const CONNECTED_EVENT_NAME = 'browser:connected';

/**
 * Calls `handler` whenever the browser-mode event stream (re)connects; events may have been
 * missed meanwhile, so the UI reloads from the store. The desktop window never emits it.
 * Returns the function that unsubscribes.
 */
export function onReconnect(handler: () => void): () => void {
  if (!runtimeAttached()) return () => undefined;
  return EventsOn(CONNECTED_EVENT_NAME, () => handler());
}

/**
 * Reports whether the page runs in browser mode (`artifactflow serve`'s shim sets
 * window.runtime.__browserMode) or without any runtime (a plain dev server), as opposed to
 * the desktop window. Dropped files then arrive as HTML5 drop events with File objects;
 * in the window they arrive only through the runtime's OnFileDrop, as paths.
 */
export function isBrowserMode(): boolean {
  const rt: unknown = (window as unknown as Record<string, unknown>).runtime;
  return !isObject(rt) || rt.__browserMode === true;
}

/**
 * In the desktop window, calls `handler` with the absolute paths of files dropped anywhere
 * on it (runtime.OnFileDrop, not limited to drop targets). Returns the function that stops
 * listening. In browser mode it does nothing: drops come as HTML5 events there.
 */
export function onDesktopFileDrop(handler: (paths: string[]) => void): () => void {
  if (isBrowserMode()) return () => undefined;
  OnFileDrop((_x, _y, paths) => {
    const ps = Array.isArray(paths) ? paths.filter((p): p is string => typeof p === 'string' && p !== '') : [];
    if (ps.length > 0) handler(ps);
  }, false);
  return () => OnFileDropOff();
}

/** Reports whether `href` is a link the system browser may open (http, https or mailto). */
export function isExternalUrl(href: string): boolean {
  try {
    const u = new URL(href);
    return u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'mailto:';
  } catch {
    return false;
  }
}

/**
 * Opens `href` in the system browser (runtime.BrowserOpenURL) when it is an external link;
 * returns whether it did. The app window itself never navigates away.
 */
export function openExternal(href: string): boolean {
  if (!isExternalUrl(href)) return false;
  if (!runtimeAttached()) {
    window.open(href, '_blank', 'noopener,noreferrer');
    return true;
  }
  BrowserOpenURL(href);
  return true;
}

/**
 * Copies text to the system clipboard: through the runtime in the desktop window, through
 * navigator.clipboard in a browser. Resolves whether it worked; never rejects.
 */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (!isBrowserMode()) return await ClipboardSetText(text);
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
