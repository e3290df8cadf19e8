import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { uploadFiles, uploadPaths, type UploadResult } from '../api/artifacts';
import { toApiError } from '../api/call';
import { isBrowserMode, onDesktopFileDrop } from '../api/runtime';
import { dragHasFiles, readAsBase64, uploadErrorText, uploadNoteText, uploadProblem } from './files';
import { formatBytes } from '../shared/format';
import { i18n } from '../i18n/i18n';
import { FileIcon, UploadIcon } from '../artifacts/artifact-icons';
import { AlertIcon, CheckIcon, Spinner, XIcon } from '../shared/icons';

/** The state of one file in the uploads tray. */
export type UploadStatus = 'waiting' | 'reading' | 'uploading' | 'done' | 'failed';

/** One file in the uploads tray. */
export interface UploadItem {
  key: string;
  name: string;
  /** Bytes; -1 when unknown (desktop drops give paths only). */
  size: number;
  status: UploadStatus;
  /** Why it failed (status "failed"). */
  error: string;
  /** A note about a stored file, e.g. why its text could not be read. */
  note: string;
  /** False when the file was stored but its text could not be extracted. */
  readable: boolean;
  artifactId: string;
  conversationId: string;
}

/** What a finished batch of uploads produced. */
export interface UploadedBatch {
  conversationId: string;
  /** Ids of the artifacts created, in the order the files were given. */
  artifactIds: string[];
  /** The batch created a new conversation (it was dropped with none open). */
  created: boolean;
}

/** Options of useUploads. */
export interface UploadsOptions {
  /** The open conversation; null uploads into a new one. */
  conversationId: string | null;
  /** The upload limit in MiB (settings.max_upload_mb). */
  maxUploadMb: number;
  /** Called after each batch with at least one stored file. */
  onUploaded: (batch: UploadedBatch) => void;
}

/** What useUploads gives the window. */
export interface Uploads {
  items: UploadItem[];
  /** Files are being dragged over the window. */
  dragging: boolean;
  /** Uploads File objects (drop in browser mode, or the "Add files" input). */
  addFiles: (files: File[], rejected?: { name: string; error: string }[]) => void;
  /** Removes finished items from the tray (running ones stay). */
  clearFinished: () => void;
  /** Removes one item from the tray. */
  dismiss: (key: string) => void;
}

let counter = 0;
const newKey = () => `u${String(++counter)}`;

function fromResult(item: UploadItem, r: UploadResult | undefined): UploadItem {
  if (!r) return { ...item, status: 'failed', error: i18n.t('workspace:upload.noReport') };
  if (r.error !== '') return { ...item, status: 'failed', error: uploadErrorText(item.name, r), conversationId: r.conversation_id };
  return {
    ...item,
    status: 'done',
    size: item.size >= 0 ? item.size : r.size,
    readable: r.readable,
    note: uploadNoteText(r),
    artifactId: r.artifact_id,
    conversationId: r.conversation_id,
  };
}

/**
 * Uploads dropped and picked files and tracks them for the tray. In browser mode, files
 * dragged anywhere onto the window show the overlay and, when dropped, are read and sent
 * with ArtifactService.Upload, one file per call (each fails alone; files over the limit
 * are refused before they are read). In the desktop window drops arrive only through the
 * runtime's OnFileDrop as paths and go to UploadPaths; HTML5 drop events are never used for
 * uploading there, so no drop is handled twice. Batches run one after another; a batch
 * with no conversation open creates one, and the rest of that batch goes into it.
 */
export function useUploads({ conversationId, maxUploadMb, onUploaded }: UploadsOptions): Uploads {
  const [items, setItems] = useState<UploadItem[]>([]);
  const [dragging, setDragging] = useState(false);
  const conv = useRef(conversationId);
  const limit = useRef(maxUploadMb);
  const done = useRef(onUploaded);
  const queue = useRef<Promise<void>>(Promise.resolve());
  useEffect(() => {
    conv.current = conversationId;
    limit.current = maxUploadMb;
    done.current = onUploaded;
  });

  const patch = useCallback((key: string, f: (it: UploadItem) => UploadItem) => {
    setItems((list) => list.map((it) => (it.key === key ? f(it) : it)));
  }, []);

  const finish = (target: string, created: boolean, results: UploadItem[]) => {
    const ids = results.filter((r) => r.status === 'done').map((r) => r.artifactId);
    if (ids.length > 0 && target !== '') done.current({ conversationId: target, artifactIds: ids, created });
  };

  const addFiles = useCallback(
    (files: File[], rejected: { name: string; error: string }[] = []) => {
      const base = { error: '', note: '', readable: true, artifactId: '', conversationId: '' };
      const batch: { item: UploadItem; file: File | null }[] = [
        ...rejected.map((r) => ({ item: { ...base, key: newKey(), name: r.name, size: -1, status: 'failed' as const, error: r.error }, file: null })),
        ...files.map((f) => {
          const problem = uploadProblem(f, limit.current);
          const item: UploadItem = { ...base, key: newKey(), name: f.name, size: f.size, status: problem ? 'failed' : 'waiting', error: problem };
          return { item, file: problem ? null : f };
        }),
      ];
      if (batch.length === 0) return;
      setItems((list) => [...list, ...batch.map((b) => b.item)]);
      queue.current = queue.current.then(async () => {
        let target = conv.current ?? '';
        const created = target === '';
        const results: UploadItem[] = [];
        for (const { item, file } of batch) {
          if (!file) continue;
          patch(item.key, (it) => ({ ...it, status: 'reading' }));
          let next: UploadItem;
          try {
            const data = await readAsBase64(file);
            patch(item.key, (it) => ({ ...it, status: 'uploading' }));
            const [r] = await uploadFiles(target, [{ name: file.name, data }]);
            next = fromResult(item, r);
          } catch (e) {
            next = { ...item, status: 'failed', error: toApiError(e).message };
          }
          if (next.conversationId !== '') target = next.conversationId;
          results.push(next);
          patch(item.key, () => next);
        }
        finish(target, created, results);
      });
    },
    [patch],
  );

  const addPaths = useCallback(
    (paths: string[]) => {
      const name = (p: string) => p.split(/[\\/]/).pop() ?? p;
      const batch: UploadItem[] = paths.map((p) => ({
        key: newKey(),
        name: name(p),
        size: -1,
        status: 'uploading',
        error: '',
        note: '',
        readable: true,
        artifactId: '',
        conversationId: '',
      }));
      setItems((list) => [...list, ...batch]);
      queue.current = queue.current.then(async () => {
        const target = conv.current ?? '';
        let results: UploadItem[];
        try {
          const rs = await uploadPaths(target, paths);
          // Results name files by base name; match them in order, each used once.
          const left = [...rs];
          results = batch.map((it) => {
            const i = left.findIndex((r) => r.name === it.name);
            const r = i >= 0 ? left.splice(i, 1)[0] : undefined;
            return fromResult(it, r);
          });
        } catch (e) {
          const msg = toApiError(e).message;
          results = batch.map((it) => ({ ...it, status: 'failed', error: msg }));
        }
        setItems((list) => list.map((it) => results.find((r) => r.key === it.key) ?? it));
        const conversation = results.find((r) => r.conversationId !== '')?.conversationId ?? target;
        finish(conversation, target === '', results);
      });
    },
    [],
  );

  // Dropping files on the window: see listenForDrops.
  useEffect(() => listenForDrops(isBrowserMode(), setDragging, addFiles, addPaths), [addFiles, addPaths]);

  const clearFinished = useCallback(() => {
    setItems((list) => list.filter((it) => it.status !== 'done' && it.status !== 'failed'));
  }, []);
  const dismiss = useCallback((key: string) => {
    setItems((list) => list.filter((it) => it.key !== key));
  }, []);

  return { items, dragging, addFiles, clearFinished, dismiss };
}

/** Props of DropOverlay. */
export interface DropOverlayProps {
  /** A conversation is open (else the files start a new research). */
  hasConversation: boolean;
  maxUploadMb: number;
}

/** The full-window hint shown while files are dragged over the window. */
export function DropOverlay({ hasConversation, maxUploadMb }: DropOverlayProps) {
  const { t } = useTranslation('workspace');
  return (
    <div className="drop-overlay" role="status" aria-live="polite">
      <div className="drop-card">
        <span className="drop-icon">
          <UploadIcon size={26} />
        </span>
        <strong>{hasConversation ? t('upload.dropAdd') : t('upload.dropNew')}</strong>
        <span className="muted">{t('upload.dropTypes', { mb: maxUploadMb })}</span>
      </div>
    </div>
  );
}

/** Props of UploadTray. */
export interface UploadTrayProps {
  items: UploadItem[];
  onOpen: (item: UploadItem) => void;
  onDismiss: (key: string) => void;
  onClear: () => void;
}

/**
 * The uploads tray (bottom right): each file with its state — waiting, reading,
 * uploading, added (with a note when its text could not be read) or failed with the
 * reason. Added files open on click. The close button removes finished files.
 */
export function UploadTray({ items, onOpen, onDismiss, onClear }: UploadTrayProps) {
  const { t } = useTranslation('workspace');
  if (items.length === 0) return null;
  const statusText: Record<UploadStatus, string> = {
    waiting: t('upload.waiting'),
    reading: t('upload.reading'),
    uploading: t('upload.uploading'),
    done: t('upload.done'),
    failed: t('upload.failed'),
  };
  const running = items.filter((it) => it.status === 'waiting' || it.status === 'reading' || it.status === 'uploading').length;
  const failed = items.filter((it) => it.status === 'failed').length;
  const added = items.filter((it) => it.status === 'done').length;
  const summary =
    running > 0
      ? t('upload.running', { running, total: items.length })
      : failed > 0
        ? t('upload.addedFailed', { added, failed })
        : t('upload.added', { added });
  return (
    <section className="upload-tray" aria-label={t('upload.tray')}>
      <header className="upload-tray-head">
        {running > 0 ? <Spinner size={13} /> : failed > 0 ? <AlertIcon size={14} className="tray-warn" /> : <CheckIcon size={14} className="tray-ok" />}
        <h2 aria-live="polite">{summary}</h2>
        <button type="button" className="icon-btn" onClick={onClear} aria-label={t('upload.closeTray')} title={t('upload.closeTrayTitle')}>
          <XIcon size={14} />
        </button>
      </header>
      <ul className="upload-list">
        {items.map((it) => (
          <li key={it.key} className={`upload-item status-${it.status}${!it.readable && it.status === 'done' ? ' unreadable' : ''}`}>
            <span className="upload-icon" aria-hidden="true">
              {it.status === 'reading' || it.status === 'uploading' ? (
                <Spinner size={14} />
              ) : it.status === 'failed' ? (
                <AlertIcon size={15} />
              ) : it.status === 'done' && it.readable ? (
                <CheckIcon size={15} />
              ) : (
                <FileIcon size={15} />
              )}
            </span>
            <span className="upload-main">
              {it.status === 'done' ? (
                <button type="button" className="upload-name link-btn" onClick={() => onOpen(it)} title={t('upload.openTitle', { id: it.artifactId })}>
                  {it.name}
                </button>
              ) : (
                <span className="upload-name">{it.name}</span>
              )}
              <span className="upload-meta">
                <span className="upload-state">
                  {it.status === 'done' && !it.readable ? t('upload.unreadable') : statusText[it.status]}
                </span>
                {it.size >= 0 ? <span>{formatBytes(it.size)}</span> : null}
                {it.status === 'done' && it.artifactId !== '' && it.artifactId !== it.name ? <code>{it.artifactId}</code> : null}
              </span>
              {it.status === 'failed' ? <span className="upload-error">{it.error}</span> : null}
              {it.status === 'done' && it.note !== '' ? <span className="upload-note">{it.note}</span> : null}
            </span>
            {it.status === 'done' || it.status === 'failed' ? (
              <button type="button" className="icon-btn upload-dismiss" onClick={() => onDismiss(it.key)} aria-label={t('upload.remove', { name: it.name })}>
                <XIcon size={12} />
              </button>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * Listens for files dragged onto the window: shows the overlay through setDragging and hands
 * the files over. In browser mode the page takes the HTML5 drop (File objects to addFiles,
 * folders refused). In the desktop window paths come through the runtime's OnFileDrop (to
 * addPaths); the page only cancels the drag's default so the web view never opens the file.
 * WebKitGTK offers a file manager's drag as "text/uri-list" without "Files", which the Wails
 * runtime does not cancel: unhandled, the window navigated to the dropped file (seen under
 * Xvfb). Returns the function that stops listening.
 */
export function listenForDrops(
  browser: boolean,
  setDragging: (on: boolean) => void,
  addFiles: (files: File[], rejected: { name: string; error: string }[]) => void,
  addPaths: (paths: string[]) => void,
): () => void {
  const uriLists = !browser; // in the window a uri-list drag from outside is a file drag
  // A drag that started in the page (a link in the chat or an artifact) is never a file drag.
  let inPage = false;
  const isFileDrag = (dt: DataTransfer | null) => !inPage && dragHasFiles(dt, uriLists);
  const onStart = () => {
    inPage = true;
  };
  const onEnd = () => {
    inPage = false;
  };
  let depth = 0;
  const hide = () => {
    depth = 0;
    setDragging(false);
  };
  const onEnter = (e: DragEvent) => {
    if (!isFileDrag(e.dataTransfer)) return;
    depth++;
    setDragging(true);
    e.preventDefault();
  };
  const onOver = (e: DragEvent) => {
    if (!isFileDrag(e.dataTransfer)) return;
    e.preventDefault();
    if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    setDragging(true);
  };
  const onLeave = (e: DragEvent) => {
    if (!isFileDrag(e.dataTransfer)) return;
    depth = Math.max(0, depth - 1);
    if (depth === 0 || e.relatedTarget === null) hide();
  };
  const onDrop = (e: DragEvent) => {
    hide();
    const dt = e.dataTransfer;
    const fromPage = inPage;
    inPage = false;
    if (!dt || fromPage || !dragHasFiles(dt, uriLists)) return;
    e.preventDefault(); // never let the web view open the file
    if (!browser) return; // the window's paths arrive through OnFileDrop
    const files: File[] = [];
    const rejected: { name: string; error: string }[] = [];
    const dtItems = Array.from(dt.items);
    if (dtItems.length > 0) {
      for (const it of dtItems) {
        if (it.kind !== 'file') continue;
        const f = it.getAsFile();
        const entry = typeof it.webkitGetAsEntry === 'function' ? it.webkitGetAsEntry() : null;
        if (entry?.isDirectory) rejected.push({ name: entry.name, error: i18n.t('workspace:upload.folder', { name: entry.name }) });
        else if (f) files.push(f);
      }
    } else {
      files.push(...Array.from(dt.files));
    }
    addFiles(files, rejected);
  };
  const listeners: [string, EventListener][] = [
    ['dragstart', onStart],
    ['dragend', onEnd],
    ['dragenter', onEnter as EventListener],
    ['dragover', onOver as EventListener],
    ['dragleave', onLeave as EventListener],
    ['drop', onDrop as EventListener],
    ['blur', hide],
  ];
  for (const [type, fn] of listeners) window.addEventListener(type, fn);
  const offNative = onDesktopFileDrop((paths) => {
    hide();
    addPaths(paths);
  });
  return () => {
    for (const [type, fn] of listeners) window.removeEventListener(type, fn);
    offNative();
  };
}
