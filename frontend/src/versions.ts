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
 * What produced a version, for the history list: the question of the run that wrote it
 * (clipped to `max` characters), else "your edit", "upload", "restored v3" (when
 * `restoredFrom` is known), "restored an earlier version", "recovered from an interrupted
 * run", or "" when nothing is known.
 */
export function versionOrigin(v: ArtifactVersion, restoredFrom?: number, max = 120): string {
  switch (v.update_type) {
    case 'user_edit':
      return 'your edit';
    case 'upload':
      return 'upload';
    case 'restore':
      return restoredFrom !== undefined ? `restored v${String(restoredFrom)}` : 'restored an earlier version';
    case 'recover':
      return v.message !== '' ? `recovered: ${clip(v.message, max)}` : 'recovered from an interrupted run';
  }
  if (v.message !== '') return clip(v.message, max);
  if (v.source === 'user') return 'your edit';
  if (v.source === 'user_upload') return 'upload';
  return '';
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
