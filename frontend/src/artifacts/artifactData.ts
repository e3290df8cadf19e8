// Loading artifact versions for the panel, the history and Compare. Stored versions never
// change, so their contents are cached for the session; the version list is reloaded
// whenever the artifact's current version or unsaved state changes.

import { useEffect, useState } from 'react';
import { getVersion, listVersions, type ArtifactVersion, type ArtifactVersionContent } from '../api/artifacts';
import { toApiError } from '../api/call';
import { restoreCandidates, type VersionRef } from './versions';

const contents = new Map<string, Promise<ArtifactVersionContent>>();

/**
 * One stored version with its content, cached per conversation, artifact and version (a
 * failed load is forgotten so it can be retried). Rejects with the ApiError of getVersion.
 */
export function fetchVersion(conversationId: string, artifactId: string, version: number): Promise<ArtifactVersionContent> {
  const key = `${conversationId}\u0000${artifactId}\u0000${String(version)}`;
  let p = contents.get(key);
  if (!p) {
    p = getVersion(conversationId, artifactId, version);
    contents.set(key, p);
    p.catch(() => contents.delete(key));
  }
  return p;
}

/** The version list of an artifact while it loads, once loaded, or after it failed. */
export interface VersionsState {
  versions: ArtifactVersion[];
  loading: boolean;
  error: string;
}

/**
 * Loads the stored versions of an artifact (oldest first) and reloads them whenever
 * `refreshKey` changes (e.g. current version + unsaved flag). Keeps showing the last list
 * while reloading.
 */
export function useVersions(conversationId: string, artifactId: string, refreshKey: string): VersionsState {
  const key = `${conversationId}\u0000${artifactId}`;
  const [state, setState] = useState<{ key: string; versions: ArtifactVersion[]; error: string; loadedFor: string } | null>(null);
  useEffect(() => {
    let stale = false;
    listVersions(conversationId, artifactId).then(
      (versions) => {
        if (!stale) setState({ key, versions, error: '', loadedFor: refreshKey });
      },
      (e: unknown) => {
        if (!stale) setState((s) => ({ key, versions: s?.key === key ? s.versions : [], error: toApiError(e).message, loadedFor: refreshKey }));
      },
    );
    return () => {
      stale = true;
    };
  }, [conversationId, artifactId, key, refreshKey]);
  if (state?.key !== key) return { versions: [], loading: true, error: '' };
  return { versions: state.versions, loading: state.loadedFor !== refreshKey, error: state.error };
}

/** Content of one version as the UI needs it: loading, loaded, or failed with a message. */
export interface ContentState {
  content: string;
  loading: boolean;
  error: string;
}

/**
 * The content of `ref`: the current content as given (`current`), or stored version `ref`
 * loaded through fetchVersion.
 */
export function useVersionContent(conversationId: string, artifactId: string, ref: VersionRef, current: ContentState): ContentState {
  const [loaded, setLoaded] = useState<{ key: string; content: string; error: string } | null>(null);
  const key = ref === 'current' ? '' : `${conversationId}\u0000${artifactId}\u0000${String(ref)}`;
  useEffect(() => {
    if (ref === 'current') return;
    let stale = false;
    fetchVersion(conversationId, artifactId, ref).then(
      (v) => {
        if (!stale) setLoaded({ key, content: v.content, error: '' });
      },
      (e: unknown) => {
        if (!stale) setLoaded({ key, content: '', error: toApiError(e).message });
      },
    );
    return () => {
      stale = true;
    };
  }, [conversationId, artifactId, ref, key]);
  if (ref === 'current') return current;
  if (loaded?.key !== key) return { content: '', loading: true, error: '' };
  return { content: loaded.content, loading: false, error: loaded.error };
}

/**
 * For each "restore" version, the version it copied, found by comparing its content with
 * the earlier versions of the same size (restoreCandidates). Versions not yet resolved, or
 * copied from nothing that matches, are absent from the map.
 */
export function useRestoredFrom(conversationId: string, artifactId: string, versions: readonly ArtifactVersion[]): ReadonlyMap<number, number> {
  const [found, setFound] = useState<{ key: string; map: Map<number, number> }>({ key: '', map: new Map() });
  const restores = versions.filter((v) => v.update_type === 'restore');
  const key = `${conversationId}\u0000${artifactId}\u0000${restores.map((v) => String(v.version)).join(',')}`;
  useEffect(() => {
    if (restores.length === 0) return;
    let stale = false;
    const map = new Map<number, number>();
    void Promise.all(
      restores.map(async (r) => {
        const candidates = restoreCandidates(versions, r);
        if (candidates.length === 0) return;
        try {
          const mine = await fetchVersion(conversationId, artifactId, r.version);
          for (const c of candidates) {
            const other = await fetchVersion(conversationId, artifactId, c);
            if (other.content === mine.content) {
              map.set(r.version, c);
              return;
            }
          }
        } catch {
          // Unknown origin: the history says "restored an earlier version".
        }
      }),
    ).then(() => {
      if (!stale) setFound({ key, map });
    });
    return () => {
      stale = true;
    };
    // `key` covers the restore versions; `versions` changes identity on every reload.
  }, [key]); // eslint-disable-line react-hooks/exhaustive-deps
  return found.key === key ? found.map : new Map();
}
