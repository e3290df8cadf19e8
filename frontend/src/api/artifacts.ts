// ArtifactService (app/artifacts.go): the conversation's documents (list, content, versions,
// saving and restoring an edit, export, uploads, deletion), recovered drafts, and the
// artifact panel's declared "Links & files". Each function is one bound call through
// callService plus the normalization of its answer; declaredArtifact, artifactChange and
// applyDeclaredChange also read the artifact_changed events of the same data.

import * as ArtifactService from '../../wailsjs/go/app/ArtifactService';
import type { app, events } from '../../wailsjs/go/models';
import { callService, asString as s, asNumber as n, asBool as b, asObject as o, asList as list, type Model, wire } from './call';

/** Runs the bound call ArtifactService.`method` (callService). */
const call = <T>(method: string, fn: () => Promise<T>): Promise<T> => callService('ArtifactService', method, fn);

/** One artifact in the panel's list (app.ArtifactSummary); size in bytes, updated_at RFC 3339. */
export type ArtifactSummary = Model<app.ArtifactSummary>;

/** One artifact with its content (app.ArtifactView). */
export type ArtifactView = Model<app.ArtifactView>;

/** How a stored artifact version came to be (store.Update*; VersionView.update_type, a Go string). */
export type UpdateType = 'create' | 'update' | 'update_fuzzy' | 'rewrite' | 'user_edit' | 'restore' | 'upload' | 'recover';

/**
 * One stored version of an artifact (app.VersionView). `size` is in bytes; `message` is the
 * start of the question whose run produced it ("" for the user's own edits and uploads);
 * `created_at` is RFC 3339. `update_type` is an UpdateType, or a newer one the UI does not
 * know (shown as is).
 */
export type ArtifactVersion = Model<app.VersionView>;

/** One stored version with its content (app.VersionContent). */
export type ArtifactVersionContent = Model<app.VersionContent>;

/** Formats ArtifactService.Export accepts (its format argument, a Go string). */
export type ExportFormat = 'markdown' | 'html' | 'docx';

/**
 * An exported artifact (app.ExportResult). In browser mode `data` holds the file as base64
 * (standard alphabet, padded: Go's []byte on the wire) and `saved_path` is ""; in the window
 * the native dialog wrote the file to `saved_path` and `data` is "". Both empty means the
 * user cancelled the dialog.
 */
export type ExportResult = Omit<Model<app.ExportResult>, 'data'> & { data: string };

/** One file to upload from the page (app.UploadFile): its name and its bytes as base64. */
export type UploadFile = Omit<Model<app.UploadFile>, 'data'> & { data: string };

/** One part of an upload's note (app.UploadNotePart): its code and values. */
export interface UploadNotePart {
  code: string;
  args: Record<string, string>;
}

/**
 * What became of one uploaded file (app.UploadResult). `error` non-empty means it failed
 * (the backend's English text; `error_code` its AppError code and `error_args` its values,
 * for file_too_large "size" in bytes, "limit_mb" and "at_least"); otherwise it is
 * artifact `artifact_id` of `conversation_id`. `readable` false: stored, but its text
 * could not be extracted (`note` says why in English, `note_parts` by kind). `size` is
 * in bytes.
 */
export type UploadResult = Omit<Model<app.UploadResult>, 'note_parts' | 'error_code' | 'error_args'> & {
  note_parts?: UploadNotePart[];
  error_code?: string;
  error_args?: Record<string, string>;
};

/** A string map from a JSON object: entries whose values are strings. */
function stringMap(v: unknown): Record<string, string> {
  return Object.fromEntries(Object.entries(o(v)).filter((e): e is [string, string] => typeof e[1] === 'string'));
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

function artifactView(v: unknown): ArtifactView {
  return { ...artifactSummary(v), content: s(o(v).content) };
}

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
    note_parts: list(x.note_parts)
      .map((p) => ({ code: s(o(p).code), args: stringMap(o(p).args) }))
      .filter((p) => p.code !== ''),
    error_code: s(x.error_code),
    error_args: stringMap(x.error_args),
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

/** The artifacts of a conversation (ArtifactService.List). */
export async function listArtifacts(conversationId: string): Promise<ArtifactSummary[]> {
  return list(await call('List', () => ArtifactService.List(conversationId))).map(artifactSummary);
}

/** One artifact with its content (ArtifactService.Get). */
export async function getArtifact(conversationId: string, artifactId: string): Promise<ArtifactView> {
  return artifactView(await call('Get', () => ArtifactService.Get(conversationId, artifactId)));
}

/** The stored versions of an artifact, oldest first (ArtifactService.Versions). */
export async function listVersions(conversationId: string, artifactId: string): Promise<ArtifactVersion[]> {
  return list(await call('Versions', () => ArtifactService.Versions(conversationId, artifactId))).map(artifactVersion);
}

/** One stored version with its content (ArtifactService.Version); rejects for an unknown version. */
export async function getVersion(conversationId: string, artifactId: string, version: number): Promise<ArtifactVersionContent> {
  const r = await call('Version', () => ArtifactService.Version(conversationId, artifactId, version));
  return { ...artifactVersion(r), content: s(o(r).content) };
}

/**
 * Saves the user's edit as a new version (ArtifactService.Save). `baseVersion` is the version
 * the editor started from. Rejects with code "conflict" (message: what to do) when the
 * artifact moved past it or the running research holds unsaved changes to it.
 */
export async function saveArtifact(conversationId: string, artifactId: string, baseVersion: number, content: string): Promise<ArtifactView> {
  return artifactView(await call('Save', () => ArtifactService.Save(conversationId, artifactId, baseVersion, content)));
}

/**
 * Makes stored `version` the content of a new version (ArtifactService.Restore), with
 * saveArtifact's conflict rule on `baseVersion` (the current version the user saw).
 */
export async function restoreVersion(conversationId: string, artifactId: string, version: number, baseVersion: number): Promise<ArtifactView> {
  return artifactView(await call('Restore', () => ArtifactService.Restore(conversationId, artifactId, version, baseVersion)));
}

/**
 * Exports one version (0 = the current content) as markdown, html or docx
 * (ArtifactService.Export). See ExportResult for browser mode versus the window.
 */
export async function exportArtifact(conversationId: string, artifactId: string, version: number, format: ExportFormat): Promise<ExportResult> {
  const r = o(await call('Export', () => ArtifactService.Export(conversationId, artifactId, version, format)));
  return { filename: s(r.filename), mime: s(r.mime), data: bytesField(r.data), saved_path: s(r.saved_path) };
}

/**
 * exportArtifact with the Mermaid diagrams the page drew (ArtifactService.ExportWithDiagrams):
 * `diagrams` maps a ```mermaid block's source (mermaid.mermaidKey) to its SVG
 * (mermaid.drawMermaidForExport). The html export shows each such block as its diagram,
 * cleaned again by the backend; other blocks, and the markdown and docx exports, keep the
 * source. More than 50 diagrams is refused (invalid_request).
 */
export async function exportArtifactWithDiagrams(conversationId: string, artifactId: string, version: number, format: ExportFormat, diagrams: Record<string, string>): Promise<ExportResult> {
  const r = o(await call('ExportWithDiagrams', () => ArtifactService.ExportWithDiagrams(conversationId, artifactId, version, format, diagrams)));
  return { filename: s(r.filename), mime: s(r.mime), data: bytesField(r.data), saved_path: s(r.saved_path) };
}

/**
 * Opens the folder holding a file that Export saved (its `saved_path`) in the system's
 * file manager (ArtifactService.RevealExport). The backend accepts only paths it exported in
 * this session; browser mode refuses the call (desktop_only), and the page shows the action
 * only in the window.
 */
export async function revealExport(savedPath: string): Promise<void> {
  await call('RevealExport', () => ArtifactService.RevealExport(savedPath));
}

/**
 * Uploads files sent from the page (ArtifactService.Upload); conversationId "" creates a
 * conversation. Each file gets its own result, failures included; the call itself rejects
 * only when nothing could be done (e.g. unknown conversation).
 */
export async function uploadFiles(conversationId: string, files: UploadFile[]): Promise<UploadResult[]> {
  // The bindings type UploadFile.data as number[]; on the wire a Go []byte is base64.
  const payload = files.map((f) => wire<app.UploadFile>({ name: f.name, data: f.data as unknown as number[] }));
  return list(await call('Upload', () => ArtifactService.Upload(conversationId, payload))).map(uploadResult);
}

/**
 * Uploads files dropped on the desktop window by their absolute paths
 * (ArtifactService.UploadPaths); results as for uploadFiles.
 */
export async function uploadPaths(conversationId: string, paths: string[]): Promise<UploadResult[]> {
  return list(await call('UploadPaths', () => ArtifactService.UploadPaths(conversationId, paths))).map(uploadResult);
}

/**
 * Deletes a document (agent-written or uploaded, the task plan included) with all its
 * versions (ArtifactService.DeleteArtifact). Rejects with code "conflict" while the running
 * research holds unsaved changes to it, "not_found"-like errors when it is already gone. An
 * artifact_changed event (action "removed", reason "explicit") follows.
 */
export async function deleteArtifact(conversationId: string, artifactId: string): Promise<void> {
  await call('DeleteArtifact', () => ArtifactService.DeleteArtifact(conversationId, artifactId));
}

/**
 * An artifact's unsaved state left by a run the app did not finish (app.DraftView).
 * base_version: the version the run started from (0 = the run created it);
 * current_version: the stored version now (0 = none); size in bytes; saved_at RFC 3339.
 */
export type Draft = Omit<Model<app.DraftView>, 'saved_at'> & { saved_at: string };

/** The recovered drafts of a conversation, newest first (ArtifactService.Drafts); [] when none. */
export async function listDrafts(conversationId: string): Promise<Draft[]> {
  return list(await call('Drafts', () => ArtifactService.Drafts(conversationId))).map((v) => {
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
  await call('KeepDraft', () => ArtifactService.KeepDraft(conversationId, artifactId, messageId));
}

/** Deletes a recovered draft; the stored artifact stays as it is (ArtifactService.DiscardDraft). */
export async function discardDraft(conversationId: string, artifactId: string, messageId: string): Promise<void> {
  await call('DiscardDraft', () => ArtifactService.DiscardDraft(conversationId, artifactId, messageId));
}

/** How a declared artifact is stored; other values may come from newer backends. */
export type DeclaredStorage = 'workspace' | 'managed' | 'external_url' | 'published';

/**
 * A declared artifact (events.DeclaredArtifact): a link or a file in the conversation's
 * workspace that a tool (record_artifact), a hook or a local client registered. `title` and
 * `description` are plain text from outside the app: render them as text, never as HTML or
 * Markdown. `url` is set for links, `workspacePath` (relative to the workspace folder) for
 * workspace files. `status` is "available" or "missing"; `missingReason` says why it is
 * missing. Unknown enumeration values are kept as strings. Times are RFC 3339; `sizeBytes`
 * is null when unknown. `kind`: html, image, video, audio, pdf, notebook, file, link, other;
 * `status`: available or missing; `source`: tool, hook or client (or newer values, kept as
 * strings). The tool call id, client flag and metadata of the Go type are not read by the
 * UI.
 */
export type DeclaredArtifact = Omit<Model<events.DeclaredArtifact>, 'toolCallId' | 'clientRetained' | 'metadata' | 'sizeBytes'> & {
  sizeBytes: number | null;
};

/**
 * Normalizes one declared artifact as it arrives from a bound call or an artifact_changed
 * event (Go's JSON: missing fields, null). Returns null when it has no id.
 */
export function declaredArtifact(v: unknown): DeclaredArtifact | null {
  const x = o(v);
  const id = s(x.id);
  if (id === '') return null;
  const size = x.sizeBytes;
  return {
    id,
    kind: s(x.kind) || 'other',
    storage: s(x.storage),
    title: s(x.title),
    description: s(x.description),
    status: s(x.status) || 'available',
    source: s(x.source),
    workspacePath: s(x.workspacePath),
    managedId: s(x.managedId),
    url: s(x.url),
    mimeType: s(x.mimeType),
    sizeBytes: typeof size === 'number' && Number.isFinite(size) && size >= 0 ? size : null,
    toolName: s(x.toolName),
    hookName: s(x.hookName),
    createdAt: s(x.createdAt),
    updatedAt: s(x.updatedAt),
    missingReason: s(x.missingReason),
  };
}

/**
 * The declared artifacts of a conversation, oldest first (ArtifactService.ListDeclared): the
 * snapshot the panel resyncs to when a conversation opens and after a reconnect. Rejects with
 * an ApiError (code "unsupported" when the backend has no such method).
 */
export async function listDeclared(conversationId: string): Promise<DeclaredArtifact[]> {
  const raw = list(await call('ListDeclared', () => ArtifactService.ListDeclared(conversationId)));
  return raw.map(declaredArtifact).filter((a): a is DeclaredArtifact => a !== null);
}

/**
 * Declares a link the user adds in Links & files (ArtifactService.AddLink): `title` and
 * `url` are checked by the declared store exactly as any client's input (http and https
 * only, lengths, no control characters or markup). Resolves with the artifact as stored
 * (null when the same link was already there unchanged); an artifact_changed event
 * follows. Rejects with an ApiError: code "validation" with `fields.title` or `fields.url`
 * holding the store's reason (declaredFieldError translates it), "not_found" for an unknown
 * conversation.
 */
export async function addLink(conversationId: string, title: string, url: string): Promise<DeclaredArtifact | null> {
  const raw = await call('AddLink', () => ArtifactService.AddLink(conversationId, title, url));
  const a = declaredArtifact(raw);
  return a !== null && a.id !== '' ? a : null;
}

/**
 * Publishes an HTML artifact (ArtifactService.Publish): its current version is written as
 * one self-contained .html file into the conversation's workspace folder (a taken name gets
 * a number, nothing is overwritten) and declared as a published artifact, which Links &
 * files lists and opens. Resolves with that artifact (null if the store reported none) and
 * the file's absolute path. Rejects with an ApiError ("invalid_request" for an artifact
 * that is not HTML, "not_found").
 */
export async function publishArtifact(conversationId: string, artifactId: string): Promise<{ artifact: DeclaredArtifact | null; path: string }> {
  const raw = o(await call('Publish', () => ArtifactService.Publish(conversationId, artifactId)));
  const a = declaredArtifact(raw.artifact);
  return { artifact: a !== null && a.id !== '' ? a : null, path: s(raw.path) };
}

/**
 * Removes a declared artifact from the conversation (ArtifactService.RemoveDeclared); the
 * link or file it points to is untouched. Removing one already gone is not an error. An
 * artifact_changed event (action "removed", reason "explicit") follows.
 */
export async function removeDeclared(conversationId: string, artifactId: string): Promise<void> {
  await call('RemoveDeclared', () => ArtifactService.RemoveDeclared(conversationId, artifactId));
}

/**
 * Opens a workspace file with the system's default application (ArtifactService.OpenDeclared)
 * after the backend checked again that it exists inside the workspace. Rejects with the
 * reason otherwise, and always in browser mode (code "desktop_only"). Links are opened with
 * openExternal instead.
 */
export async function openDeclared(conversationId: string, artifactId: string): Promise<void> {
  await call('OpenDeclared', () => ArtifactService.OpenDeclared(conversationId, artifactId));
}

/**
 * Opens a workspace file the conversation cites as a source (its `location`, e.g.
 * "notes/moon.md") with the system's default application (ArtifactService.OpenSourceFile),
 * under OpenDeclared's checks. Rejects with the reason otherwise (not_a_file for an upload,
 * which the page shows in the panel instead), and always in browser mode (desktop_only).
 */
export async function openSourceFile(conversationId: string, path: string): Promise<void> {
  await call('OpenSourceFile', () => ArtifactService.OpenSourceFile(conversationId, path));
}

/**
 * Opens the folder holding a workspace file in the system's file manager
 * (ArtifactService.RevealDeclared), with OpenDeclared's checks and refusals.
 */
export async function revealDeclared(conversationId: string, artifactId: string): Promise<void> {
  await call('RevealDeclared', () => ArtifactService.RevealDeclared(conversationId, artifactId));
}

/** What an artifact_changed event says about the panel's artifacts. */
export type ArtifactChange =
  | { kind: 'declared'; action: 'created' | 'updated'; artifactId: string; artifact: DeclaredArtifact }
  | { kind: 'declared'; action: 'removed'; artifactId: string; reason: string }
  | { kind: 'document-removed'; artifactId: string; reason: string };

/**
 * Reads an artifact_changed event's data (events.DataArtifactChanged) for the panel: a
 * declared artifact created, updated or removed (data.declared set), or a document removed
 * (action "removed" without data.declared; its id in data.artifact.id or data.artifactId).
 * Returns null for anything else, e.g. a run's document snapshot (handled by events.ts).
 */
export function artifactChange(type: string, data: Record<string, unknown>): ArtifactChange | null {
  if (type !== 'artifact_changed') return null;
  const action = s(data.action);
  const reason = s(data.reason);
  if (data.declared !== undefined && data.declared !== null) {
    const artifact = declaredArtifact(data.declared);
    const artifactId = s(data.artifactId) || (artifact?.id ?? '');
    if (artifactId === '') return null;
    if (action === 'removed') return { kind: 'declared', action, artifactId, reason };
    if ((action === 'created' || action === 'updated') && artifact !== null && artifact.id === artifactId) {
      return { kind: 'declared', action, artifactId, artifact };
    }
    return null;
  }
  if (action === 'removed') {
    const artifactId = s(o(data.artifact).id) || s(data.artifactId);
    return artifactId === '' ? null : { kind: 'document-removed', artifactId, reason };
  }
  return null;
}

/**
 * Applies one declared change to a list (oldest first): created and updated replace the
 * artifact with the same id in place, or append it; removed drops it. Applying the same
 * change twice gives the same list (the window may hear a change from the run and from the
 * store). Returns `items` itself when nothing changed.
 */
export function applyDeclaredChange(items: readonly DeclaredArtifact[], ch: ArtifactChange): DeclaredArtifact[] {
  if (ch.kind !== 'declared') return items as DeclaredArtifact[];
  const at = items.findIndex((a) => a.id === ch.artifactId);
  if (ch.action === 'removed') return at < 0 ? (items as DeclaredArtifact[]) : items.filter((a) => a.id !== ch.artifactId);
  if (at < 0) return [...items, ch.artifact];
  const next = items.slice();
  next[at] = ch.artifact;
  return next;
}

/**
 * A picture the user uploaded, ready to show (app.ImageView): its name, media type, size
 * in pixels and a data URL of its original bytes.
 */
export interface ImageData {
  name: string;
  mime: string;
  width: number;
  height: number;
  url: string;
}

/**
 * The picture upload `artifactId` of a conversation holds (ArtifactService.Image), as a
 * data URL. Rejects with not_found for an unknown artifact, invalid_request when it is not
 * an uploaded picture, file_unavailable when its original is gone.
 */
export async function getImage(conversationId: string, artifactId: string): Promise<ImageData> {
  const r = o(await call('Image', () => ArtifactService.Image(conversationId, artifactId)));
  const mime = s(r.mime);
  // A Go []byte arrives as base64 (typed number[] by the bindings).
  const data = typeof r.data === 'string' ? r.data : '';
  return { name: s(r.name), mime, width: n(r.width), height: n(r.height), url: `data:${mime};base64,${data}` };
}
