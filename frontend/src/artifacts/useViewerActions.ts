// The artifact viewer's actions that talk to the backend (export, show in folder, restore)
// and the message they leave under the viewer's toolbar.

import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { exportArtifact, exportArtifactWithDiagrams, publishArtifact, restoreVersion, revealExport, type ExportFormat, type ExportResult } from '../api/artifacts';
import { toApiError } from '../api/call';
import { downloadBase64 } from '../files/files';
import { mermaidSources } from '../markdown/markdown';
import { drawMermaidForExport } from '../markdown/mermaid';
import type { VersionRef } from './versions';
import { useFadingStatus } from './useFadingStatus';

/** The viewer's message: OK messages fade, errors stay; an export saved to disk keeps its path for "Show in folder". */
export interface ViewerStatus {
  kind: 'ok' | 'error';
  text: string;
  savedPath?: string;
}

/** The viewer's actions and their state. */
export interface ViewerActions {
  status: ViewerStatus | null;
  setStatus: (s: ViewerStatus | null) => void;
  /** The action under way, if any. */
  busy: '' | 'export' | 'restore' | 'publish';
  /**
   * Exports version `ref` ('current': the current content) in `format`: downloads in a
   * browser, saves in the window. `markdown` is that version's Markdown as the viewer shows
   * it ('' when it is no Markdown): for html, its ```mermaid blocks are drawn first and sent
   * along (exportWithDiagrams), so the file shows the diagrams.
   */
  doExport: (ref: VersionRef, format: ExportFormat, markdown?: string) => void;
  /** The exported notice's "Show in folder" (window only: a browser downloads instead). */
  showInFolder: (path: string) => void;
  /** Restores stored version `version` as the new current one. */
  doRestore: (version: number) => void;
  /** Publishes the current version of an HTML artifact into the workspace (publishArtifact); the message names the file, with "Show in folder". */
  doPublish: () => void;
}

/** What useViewerActions acts on. */
export interface ViewerTarget {
  conversationId: string;
  artifactId: string;
  /** The current version (restore's base). */
  version: number;
  /** A restore succeeded: the viewer goes back to the current version. */
  onRestored: () => void;
  /** The stored artifacts changed (a restore, or a conflict that says they moved on): reload them. */
  onChanged: () => void;
}

/** Export, show in folder and restore for one artifact, with the viewer's message. */
export function useViewerActions({ conversationId, artifactId, version, onRestored, onChanged }: ViewerTarget): ViewerActions {
  const { t } = useTranslation('artifacts');
  const [busy, setBusy] = useState<'' | 'export' | 'restore' | 'publish'>('');
  const [status, setStatus] = useFadingStatus<ViewerStatus>(8000);

  const doPublish = () => {
    setBusy('publish');
    setStatus(null);
    publishArtifact(conversationId, artifactId).then(
      (r) => {
        setBusy('');
        setStatus({ kind: 'ok', text: t('declared.published', { path: r.path }), savedPath: r.path });
      },
      (e: unknown) => {
        setBusy('');
        setStatus({ kind: 'error', text: t('declared.publishFailed', { error: toApiError(e).message }) });
      },
    );
  };

  const doExport = (ref: VersionRef, format: ExportFormat, markdown = '') => {
    setBusy('export');
    setStatus(null);
    exportWithDiagrams(conversationId, artifactId, ref === 'current' ? 0 : ref, format, markdown).then(
      (r) => {
        setBusy('');
        if (r.data !== '') {
          try {
            downloadBase64(r.filename, r.mime, r.data);
            setStatus({ kind: 'ok', text: t('viewer.downloaded', { file: r.filename }) });
          } catch (e) {
            setStatus({ kind: 'error', text: t('viewer.exportFailed', { error: toApiError(e).message }) });
          }
        } else if (r.saved_path !== '') {
          setStatus({ kind: 'ok', text: t('viewer.savedTo', { path: r.saved_path }), savedPath: r.saved_path });
        }
        // Neither: the user cancelled the save dialog; nothing to say.
      },
      (e: unknown) => {
        setBusy('');
        setStatus({ kind: 'error', text: t('viewer.exportFailed', { error: toApiError(e).message }) });
      },
    );
  };

  const showInFolder = (path: string) => {
    revealExport(path).catch((e: unknown) => setStatus({ kind: 'error', text: t('viewer.revealFailed', { error: toApiError(e).message }) }));
  };

  const doRestore = (from: number) => {
    setBusy('restore');
    setStatus(null);
    restoreVersion(conversationId, artifactId, from, version).then(
      (a) => {
        setBusy('');
        onRestored();
        setStatus({ kind: 'ok', text: t('viewer.restored', { from, to: a.version }) });
        onChanged();
      },
      (e: unknown) => {
        setBusy('');
        const err = toApiError(e);
        setStatus({ kind: 'error', text: err.code === 'conflict' ? t('viewer.notRestored', { error: err.message }) : t('viewer.restoreFailed', { error: err.message }) });
        if (err.code === 'conflict') onChanged();
      },
    );
  };

  return { status, setStatus, busy, doExport, showInFolder, doRestore, doPublish };
}

/**
 * Exports like exportArtifact; for html with ```mermaid blocks in `markdown`, the page draws
 * them first (drawMermaidForExport: Mermaid is loaded only then) and sends the SVGs with
 * exportArtifactWithDiagrams. A block that does not draw is left out and exported as its
 * source; when none draws, it is a plain export.
 */
async function exportWithDiagrams(conversationId: string, artifactId: string, version: number, format: ExportFormat, markdown: string): Promise<ExportResult> {
  const sources = format === 'html' ? mermaidSources(markdown) : [];
  if (sources.length > 0) {
    const diagrams = await drawMermaidForExport(sources);
    if (Object.keys(diagrams).length > 0) return exportArtifactWithDiagrams(conversationId, artifactId, version, format, diagrams);
  }
  return exportArtifact(conversationId, artifactId, version, format);
}
