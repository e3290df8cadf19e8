// The parts of the artifact editor (EditorDialog): its footer, its notices (discard?,
// conflict, latest loaded) and its text panes.

import { useMemo, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import type { EditorState } from './useEditor';
import { diffTexts } from './diff';
import { DiffView } from './DiffView';
import { AlertIcon, Spinner } from '../shared/icons';
import { focusOnMount } from '../shared/focus';

/** The editor's footer: unsaved state, base version and lines, keys, Cancel and Save. */
export function EditorFooter({ ed }: { ed: EditorState }) {
  const { t } = useTranslation('artifacts');
  const lines = ed.text === '' ? 0 : ed.text.split('\n').length;
  return (
    <>
      <span className="editor-status" aria-live="polite">
        {ed.dirty ? (
          <span className="dirty">
            <span className="unsaved-dot" aria-hidden="true" /> {t('panel.unsaved')}
          </span>
        ) : (
          <span className="muted">{t('editor.noChanges')}</span>
        )}
        <span className="muted">
          · {t('editor.basedOn', { version: ed.base.version })} · {t('editor.lines', { count: lines })}
        </span>
      </span>
      <span className="muted small editor-keys">
        <kbd>Ctrl</kbd>+<kbd>S</kbd> {t('editor.keySave')} · <kbd>Esc</kbd> {t('editor.keyCancel')}
      </span>
      <button type="button" className="btn" onClick={ed.requestClose} disabled={ed.saving}>
        {t('common:cancel')}
      </button>
      <button type="button" className="btn btn-primary" onClick={ed.save} disabled={ed.saving || !ed.dirty}>
        {ed.saving ? <Spinner size={13} /> : null}
        {t('common:save')}
      </button>
    </>
  );
}

/** The editor's notices: the "discard changes?" question, a conflict, the latest version loaded, copy and errors. */
export function EditorNotices({ ed, onDiscard }: { ed: EditorState; onDiscard: () => void }) {
  const { t } = useTranslation('artifacts');
  return (
    <>
      {ed.confirmClose ? (
        <div className="notice notice-warn" role="alert">
          <span>{t('editor.discardAsk')}</span>
          <span className="notice-actions">
            <button type="button" className="btn btn-sm" onClick={ed.keepEditing} ref={focusOnMount}>
              {t('editor.keepEditing')}
            </button>
            <button type="button" className="btn btn-sm btn-danger" onClick={onDiscard}>
              {t('editor.discard')}
            </button>
          </span>
        </div>
      ) : null}
      {ed.conflict ? (
        <div className="notice notice-conflict" role="alert">
          <AlertIcon size={16} />
          <div className="notice-body">
            <strong>{t('editor.conflict')}</strong>
            <span className="conflict-msg">{ed.conflict}</span>
            <span className="muted">{t('editor.conflictSafe')}</span>
          </div>
          <span className="notice-actions">
            <button type="button" className="btn btn-sm" onClick={ed.copy}>
              {t('editor.copyMine')}
            </button>
            <button type="button" className="btn btn-sm btn-primary" onClick={ed.reload} disabled={ed.reloading}>
              {ed.reloading ? <Spinner size={12} /> : null}
              {t('editor.reload')}
            </button>
          </span>
        </div>
      ) : null}
      {ed.latest ? (
        <div className="notice notice-info" role="status">
          <div className="notice-body">
            <strong>{t('editor.loaded', { version: ed.latest.version })}</strong>
            <span>{t('editor.loadedHelp')}</span>
          </div>
          <span className="notice-actions">
            <button type="button" className="btn btn-sm" onClick={ed.copy}>
              {t('editor.copyMine')}
            </button>
            <button type="button" className="btn btn-sm" aria-pressed={ed.showDiff} onClick={ed.toggleDiff}>
              {ed.showDiff ? t('editor.hideDiff') : t('editor.showDiff')}
            </button>
            <button type="button" className="btn btn-sm" onClick={ed.keepLatest}>
              {t('editor.keepLatest')}
            </button>
          </span>
        </div>
      ) : null}
      {ed.copied ? (
        <p className="muted small" role="status">
          {ed.copied}
        </p>
      ) : null}
      {ed.error ? (
        <p className="form-error" role="alert">
          {ed.error}
        </p>
      ) : null}
    </>
  );
}

/** The user's text (its textarea is `area`) and, after "Reload latest", the latest version (or its differences) beside it. */
export function EditorPanes({ ed, title, area }: { ed: EditorState; title: string; area: RefObject<HTMLTextAreaElement | null> }) {
  const { t } = useTranslation('artifacts');
  const { latest, showDiff, text } = ed;
  const diffModel = useMemo(() => (latest && showDiff ? diffTexts(latest.content, text) : null), [latest, showDiff, text]);
  return (
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
          onChange={(e) => ed.setText(e.target.value)}
          aria-label={t('editor.sourceOf', { title })}
          spellCheck={false}
        />
      </div>
    </div>
  );
}
