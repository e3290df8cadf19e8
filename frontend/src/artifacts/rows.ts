// The artifact panel's rows: the stored artifact list merged with the live snapshots of a run.

import type { ArtifactSummary } from '../api/artifacts';
import type { LiveArtifact } from '../run/events';

/** The id of the task plan artifact. */
export const TASK_PLAN_ID = 'task_plan';

/** One artifact row: the stored summary merged with the live snapshot, if any. */
export interface ArtifactRow {
  id: string;
  title: string;
  contentType: string;
  version: number;
  source: string;
  size: number;
  unsaved: boolean;
  /** Content from the live snapshot; undefined when it must be loaded from the store. */
  content?: string;
}

/**
 * Merges the stored list with live artifact_changed snapshots: a snapshot whose version is
 * not older than the stored one wins and carries its content and unsaved state. Stored order is kept; artifacts
 * only known live are appended in id order.
 */
export function mergeArtifacts(stored: ArtifactSummary[], live: Record<string, LiveArtifact>): ArtifactRow[] {
  const rows: ArtifactRow[] = stored.map((a) => {
    const l = live[a.id];
    const base: ArtifactRow = {
      id: a.id,
      title: a.title,
      contentType: a.content_type,
      version: a.version,
      source: a.source,
      size: a.size,
      unsaved: a.unsaved,
    };
    return !l || l.snapshot.version < a.version ? base : fromLive(l);
  });
  const known = new Set(stored.map((a) => a.id));
  for (const [id, l] of Object.entries(live).sort(([a], [b]) => a.localeCompare(b))) {
    if (!known.has(id)) rows.push(fromLive(l));
  }
  return rows;
}

function fromLive(l: LiveArtifact): ArtifactRow {
  const s = l.snapshot;
  return {
    id: s.id,
    title: s.title,
    contentType: s.content_type,
    version: s.version,
    source: s.source,
    size: new TextEncoder().encode(s.content).length,
    unsaved: l.unsaved,
    content: s.content,
  };
}

/** Whether a row is a file the user uploaded (not made by the agent). */
export const isUpload = (r: ArtifactRow) => r.source === 'user_upload' || r.source === 'upload';
