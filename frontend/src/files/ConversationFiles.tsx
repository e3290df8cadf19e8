// Conversation files in the sidebar: a conversation's menu "Export…" and the list's
// "Import…" (docs/ARCHITECTURE.md, "Conversation files and backups").

import { useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { revealExport } from '../api/artifacts';
import { toApiError } from '../api/call';
import { exportConversation, importConversation, importConversationFile, type ConversationImport } from '../api/conversations';
import { isBrowserMode } from '../api/runtime';
import { downloadBase64, readAsBase64 } from './files';
import { i18n } from '../i18n/i18n';
import { XIcon } from '../shared/icons';
import './data.css';

/** The message after an export or import: `savedPath` when the window saved a file ("Show in folder"). */
export interface FileNotice {
  kind: 'ok' | 'error';
  text: string;
  savedPath?: string;
}

/** Options of useConversationFiles. */
export interface ConversationFilesOptions {
  /** A file was imported as conversation `id`: reload the list and open it. */
  onImported: (id: string) => void;
}

/** What useConversationFiles gives the sidebar. */
export interface ConversationFiles {
  /** Exports conversation `id`: the window's save dialog (Documents), or a download in browser mode. */
  exportConversation: (id: string) => void;
  /** Imports a file: the window's open dialog, or the page's file chooser in browser mode. */
  importConversation: () => void;
  /** An import is under way. */
  importing: boolean;
  notice: FileNotice | null;
  dismiss: () => void;
  /** "Show in folder" of a saved export (the window only). */
  showInFolder: (path: string) => void;
  /** The hidden file input browser mode picks files with; render it once. */
  input: ReactNode;
}

/**
 * Export and import of whole conversations for the sidebar. In the window the backend
 * opens the save and open dialogs (ConversationService.Export, ImportFile); in browser mode,
 * which has none, the export comes back as bytes and is downloaded, and the import reads
 * the file the user picks in the page's file chooser (ConversationService.Import). After an
 * import the new conversation is opened (onImported); the result or the error (the backend
 * says what is wrong with a file; nothing was stored then) is the notice.
 */
export function useConversationFiles({ onImported }: ConversationFilesOptions): ConversationFiles {
  const { t } = useTranslation('data');
  const [notice, setNotice] = useState<FileNotice | null>(null);
  const [importing, setImporting] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);

  const imported = (r: ConversationImport) => {
    setImporting(false);
    if (r.conversation_id === '') return; // the open dialog was cancelled
    setNotice({ kind: 'ok', text: t('import.done', { title: r.title, messages: r.messages, artifacts: r.artifacts }) });
    onImported(r.conversation_id);
  };
  const failed = (file: string) => (e: unknown) => {
    setImporting(false);
    const error = importProblem(e);
    setNotice({ kind: 'error', text: file === '' ? t('import.failedNoName', { error }) : t('import.failed', { file, error }) });
  };

  const exportOne = (id: string) => {
    setNotice(null);
    exportConversation(id).then(
      (r) => {
        if (r.data !== '') {
          downloadBase64(r.filename, r.mime, r.data);
          setNotice({ kind: 'ok', text: t('export.downloaded', { file: r.filename }) });
        } else if (r.saved_path !== '') {
          setNotice({ kind: 'ok', text: t('export.savedTo', { path: r.saved_path }), savedPath: r.saved_path });
        } // neither: the save dialog was cancelled
      },
      (e: unknown) => setNotice({ kind: 'error', text: t('export.failed', { error: toApiError(e).message }) }),
    );
  };

  const pick = () => {
    if (inputRef.current) {
      inputRef.current.value = '';
      inputRef.current.click();
    }
  };
  const importOne = () => {
    setNotice(null);
    if (isBrowserMode()) {
      pick();
      return;
    }
    setImporting(true);
    importConversationFile().then(imported, (e: unknown) => {
      const err = toApiError(e);
      if (err.code === 'desktop_only' || err.code === 'unsupported') {
        setImporting(false);
        pick(); // no open dialog here: the page's chooser
        return;
      }
      failed('')(e);
    });
  };

  const onFile = (file: File | undefined) => {
    if (!file) return;
    setImporting(true);
    readAsBase64(file)
      .then((data) => importConversation(file.name, data))
      .then(imported, failed(file.name));
  };

  const showInFolder = (path: string) => {
    revealExport(path).catch((e: unknown) => setNotice({ kind: 'error', text: toApiError(e).message }));
  };

  const input = (
    <input
      ref={inputRef}
      type="file"
      accept=".zip,application/zip"
      hidden
      data-testid="conversation-import-input"
      onChange={(e) => onFile(e.target.files?.[0])}
    />
  );
  return { exportConversation: exportOne, importConversation: importOne, importing, notice, dismiss: () => setNotice(null), showInFolder, input };
}

/**
 * What is wrong with a file an import refused, in the UI's language: the backend's reason
 * (`fields.reason`) worded here, with its detail (what exactly is wrong, as the backend says
 * it); any other error's message as it is.
 */
export function importProblem(e: unknown): string {
  const err = toApiError(e);
  const detail = err.detail;
  if (err.code === 'invalid_request') {
    switch (err.fields.reason) {
      case 'invalid_file':
        return i18n.t('data:import.reason.invalid_file', { detail });
      case 'too_new':
        return i18n.t('data:import.reason.too_new', { detail });
      case 'too_large':
        return i18n.t('data:import.reason.too_large', { detail });
    }
  }
  return err.message;
}

/** The sidebar's message after an export or import, with "Show in folder" for a saved file and a dismiss button. */
export function FileNoticeBar({ notice, onReveal, onDismiss }: { notice: FileNotice; onReveal: (path: string) => void; onDismiss: () => void }) {
  const { t } = useTranslation('data');
  return (
    <div className={`file-notice ${notice.kind}`} role={notice.kind === 'error' ? 'alert' : 'status'}>
      <span className="file-notice-text">{notice.text}</span>
      {notice.savedPath !== undefined ? (
        <button type="button" className="btn btn-sm btn-ghost" onClick={() => onReveal(notice.savedPath ?? '')}>
          {t('notice.showInFolder')}
        </button>
      ) : null}
      <button type="button" className="icon-btn" onClick={onDismiss} aria-label={t('notice.dismiss')}>
        <XIcon size={13} />
      </button>
    </div>
  );
}
