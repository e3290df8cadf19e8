// Typed wrappers over the bound calls of the artifact panel's "Links & files" (seed 002's
// declared artifacts) and of deleting documents (issue 8, items 9 and 10). Like api.ts,
// every call resolves with normalized objects or rejects with an ApiError; nothing else in
// the UI imports these bindings.

import * as ArtifactService from '../wailsjs/go/app/ArtifactService';
import { callService, asString as s, asObject as o, asList as list } from './api-call';

/** Runs the bound call ArtifactService.`method` (callService). */
const call = <T>(method: string, fn: () => Promise<T>): Promise<T> => callService('ArtifactService', method, fn);

/** How a declared artifact is stored (seed 002); other values may come from newer backends. */
export type DeclaredStorage = 'workspace' | 'managed' | 'external_url' | 'published';

/**
 * A declared artifact (events.DeclaredArtifact, seed 002's DaemonSessionArtifact): a link or
 * a file in the conversation's workspace that a tool (record_artifact), a hook or a local
 * client registered. `title` and `description` are plain text from outside the app: render
 * them as text, never as HTML or Markdown. `url` is set for links, `workspacePath` (relative
 * to the workspace folder) for workspace files. `status` is "available" or "missing";
 * `missingReason` says why it is missing. Unknown enumeration values are kept as strings.
 * Times are RFC 3339; `sizeBytes` is null when unknown.
 */
export interface DeclaredArtifact {
  id: string;
  /** html, image, video, audio, pdf, notebook, file, link, other (or newer). */
  kind: string;
  storage: string;
  title: string;
  description: string;
  /** available or missing (or newer). */
  status: string;
  /** tool, hook or client (or newer). */
  source: string;
  workspacePath: string;
  managedId: string;
  url: string;
  mimeType: string;
  sizeBytes: number | null;
  toolName: string;
  hookName: string;
  createdAt: string;
  updatedAt: string;
  missingReason: string;
}

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
 * Opens the folder holding a workspace file in the system's file manager
 * (ArtifactService.RevealDeclared), with OpenDeclared's checks and refusals.
 */
export async function revealDeclared(conversationId: string, artifactId: string): Promise<void> {
  await call('RevealDeclared', () => ArtifactService.RevealDeclared(conversationId, artifactId));
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
