import { useCallback, useEffect, useRef, useState } from 'react';
import { getImage, uploadFiles, uploadPaths, type UploadResult } from '../api/artifacts';
import { toApiError } from '../api/call';
import { readAsBase64, uploadErrorText, uploadProblem } from '../files/files';
import { i18n } from '../i18n/i18n';
import { MAX_QUESTION_IMAGES } from './images';

/** One picture in the composer: a thumbnail chip until the question is sent. */
export interface ComposerImage {
  key: string;
  name: string;
  /** A data URL of the picture ("" until it can be shown). */
  url: string;
  status: 'uploading' | 'ready' | 'failed';
  /** The upload artifact that keeps it ("" until uploaded). */
  artifactId: string;
  /** Why it failed, in the UI's language ("" otherwise). */
  error: string;
}

/** The composer's pictures (useComposerImages). */
export interface ComposerImages {
  items: ComposerImage[];
  /** The conversation the pictures were uploaded into ("" before the first one is). */
  conversationId: string;
  /** Artifact ids of the pictures ready to send, in order. */
  ids: string[];
  /** A picture is still uploading: Send waits. */
  busy: boolean;
  addFiles: (files: File[]) => void;
  addPaths: (paths: string[]) => void;
  remove: (key: string) => void;
  clear: () => void;
}

let nextKey = 0;
const newKey = () => `img-${String(++nextKey)}`;

/**
 * The pictures pasted or dropped into the composer. Each is uploaded at once into the open
 * conversation (ArtifactService.Upload; with none open, the first creates one and the rest
 * go into it), so it is kept among the uploads and Send names it by its artifact id; files
 * over the upload limit or past MAX_QUESTION_IMAGES fail alone, with the reason on their
 * chip. `onUploaded` is told the conversation that now holds them (to refresh the list and
 * the panel). Opening another conversation clears the pictures of the one left.
 */
export function useComposerImages(conversationId: string | null, maxUploadMb: number, onUploaded: (conversationId: string) => void): ComposerImages {
  const [items, setItems] = useState<ComposerImage[]>([]);
  const [target, setTarget] = useState('');
  const conv = useRef(target || conversationId || '');
  const counted = useRef(new Set<string>()); // keys of the pictures within MAX_QUESTION_IMAGES
  const queue = useRef<Promise<void>>(Promise.resolve());
  const done = useRef(onUploaded);
  useEffect(() => {
    done.current = onUploaded;
  });
  const targetRef = useRef(target);
  useEffect(() => {
    conv.current = target || conversationId || '';
    targetRef.current = target;
  }, [target, conversationId]);
  // Pictures belong to the conversation they were uploaded into: opening another one (or
  // none, for a new research) leaves them behind.
  useEffect(() => {
    if (targetRef.current !== '' && conversationId !== targetRef.current) {
      setItems([]);
      setTarget('');
      counted.current.clear();
      conv.current = conversationId ?? '';
    }
  }, [conversationId]);

  const patch = useCallback((key: string, f: (it: ComposerImage) => ComposerImage) => {
    setItems((list) => list.map((it) => (it.key === key ? f(it) : it)));
  }, []);

  /** Applies an upload's result to chip `key`; returns the conversation it went into. */
  const settle = useCallback(
    (key: string, r: UploadResult | undefined): string => {
      if (!r || r.error !== '') {
        const error = r ? uploadErrorText(r.name, r) : i18n.t('chat:images.failed');
        patch(key, (it) => ({ ...it, status: 'failed', error }));
        return r?.conversation_id ?? '';
      }
      patch(key, (it) => ({ ...it, status: 'ready', artifactId: r.artifact_id }));
      return r.conversation_id;
    },
    [patch],
  );

  const admit = useCallback((names: string[]): { key: string; name: string; error: string }[] => {
    return names.map((name) => {
      const key = newKey();
      const over = counted.current.size >= MAX_QUESTION_IMAGES;
      if (!over) counted.current.add(key);
      return { key, name, error: over ? i18n.t('chat:images.tooMany', { max: MAX_QUESTION_IMAGES }) : '' };
    });
  }, []);

  const finish = useCallback((into: string) => {
    if (into === '') return;
    setTarget(into);
    conv.current = into;
    targetRef.current = into;
    done.current(into);
  }, []);

  const addFiles = useCallback(
    (files: File[]) => {
      if (files.length === 0) return;
      const batch = admit(files.map((f) => f.name)).map((a, i) => {
        const file = files[i] as File;
        return { ...a, file, error: a.error || uploadProblem(file, maxUploadMb) };
      });
      setItems((list) => [
        ...list,
        ...batch.map((b) => ({ key: b.key, name: b.name, url: '', status: b.error ? ('failed' as const) : ('uploading' as const), artifactId: '', error: b.error })),
      ]);
      queue.current = queue.current.then(async () => {
        for (const b of batch) {
          if (b.error) continue;
          try {
            const data = await readAsBase64(b.file);
            patch(b.key, (it) => ({ ...it, url: `data:${b.file.type || 'image/png'};base64,${data}` }));
            const [r] = await uploadFiles(conv.current, [{ name: b.name, data }]);
            finish(settle(b.key, r));
          } catch (e) {
            patch(b.key, (it) => ({ ...it, status: 'failed', error: toApiError(e).message }));
          }
        }
      });
    },
    [admit, finish, maxUploadMb, patch, settle],
  );

  const addPaths = useCallback(
    (paths: string[]) => {
      if (paths.length === 0) return;
      const batch = admit(paths.map((p) => p.split(/[\\/]/).pop() ?? p)).map((a, i) => ({ ...a, path: paths[i] as string }));
      setItems((list) => [
        ...list,
        ...batch.map((b) => ({ key: b.key, name: b.name, url: '', status: b.error ? ('failed' as const) : ('uploading' as const), artifactId: '', error: b.error })),
      ]);
      queue.current = queue.current.then(async () => {
        for (const b of batch) {
          if (b.error) continue;
          try {
            const [r] = await uploadPaths(conv.current, [b.path]);
            const into = settle(b.key, r);
            finish(into);
            if (r && r.error === '' && r.artifact_id) {
              const im = await getImage(into, r.artifact_id);
              patch(b.key, (it) => ({ ...it, url: im.url }));
            }
          } catch (e) {
            patch(b.key, (it) => ({ ...it, status: 'failed', error: toApiError(e).message }));
          }
        }
      });
    },
    [admit, finish, patch, settle],
  );

  const remove = useCallback((key: string) => {
    counted.current.delete(key);
    setItems((list) => list.filter((x) => x.key !== key));
  }, []);
  const clear = useCallback(() => {
    setItems([]);
    counted.current.clear();
  }, []);

  const ids = items.filter((it) => it.status === 'ready' && it.artifactId !== '').map((it) => it.artifactId);
  return { items, conversationId: target, ids, busy: items.some((it) => it.status === 'uploading'), addFiles, addPaths, remove, clear };
}
