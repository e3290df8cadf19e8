import { useMemo } from 'react';
import type { ArtifactSummary } from '../api/artifacts';
import { mergeArtifacts } from '../artifacts/ArtifactPanel';
import type { ConversationRuns } from '../run/events';

/**
 * The open conversation's artifacts for the panel (stored ones merged with the live state
 * of the runs) and their titles by id (for the chips under an answer).
 */
export function useArtifactRows(selectedId: string | null, stored: { conversationId: string; items: ArtifactSummary[] } | null, conv: ConversationRuns | undefined) {
  const live = conv?.artifacts;
  const rows = useMemo(
    () => (selectedId === null ? [] : mergeArtifacts(stored?.conversationId === selectedId ? stored.items : [], live ?? {})),
    [selectedId, stored, live],
  );
  const titles = useMemo(() => Object.fromEntries(rows.map((r) => [r.id, r.title])), [rows]);
  return { rows, titles };
}
