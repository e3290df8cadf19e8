import { useState } from 'react';
import type { IndexProgress, WorkspaceStatus } from '../api-workspace';
import { formatBytes } from '../format';
import { useWorkspace } from '../useWorkspace';
import { Svg, Spinner, XIcon, type IconProps } from './icons';
import './workspace.css';

const count = new Intl.NumberFormat('en-US');

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
 * The status line of the workspace bar: "Indexing 1,234 / 2,000 files" while a pass reads
 * files, "Scanning the folder…" before, the counts when done ("1,234 files indexed · 45.0
 * MB"), or what to do when there is nothing yet.
 */
export function statusLine(status: WorkspaceStatus | null, progress: IndexProgress | null, indexing: boolean): string {
  if (indexing && progress !== null) {
    if (progress.phase === 'scanning') return 'Scanning the folder…';
    return `Indexing ${count.format(progress.done)} / ${count.format(progress.total)} files`;
  }
  if (indexing) return 'Indexing…';
  if (status === null) return '';
  if (progress?.error && progress.phase === 'done' && status.files === 0) return `Indexing stopped: ${progress.error}`;
  if (status.files > 0) {
    const uploads = status.uploads > 0 ? ` (${count.format(status.uploads)} uploaded)` : '';
    const noun = status.files === 1 ? 'file' : 'files';
    return `${count.format(status.files)} ${noun}${uploads} indexed · ${formatBytes(status.bytes)}`;
  }
  if (status.chosen || status.exists) return 'No readable files here yet';
  return 'No folder chosen: pick one so the agents can search your files';
}

/** Props of WorkspaceBar. */
export interface WorkspaceBarProps {
  /** The open conversation; null in a new research. */
  conversationId: string | null;
  /** Choosing a folder with no conversation open started this conversation: open it. */
  onConversation?: (conversationId: string) => void;
}

/**
 * The research folder of the open conversation (issue 9, item 6): its name (full path on
 * hover), a "Choose folder…" button (the native dialog; in browser mode it is disabled
 * with an explanation), the index's progress while a pass runs ("Indexing 1,234 / 2,000
 * files", with a progress bar) and its counts when done, the files left out on demand, and
 * "Re-index". A chosen folder can be given up for the default one.
 */
export function WorkspaceBar({ conversationId, onConversation }: WorkspaceBarProps) {
  const ws = useWorkspace(conversationId, onConversation);
  const [showFailures, setShowFailures] = useState(false);
  const st = ws.status;
  const notIndexed = st !== null ? st.skipped + st.failed : 0;
  const line =
    conversationId === null
      ? ws.canChoose
        ? 'Pick a folder of your files to research them'
        : 'Folders can be chosen in the desktop app'
      : statusLine(st, ws.progress, ws.indexing);
  const chooseTitle = ws.canChoose
    ? conversationId === null
      ? 'Choose a folder of your files for a new research'
      : 'Choose the folder of your files for this research'
    : 'Choosing a folder needs the desktop app: browser mode cannot open a folder dialog on this computer.';
  const name = st !== null && (st.chosen || st.exists) ? folderName(st.folder) : 'Research folder';
  return (
    <section className="workspace-bar" aria-label="Research folder">
      <div className="ws-row">
        <span className="ws-icon">
          <FolderIcon size={15} />
        </span>
        <div className="ws-name" title={st?.folder ?? ''} data-testid="ws-name">
          {name}
          {st !== null && !st.chosen && st.exists ? <span className="ws-default"> (default)</span> : null}
        </div>
        <div className="ws-actions">
          <button
            type="button"
            className="btn btn-sm btn-ghost"
            onClick={ws.choose}
            disabled={!ws.canChoose || ws.busy}
            title={chooseTitle}
            aria-label={ws.canChoose ? 'Choose folder…' : 'Choose folder… (desktop app only)'}
          >
            Choose folder…
          </button>
          {st !== null && (st.exists || st.files > 0) ? (
            <button
              type="button"
              className="icon-btn"
              onClick={ws.reindex}
              disabled={ws.busy}
              title="Index the folder again (and retry the files that could not be read)"
              aria-label="Re-index"
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
              title="Stop using this folder (back to the conversation's own folder)"
              aria-label="Stop using this folder"
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
        <progress className="ws-progress" max={ws.progress.total} value={ws.progress.done} aria-label="Indexing progress" />
      ) : null}
      {!ws.canChoose && conversationId !== null && st !== null && !st.chosen ? (
        <p className="ws-note">Choose a folder in the desktop app; uploaded files are searched here too.</p>
      ) : null}
      {ws.progress?.truncated && !ws.indexing ? <p className="ws-note">Only the first 20,000 files of this folder are indexed.</p> : null}
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
          {count.format(notIndexed)} {notIndexed === 1 ? 'file' : 'files'} not indexed
        </button>
      ) : null}
      {showFailures && notIndexed > 0 ? (
        <ul className="ws-failures" aria-label="Files not indexed">
          {ws.failures === null ? (
            <li className="muted">Loading…</li>
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
