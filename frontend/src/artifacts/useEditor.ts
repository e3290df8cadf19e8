// The state of the artifact editor (EditorDialog): the text, the version it is saved on top
// of, saving, a conflict and the latest version loaded after it, and closing with unsaved
// changes.

import { useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { getArtifact, saveArtifact, type ArtifactView } from '../api/artifacts';
import { toApiError } from '../api/call';
import { copyText } from '../api/runtime';

/** The latest version loaded after a conflict. */
export interface Latest {
  version: number;
  content: string;
}

/** What useEditor needs from the dialog's props. */
export interface EditorTarget {
  conversationId: string;
  artifactId: string;
  /** The version the edit starts from (Save's baseVersion). */
  baseVersion: number;
  /** That version's content. */
  initialContent: string;
  onClose: () => void;
  /** Called with the stored artifact after a successful save (before the dialog closes). */
  onSaved: (saved: ArtifactView) => void;
}

/** The editor's state and actions, as EditorDialog and its parts use them. */
export interface EditorState {
  text: string;
  /** The user changed the text (setText also withdraws a pending "discard?" question). */
  setText: (text: string) => void;
  base: Latest;
  dirty: boolean;
  saving: boolean;
  error: string;
  conflict: string;
  latest: Latest | null;
  reloading: boolean;
  showDiff: boolean;
  toggleDiff: () => void;
  confirmClose: boolean;
  keepEditing: () => void;
  /** The outcome of "Copy my text", shown under the notices. */
  copied: string;
  save: () => void;
  reload: () => void;
  /** Takes the latest version's text into the editor. */
  keepLatest: () => void;
  /** Closes, or first asks when there are unsaved changes. */
  requestClose: () => void;
  copy: () => void;
  /** Ctrl/Cmd+S saves. */
  onKeyDown: (e: KeyboardEvent) => void;
}

/**
 * Keeps an edit of one artifact: Save stores the text on top of the base version; a
 * conflict keeps the text with the backend's explanation; reload makes the latest version
 * the new base (the text stays); closing with changes asks first.
 */
export function useEditor(p: EditorTarget): EditorState {
  const { t } = useTranslation('artifacts');
  const [text, setTextState] = useState(p.initialContent);
  const [base, setBase] = useState<Latest>({ version: p.baseVersion, content: p.initialContent });
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState('');
  const [conflict, setConflict] = useState('');
  const [latest, setLatest] = useState<Latest | null>(null);
  const [reloading, setReloading] = useState(false);
  const [showDiff, setShowDiff] = useState(false);
  const [confirmClose, setConfirmClose] = useState(false);
  const [copied, setCopied] = useState('');
  const dirty = text !== base.content;

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

  return {
    text,
    setText: (v) => {
      setTextState(v);
      setConfirmClose(false);
    },
    base,
    dirty,
    saving,
    error,
    conflict,
    latest,
    reloading,
    showDiff,
    toggleDiff: () => setShowDiff((v) => !v),
    confirmClose,
    keepEditing: () => setConfirmClose(false),
    copied,
    save,
    reload,
    keepLatest: () => {
      if (latest) setTextState(latest.content);
      setLatest(null);
    },
    requestClose,
    copy: () => {
      void copyText(text).then((ok) => setCopied(ok ? t('editor.copied') : t('editor.copyFailed')));
    },
    onKeyDown: (e) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 's') {
        e.preventDefault();
        save();
      }
    },
  };
}
