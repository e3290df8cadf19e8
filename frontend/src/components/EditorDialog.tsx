import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { copyText, getArtifact, saveArtifact, toApiError, type ArtifactView } from '../api';
import { diffTexts } from '../diff';
import { DiffView } from './DiffView';
import { AlertIcon, Spinner } from './icons';
import { Modal } from './Modal';

/** Props of EditorDialog. */
export interface EditorDialogProps {
  conversationId: string;
  artifactId: string;
  title: string;
  /** The version the edit starts from (Save's baseVersion). */
  baseVersion: number;
  /** That version's content. */
  initialContent: string;
  onClose: () => void;
  /** Called with the stored artifact after a successful save (before the dialog closes). */
  onSaved: (saved: ArtifactView) => void;
}

/** The latest version loaded after a conflict. */
interface Latest {
  version: number;
  content: string;
}

/**
 * Edits an artifact's source in a wide dialog. Save (or Ctrl/Cmd+S) stores the text as a
 * new version on top of `baseVersion`; Esc or Cancel closes, asking first when there are
 * unsaved changes. On a conflict (the artifact moved on, or a run is changing it) the text
 * stays in the editor with the backend's explanation; "Reload latest" shows the latest
 * version next to the user's text (which stays editable and is then saved on top of that
 * version), with its differences and a copy button. Nothing is overwritten silently.
 */
export function EditorDialog(p: EditorDialogProps) {
  const [text, setText] = useState(p.initialContent);
  const [base, setBase] = useState({ version: p.baseVersion, content: p.initialContent });
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState('');
  const [conflict, setConflict] = useState('');
  const [latest, setLatest] = useState<Latest | null>(null);
  const [reloading, setReloading] = useState(false);
  const [showDiff, setShowDiff] = useState(false);
  const [confirmClose, setConfirmClose] = useState(false);
  const [copied, setCopied] = useState('');
  const area = useRef<HTMLTextAreaElement>(null);
  const dirty = text !== base.content;

  useEffect(() => {
    const t = area.current;
    if (!t) return;
    t.focus();
    t.setSelectionRange(0, 0);
    t.scrollTop = 0;
  }, []);

  const save = () => {
    if (saving) return;
    setSaving(true);
    setError('');
    setConfirmClose(false);
    saveArtifact(p.conversationId, p.artifactId, base.version, text).then(
      (saved) => {
        setSaving(false);
        p.onSaved(saved);
        p.onClose();
      },
      (e: unknown) => {
        setSaving(false);
        const err = toApiError(e);
        if (err.code === 'conflict') {
          setConflict(err.message);
          setLatest(null);
        } else {
          setError(err.message);
        }
      },
    );
  };

  const reload = () => {
    setReloading(true);
    setError('');
    getArtifact(p.conversationId, p.artifactId).then(
      (a) => {
        setReloading(false);
        setLatest({ version: a.version, content: a.content });
        setBase({ version: a.version, content: a.content });
        setConflict('');
        setShowDiff(false);
      },
      (e: unknown) => {
        setReloading(false);
        setError(toApiError(e).message);
      },
    );
  };

  const requestClose = () => {
    if (saving) return;
    if (dirty && !confirmClose) {
      setConfirmClose(true);
      return;
    }
    p.onClose();
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 's') {
      e.preventDefault();
      save();
    }
  };

  const copy = () => {
    void copyText(text).then((ok) => setCopied(ok ? 'Copied your text.' : 'Could not copy; select the text and copy it by hand.'));
  };

  const diffModel = useMemo(() => (latest && showDiff ? diffTexts(latest.content, text) : null), [latest, showDiff, text]);
  const lines = text === '' ? 0 : text.split('\n').length;

  return (
    <Modal
      title={`Edit ${p.title}`}
      onClose={requestClose}
      className="modal-wide modal-editor"
      footer={
        <>
          <span className="editor-status" aria-live="polite">
            {dirty ? (
              <span className="dirty">
                <span className="unsaved-dot" aria-hidden="true" /> Unsaved changes
              </span>
            ) : (
              <span className="muted">No changes</span>
            )}
            <span className="muted">
              · based on v{base.version} · {lines} {lines === 1 ? 'line' : 'lines'}
            </span>
          </span>
          <span className="muted small editor-keys">
            <kbd>Ctrl</kbd>+<kbd>S</kbd> save · <kbd>Esc</kbd> cancel
          </span>
          <button type="button" className="btn" onClick={requestClose} disabled={saving}>
            Cancel
          </button>
          <button type="button" className="btn btn-primary" onClick={save} disabled={saving || !dirty}>
            {saving ? <Spinner size={13} /> : null}
            Save
          </button>
        </>
      }
    >
      <div className="editor" onKeyDown={onKeyDown}>
        {confirmClose ? (
          <div className="notice notice-warn" role="alert">
            <span>Discard your unsaved changes?</span>
            <span className="notice-actions">
              <button type="button" className="btn btn-sm" onClick={() => setConfirmClose(false)} autoFocus>
                Keep editing
              </button>
              <button type="button" className="btn btn-sm btn-danger" onClick={p.onClose}>
                Discard
              </button>
            </span>
          </div>
        ) : null}
        {conflict ? (
          <div className="notice notice-conflict" role="alert">
            <AlertIcon size={16} />
            <div className="notice-body">
              <strong>Not saved: this artifact changed.</strong>
              <span className="conflict-msg">{conflict}</span>
              <span className="muted">Your text is still here and nothing was overwritten.</span>
            </div>
            <span className="notice-actions">
              <button type="button" className="btn btn-sm" onClick={copy}>
                Copy my text
              </button>
              <button type="button" className="btn btn-sm btn-primary" onClick={reload} disabled={reloading}>
                {reloading ? <Spinner size={12} /> : null}
                Reload latest
              </button>
            </span>
          </div>
        ) : null}
        {latest ? (
          <div className="notice notice-info" role="status">
            <div className="notice-body">
              <strong>Loaded v{latest.version}, the latest version.</strong>
              <span>Your text is unchanged on the right. Review the latest on the left, then re-apply your change and save; saving makes your text the next version.</span>
            </div>
            <span className="notice-actions">
              <button type="button" className="btn btn-sm" onClick={copy}>
                Copy my text
              </button>
              <button type="button" className="btn btn-sm" aria-pressed={showDiff} onClick={() => setShowDiff((v) => !v)}>
                {showDiff ? 'Hide differences' : 'Show differences'}
              </button>
              <button
                type="button"
                className="btn btn-sm"
                onClick={() => {
                  setText(latest.content);
                  setLatest(null);
                }}
              >
                Discard mine, keep latest
              </button>
            </span>
          </div>
        ) : null}
        {copied ? (
          <p className="muted small" role="status">
            {copied}
          </p>
        ) : null}
        {error ? (
          <p className="form-error" role="alert">
            {error}
          </p>
        ) : null}
        <div className={`editor-panes${latest ? ' split' : ''}`}>
          {latest ? (
            <div className="editor-pane">
              <div className="editor-pane-head">
                Latest · v{latest.version} <span className="muted">(read-only)</span>
              </div>
              {diffModel ? (
                <div className="editor-diff">
                  <DiffView model={diffModel} mode="inline" labels={[`v${String(latest.version)}`, 'Your text']} />
                </div>
              ) : (
                <textarea className="editor-text" value={latest.content} readOnly aria-label={`Latest version v${String(latest.version)} (read-only)`} spellCheck={false} />
              )}
            </div>
          ) : null}
          <div className="editor-pane">
            {latest ? <div className="editor-pane-head">Your text</div> : null}
            <textarea
              ref={area}
              className="editor-text"
              value={text}
              onChange={(e) => {
                setText(e.target.value);
                setConfirmClose(false);
              }}
              aria-label={`Source of ${p.title}`}
              spellCheck={false}
            />
          </div>
        </div>
      </div>
    </Modal>
  );
}
