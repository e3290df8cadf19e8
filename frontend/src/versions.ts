// Pure helpers for the artifact version UI: labels for update types, what produced a
// version, the choices of the version selector and the default pair to compare.

import type { ArtifactVersion } from './api';
import { clip } from './format';

/** A version to show or compare: a stored version number, or the current content. */
export type VersionRef = number | 'current';

/** The current state of an artifact as the panel knows it. */
export interface CurrentState {
  /** The current version number (may be ahead of the stored ones during a run). */
  version: number;
  /** The running research holds changes not stored yet. */
  unsaved: boolean;
}

const UPDATE_LABELS: Record<string, string> = {
  create: 'Created',
  update: 'Updated',
  update_fuzzy: 'Updated (approximate match)',
  rewrite: 'Rewritten',
  user_edit: 'Your edit',
  restore: 'Restored',
  upload: 'Uploaded',
  recover: 'Recovered draft',
};

/** A readable label for an update_type ("user_edit" -> "Your edit"); unknown types as is. */
export function updateTypeLabel(updateType: string): string {
  return UPDATE_LABELS[updateType] ?? (updateType === '' ? 'Changed' : updateType.replace(/_/g, ' '));
}

/**
 * The headline of a version in the history: its update type ("Updated", "Rewritten"), or
 * what the user did: "Your edit", "Uploaded", "Restored v3" (when `restoredFrom` is known,
 * else "Restored an earlier version"), "Recovered draft".
 */
export function versionTitle(v: ArtifactVersion, restoredFrom?: number): string {
  if (v.update_type === 'restore') return restoredFrom !== undefined ? `Restored v${String(restoredFrom)}` : 'Restored an earlier version';
  if (v.update_type === 'user_edit' || (v.update_type === '' && v.source === 'user')) return 'Your edit';
  if (v.update_type === 'upload' || (v.update_type === '' && v.source === 'user_upload')) return 'Uploaded';
  return updateTypeLabel(v.update_type);
}

/**
 * The question whose run produced a version, clipped to `max` characters; "" for the
 * user's own edits, restores and uploads (which no question produced).
 */
export function versionQuestion(v: ArtifactVersion, max = 120): string {
  if (v.update_type === 'user_edit' || v.update_type === 'restore' || v.update_type === 'upload') return '';
  return v.message === '' ? '' : clip(v.message, max);
}

/**
 * The stored versions a "restore" version may have been copied from: the earlier versions
 * of the same size in bytes, latest first. (The list does not say which version was
 * restored; comparing the contents of these few finds it.)
 */
export function restoreCandidates(versions: readonly ArtifactVersion[], restored: ArtifactVersion): number[] {
  return versions
    .filter((v) => v.version < restored.version && v.size === restored.size)
    .map((v) => v.version)
    .sort((a, b) => b - a);
}

/**
 * Whether the current content is a version of its own in the selector: true when it is
 * ahead of the newest stored version (a run's unsaved changes) or nothing is stored yet.
 */
export function currentIsExtra(versions: readonly ArtifactVersion[], current: CurrentState): boolean {
  const last = versions.at(-1);
  return current.unsaved || last === undefined || current.version > last.version;
}

/** One choice of a version selector. */
export interface VersionChoice {
  ref: VersionRef;
  /** The version number shown ("v4"). */
  version: number;
  label: string;
}

/**
 * The choices of the version selector, newest first: the current content ("v5 · current",
 * "v5 · current, unsaved" while a run holds changes), then every stored version not equal
 * to it, labelled with its update type ("v3 · Your edit").
 */
export function versionChoices(versions: readonly ArtifactVersion[], current: CurrentState): VersionChoice[] {
  const extra = currentIsExtra(versions, current);
  const out: VersionChoice[] = [
    {
      ref: 'current',
      version: current.version,
      label: `v${String(current.version)} · current${current.unsaved ? ', unsaved' : ''}`,
    },
  ];
  for (const v of [...versions].reverse()) {
    if (!extra && v.version === current.version) continue;
    out.push({ ref: v.version, version: v.version, label: `v${String(v.version)} · ${updateTypeLabel(v.update_type)}` });
  }
  return out;
}

/**
 * The pair Compare opens with, older first: the viewed old version against the current
 * content, else the version before the current one against the current one. With nothing
 * to compare (a single version) both are "current".
 */
export function defaultComparePair(versions: readonly ArtifactVersion[], current: CurrentState, viewing: VersionRef): [VersionRef, VersionRef] {
  if (viewing !== 'current') return [viewing, 'current'];
  const stored = versions.map((v) => v.version);
  // The current content is either a version of its own (then the newest stored one came
  // before it) or the newest stored version (then the one stored before that did).
  const previous = currentIsExtra(versions, current) ? stored.at(-1) : stored.filter((n) => n < current.version).at(-1);
  return [previous ?? 'current', 'current'];
}

/** "v3", or "v5 (current)" for the current content; for labels of compared versions. */
export function refLabel(ref: VersionRef, current: CurrentState): string {
  return ref === 'current' ? `v${String(current.version)} (current)` : `v${String(ref)}`;
}
