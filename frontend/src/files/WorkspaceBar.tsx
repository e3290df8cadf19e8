import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { IndexProgress, WorkspaceStatus } from '../api/conversations';
import { formatBytes } from '../shared/format';
import { currentLocale, i18n } from '../i18n/i18n';
import { useWorkspace } from './useWorkspace';
import { Svg, Spinner, XIcon, type IconProps } from '../shared/icons';
import './workspace.css';

/** A count with the UI language's digit grouping ("1,234"). */
const count = (n: number): string => n.toLocaleString(currentLocale());

/** A folder (the research folder). */
function FolderIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M3 7a2 2 0 0 1 2-2h4l2 2h8a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2z" />
    </Svg>
  );
}

/** Two arrows in a circle (index again). */
function RefreshIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M20 11a8 8 0 0 0-14.6-4.5M4 5v4h4M4 13a8 8 0 0 0 14.6 4.5M20 19v-4h-4" />
    </Svg>
  );
}

/** The last element of a folder path ("/home/me/research" → "research"). */
export function folderName(folder: string): string {
  const parts = folder.split(/[\\/]+/).filter((p) => p !== '');
  return parts.at(-1) ?? folder;
}

/**
 * The status line of the workspace bar, in the UI's language: "Indexing 1,234 / 2,000
 * files" while a pass reads files, "Scanning the folder…" before, the counts when done
 * ("1,234 files indexed · 45.0 MB"), or what to do when there is nothing yet.
 */
export function statusLine(status: WorkspaceStatus | null, progress: IndexProgress | null, indexing: boolean): string {
  if (indexing && progress !== null) {
    if (progress.phase === 'scanning') return i18n.t('workspace:status.scanning');
    return i18n.t('workspace:status.progress', { done: count(progress.done), total: count(progress.total) });
  }
  if (indexing) return i18n.t('workspace:status.indexing');
  if (status === null) return '';
  if (progress?.error && progress.phase === 'done' && status.files === 0) return i18n.t('workspace:status.stopped', { error: progress.error });
  if (status.files > 0) {
    const figures = { count: status.files, n: count(status.files), uploads: count(status.uploads), size: formatBytes(status.bytes) };
    return status.uploads > 0 ? i18n.t('workspace:status.indexedUploads', figures) : i18n.t('workspace:status.indexed', figures);
  }
  if (status.chosen || status.exists) return i18n.t('workspace:status.empty');
  return i18n.t('workspace:status.noFolder');
}

/** Props of WorkspaceBar. */
export interface WorkspaceBarProps {
  /** The open conversation; null in a new research. */
  conversationId: string | null;
  /** Choosing a folder with no conversation open started this conversation: open it. */
  onConversation?: (conversationId: string) => void;
}

/**
 * The research folder of the open conversation: its name (full path on hover), a "Choose
 * folder…" button (the native dialog; in browser mode it is disabled with an explanation),
 * the index's progress while a pass runs ("Indexing 1,234 / 2,000 files", with a progress
 * bar) and its counts when done, the files left out on demand, and "Re-index". A chosen
 * folder can be given up for the default one.
 */
export function WorkspaceBar({ conversationId, onConversation }: WorkspaceBarProps) {
  const { t } = useTranslation('workspace');
  const ws = useWorkspace(conversationId, onConversation);
  const [showFailures, setShowFailures] = useState(false);
  const st = ws.status;
  const notIndexed = st !== null ? st.skipped + st.failed : 0;
  const line =
    conversationId === null
      ? ws.canChoose
        ? t('bar.pick')
        : t('bar.desktopOnly')
      : statusLine(st, ws.progress, ws.indexing);
  const chooseTitle = ws.canChoose
    ? conversationId === null
      ? t('bar.chooseNewTitle')
      : t('bar.chooseTitle')
    : t('bar.chooseDisabledTitle');
  const name = st !== null && (st.chosen || st.exists) ? folderName(st.folder) : t('bar.label');
  return (
    <section className="workspace-bar" aria-label={t('bar.label')}>
      <div className="ws-row">
        <span className="ws-icon">
          <FolderIcon size={15} />
        </span>
        <div className="ws-name" title={st?.folder ?? ''} data-testid="ws-name">
          {name}
          {st !== null && !st.chosen && st.exists ? <span className="ws-default"> {t('bar.default')}</span> : null}
        </div>
        <div className="ws-actions">
          <button
            type="button"
            className="btn btn-sm btn-ghost"
            onClick={ws.choose}
            disabled={!ws.canChoose || ws.busy}
            title={chooseTitle}
            aria-label={ws.canChoose ? t('bar.choose') : t('bar.chooseDesktopOnly')}
          >
            {t('bar.choose')}
          </button>
          {st !== null && (st.exists || st.files > 0) ? (
            <button
              type="button"
              className="icon-btn"
              onClick={ws.reindex}
              disabled={ws.busy}
              title={t('bar.reindexTitle')}
              aria-label={t('bar.reindex')}
            >
              <RefreshIcon size={14} />
            </button>
          ) : null}
          {st?.chosen ? (
            <button
              type="button"
              className="icon-btn"
              onClick={ws.reset}
              disabled={ws.busy}
              title={t('bar.resetTitle')}
              aria-label={t('bar.reset')}
            >
              <XIcon size={14} />
            </button>
          ) : null}
        </div>
      </div>
      <div className="ws-line" role="status" aria-live="polite" data-testid="ws-status">
        {ws.indexing ? <Spinner size={11} /> : null}
        {line}
      </div>
      {ws.indexing && ws.progress !== null && ws.progress.phase === 'indexing' && ws.progress.total > 0 ? (
        <progress className="ws-progress" max={ws.progress.total} value={ws.progress.done} aria-label={t('bar.progress')} />
      ) : null}
      {!ws.canChoose && conversationId !== null && st !== null && !st.chosen ? (
        <p className="ws-note">{t('bar.browserNote')}</p>
      ) : null}
      {ws.progress?.truncated && !ws.indexing ? <p className="ws-note">{t('bar.truncated', { n: count(20_000) })}</p> : null}
      {notIndexed > 0 && !ws.indexing ? (
        <button
          type="button"
          className="ws-failures-toggle"
          aria-expanded={showFailures}
          onClick={() => {
            if (!showFailures && ws.failures === null) ws.loadFailures();
            setShowFailures(!showFailures);
          }}
        >
          {t('bar.notIndexed', { count: notIndexed, n: count(notIndexed) })}
        </button>
      ) : null}
      {showFailures && notIndexed > 0 ? (
        <ul className="ws-failures" aria-label={t('bar.failures')}>
          {ws.failures === null ? (
            <li className="muted">{t('common:loading')}</li>
          ) : (
            ws.failures.map((f) => (
              <li key={f.path}>
                <code>{f.path}</code> <span className="muted">{f.reason || f.status}</span>
              </li>
            ))
          )}
        </ul>
      ) : null}
      {ws.error !== '' ? <p className="error-text ws-error">{ws.error}</p> : null}
    </section>
  );
}
