// The content of the artifact panel's task plan and selected artifact.

import { useEffect, useState } from 'react';
import { getArtifact } from '../api/artifacts';
import type { ArtifactRow } from './rows';

/** An artifact's content while it loads, once loaded, or after it failed. */
export interface LoadedContent {
  content: string;
  error: string;
  loading: boolean;
}

/** Loads an artifact's content (again when its version changes) unless the live snapshot has it. */
export function useArtifactContent(conversationId: string | null, row: ArtifactRow | undefined): LoadedContent {
  const [loaded, setLoaded] = useState<{ key: string; content?: string; error?: string } | null>(null);
  const id = row?.id ?? '';
  const version = row?.version ?? 0;
  const key = `${conversationId ?? ''}/${id}/${String(version)}`;
  const needsLoad = conversationId !== null && row !== undefined && row.content === undefined;
  useEffect(() => {
    if (!needsLoad) return;
    let stale = false;
    getArtifact(conversationId, id).then(
      (a) => {
        if (!stale) setLoaded({ key, content: a.content });
      },
      (e: unknown) => {
        if (!stale) setLoaded({ key, error: e instanceof Error ? e.message : String(e) });
      },
    );
    return () => {
      stale = true;
    };
  }, [needsLoad, conversationId, id, key]);
  if (row?.content !== undefined) return { content: row.content, error: '', loading: false };
  if (loaded?.key === key) return { content: loaded.content ?? '', error: loaded.error ?? '', loading: false };
  return { content: '', error: '', loading: needsLoad };
}
