import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { ArtifactView } from '../api/artifacts';
import { useEditor } from './useEditor';
import '../i18n/i18n'; // the UI's language, set up before the first render
import { EditorFooter, EditorNotices, EditorPanes } from './EditorParts';
import { Modal } from '../shared/Modal';

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
  const ed = useEditor(p);
  const area = useRef<HTMLTextAreaElement>(null);

  // The text has focus, at its start, once the dialog is open.
  useEffect(() => {
    const el = area.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(0, 0);
    el.scrollTop = 0;
  }, []);

  return (
    <Modal title={t('editor.title', { title: p.title })} onClose={ed.requestClose} className="modal-wide modal-editor" footer={<EditorFooter ed={ed} />}>
      <div className="editor" onKeyDown={ed.onKeyDown}>
        <EditorNotices ed={ed} onDiscard={p.onClose} />
        <EditorPanes ed={ed} title={p.title} area={area} />
      </div>
    </Modal>
  );
}
