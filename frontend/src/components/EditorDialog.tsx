import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { copyText, getArtifact, saveArtifact, toApiError, type ArtifactView } from '../api';
import { diffTexts } from '../diff';
import '../i18n'; // the UI's language, set up before the first render
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
  const { t } = useTranslation('artifacts');
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
    const el = area.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(0, 0);
    el.scrollTop = 0;
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
    void copyText(text).then((ok) => setCopied(ok ? t('editor.copied') : t('editor.copyFailed')));
  };

  const diffModel = useMemo(() => (latest && showDiff ? diffTexts(latest.content, text) : null), [latest, showDiff, text]);
  const lines = text === '' ? 0 : text.split('\n').length;

  return (
    <Modal
      title={t('editor.title', { title: p.title })}
      onClose={requestClose}
      className="modal-wide modal-editor"
      footer={
        <>
          <span className="editor-status" aria-live="polite">
            {dirty ? (
              <span className="dirty">
                <span className="unsaved-dot" aria-hidden="true" /> {t('panel.unsaved')}
              </span>
            ) : (
              <span className="muted">{t('editor.noChanges')}</span>
            )}
            <span className="muted">
              · {t('editor.basedOn', { version: base.version })} · {t('editor.lines', { count: lines })}
            </span>
          </span>
          <span className="muted small editor-keys">
            <kbd>Ctrl</kbd>+<kbd>S</kbd> {t('editor.keySave')} · <kbd>Esc</kbd> {t('editor.keyCancel')}
          </span>
          <button type="button" className="btn" onClick={requestClose} disabled={saving}>
            {t('common:cancel')}
          </button>
          <button type="button" className="btn btn-primary" onClick={save} disabled={saving || !dirty}>
            {saving ? <Spinner size={13} /> : null}
            {t('common:save')}
          </button>
        </>
      }
    >
      <div className="editor" onKeyDown={onKeyDown}>
        {confirmClose ? (
          <div className="notice notice-warn" role="alert">
            <span>{t('editor.discardAsk')}</span>
            <span className="notice-actions">
              <button type="button" className="btn btn-sm" onClick={() => setConfirmClose(false)} autoFocus>
                {t('editor.keepEditing')}
              </button>
              <button type="button" className="btn btn-sm btn-danger" onClick={p.onClose}>
                {t('editor.discard')}
              </button>
            </span>
          </div>
        ) : null}
        {conflict ? (
          <div className="notice notice-conflict" role="alert">
            <AlertIcon size={16} />
            <div className="notice-body">
              <strong>{t('editor.conflict')}</strong>
              <span className="conflict-msg">{conflict}</span>
              <span className="muted">{t('editor.conflictSafe')}</span>
            </div>
            <span className="notice-actions">
              <button type="button" className="btn btn-sm" onClick={copy}>
                {t('editor.copyMine')}
              </button>
              <button type="button" className="btn btn-sm btn-primary" onClick={reload} disabled={reloading}>
                {reloading ? <Spinner size={12} /> : null}
                {t('editor.reload')}
              </button>
            </span>
          </div>
        ) : null}
        {latest ? (
          <div className="notice notice-info" role="status">
            <div className="notice-body">
              <strong>{t('editor.loaded', { version: latest.version })}</strong>
              <span>{t('editor.loadedHelp')}</span>
            </div>
            <span className="notice-actions">
              <button type="button" className="btn btn-sm" onClick={copy}>
                {t('editor.copyMine')}
              </button>
              <button type="button" className="btn btn-sm" aria-pressed={showDiff} onClick={() => setShowDiff((v) => !v)}>
                {showDiff ? t('editor.hideDiff') : t('editor.showDiff')}
              </button>
              <button
                type="button"
                className="btn btn-sm"
                onClick={() => {
                  setText(latest.content);
                  setLatest(null);
                }}
              >
                {t('editor.keepLatest')}
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
                {t('editor.latestHead', { version: latest.version })} <span className="muted">{t('editor.readOnly')}</span>
              </div>
              {diffModel ? (
                <div className="editor-diff">
                  <DiffView model={diffModel} mode="inline" labels={[`v${String(latest.version)}`, t('editor.yourText')]} />
                </div>
              ) : (
                <textarea className="editor-text" value={latest.content} readOnly aria-label={t('editor.latestLabel', { version: latest.version })} spellCheck={false} />
              )}
            </div>
          ) : null}
          <div className="editor-pane">
            {latest ? <div className="editor-pane-head">{t('editor.yourText')}</div> : null}
            <textarea
              ref={area}
              className="editor-text"
              value={text}
              onChange={(e) => {
                setText(e.target.value);
                setConfirmClose(false);
              }}
              aria-label={t('editor.sourceOf', { title: p.title })}
              spellCheck={false}
            />
          </div>
        </div>
      </div>
    </Modal>
  );
}
