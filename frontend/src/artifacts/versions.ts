// Pure helpers for the artifact version UI: labels for update types, what produced a
// version, the choices of the version selector and the default pair to compare.

import type { ArtifactVersion } from '../api/artifacts';
import { clip } from '../shared/format';
import { i18n } from '../i18n/i18n';

/** A version to show or compare: a stored version number, or the current content. */
export type VersionRef = number | 'current';

/** The current state of an artifact as the panel knows it. */
export interface CurrentState {
  /** The current version number (may be ahead of the stored ones during a run). */
  version: number;
  /** The running research holds changes not stored yet. */
  unsaved: boolean;
}

// The update types with a label of their own, each under artifacts:updateType.<type>.
// i18n-keys: artifacts:updateType.create artifacts:updateType.update artifacts:updateType.update_fuzzy
// i18n-keys: artifacts:updateType.rewrite artifacts:updateType.user_edit artifacts:updateType.restore
// i18n-keys: artifacts:updateType.upload artifacts:updateType.recover
const UPDATE_TYPES: ReadonlySet<string> = new Set(['create', 'update', 'update_fuzzy', 'rewrite', 'user_edit', 'restore', 'upload', 'recover']);

/**
 * A readable label for an update_type in the UI's language ("user_edit" -> "Your edit");
 * unknown types as is, with spaces for underscores.
 */
export function updateTypeLabel(updateType: string): string {
  if (UPDATE_TYPES.has(updateType)) return i18n.t(`artifacts:updateType.${updateType}`);
  return updateType === '' ? i18n.t('artifacts:updateType.changed') : updateType.replace(/_/g, ' ');
}

/**
 * The headline of a version in the history: its update type ("Updated", "Rewritten"), or
 * what the user did: "Your edit", "Uploaded", "Restored v3" (when `restoredFrom` is known,
 * else "Restored an earlier version"), "Recovered draft".
 */
export function versionTitle(v: ArtifactVersion, restoredFrom?: number): string {
  if (v.update_type === 'restore') {
    return restoredFrom !== undefined ? i18n.t('artifacts:version.restoredFrom', { version: restoredFrom }) : i18n.t('artifacts:version.restoredEarlier');
  }
  if (v.update_type === 'user_edit' || (v.update_type === '' && v.source === 'user')) return i18n.t('artifacts:updateType.user_edit');
  if (v.update_type === 'upload' || (v.update_type === '' && v.source === 'user_upload')) return i18n.t('artifacts:updateType.upload');
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
  /** The option's text, short enough for the narrow selector ("v6 · draft"). */
  label: string;
  /** The whole explanation, for the selector's tooltip. */
  title: string;
}

/**
 * What the selector and the history say about a run's live version, in the UI's language:
 * during a run the in-memory version goes up by one per change (the model reads and cites
 * those numbers), but the run stores only its final state, as one version under the last
 * number, when it ends. So the live number is a draft, not a version the history will list.
 */
export function draftExplained(): string {
  return i18n.t('artifacts:version.draftExplained');
}

/**
 * The choices of the version selector, newest first: the current content ("v5 · current",
 * or "v5 · draft" while a run holds changes not stored yet, see draftExplained), then every
 * stored version not equal to it, labelled with its update type ("v3 · Your edit").
 */
export function versionChoices(versions: readonly ArtifactVersion[], current: CurrentState): VersionChoice[] {
  const extra = currentIsExtra(versions, current);
  const out: VersionChoice[] = [
    {
      ref: 'current',
      version: current.version,
      label: current.unsaved ? i18n.t('artifacts:version.draftLabel', { version: current.version }) : i18n.t('artifacts:version.currentLabel', { version: current.version }),
      title: current.unsaved
        ? i18n.t('artifacts:version.draftTitle', { version: current.version, explained: draftExplained() })
        : i18n.t('artifacts:version.currentTitle', { version: current.version }),
    },
  ];
  for (const v of [...versions].reverse()) {
    if (!extra && v.version === current.version) continue;
    const label = i18n.t('artifacts:version.choice', { version: v.version, type: updateTypeLabel(v.update_type) });
    out.push({ ref: v.version, version: v.version, label, title: label });
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
  return ref === 'current' ? i18n.t('artifacts:version.currentRef', { version: current.version }) : `v${String(ref)}`;
}

/**
 * The note under a stored version whose number skips earlier numbers, in plain words: a run
 * numbers each of its changes but keeps only its finished text, so a report written in two
 * steps is first seen as v2. "Numbered v2 after 2 steps of its run: the research keeps its
 * finished text, not each step." when the stored version before it (0 when none) is more
 * than one below it, else "". See draftExplained.
 */
export function draftsNote(versions: readonly ArtifactVersion[], v: ArtifactVersion): string {
  const before = versions.filter((x) => x.version < v.version).reduce((n, x) => Math.max(n, x.version), 0);
  const steps = v.version - before;
  return steps < 2 ? '' : i18n.t('artifacts:version.stepsNote', { version: v.version, steps });
}

/**
 * The note under a version an agent's edit made by changing the passage closest to the
 * text it asked for (update_type update_fuzzy): what happened and that the user may want
 * to check it; "" for any other version.
 */
export function fuzzyNote(v: ArtifactVersion): string {
  return v.update_type === 'update_fuzzy' ? i18n.t('artifacts:version.fuzzyNote') : '';
}

/**
 * Which version of an artifact the shown branch of the conversation stands for:
 *   - 'latest' (ref 'current'): the current content is this branch's, or no run made it
 *     (uploads, the user's own edits), or the branch is not known, or a run is changing it;
 *   - 'branch' (ref the stored version): a run on another branch changed the artifact
 *     after this branch's last run did, so ref is the version this branch's last run
 *     produced (the report the answer on screen was written with);
 *   - 'other' (ref 'current'): only runs of other branches wrote it.
 * branch holds the ids of the messages on the shown branch (root first); a version's
 * message_id is the run that stored it ("" for none).
 */
export interface BranchVersion {
  ref: VersionRef;
  why: 'latest' | 'branch' | 'other';
}

/** The version of the shown branch (see BranchVersion) among versions (oldest first). */
export function branchVersion(versions: readonly ArtifactVersion[], current: CurrentState, branch: readonly string[] | undefined): BranchVersion {
  const latest: BranchVersion = { ref: 'current', why: 'latest' };
  if (branch === undefined || branch.length === 0 || current.unsaved) return latest;
  const on = new Set(branch);
  const byRuns = versions.filter((v) => v.message_id !== '');
  if (byRuns.length === 0) return latest;
  const mine = byRuns.filter((v) => on.has(v.message_id)).at(-1);
  if (mine === undefined) return { ref: 'current', why: 'other' };
  const later = byRuns.some((v) => v.version > mine.version && !on.has(v.message_id));
  if (!later) return latest;
  return { ref: mine.version, why: 'branch' };
}
