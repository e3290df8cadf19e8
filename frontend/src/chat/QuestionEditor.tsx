import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Spinner } from '../shared/icons';

/** Props of QuestionEditor. */
export interface QuestionEditorProps {
  initial: string;
  busy: boolean;
  onCancel: () => void;
  onSubmit: (text: string) => void;
}

/** The inline editor of a question: Enter or Ctrl/Cmd+Enter resends, Shift+Enter adds a line, Esc cancels. */
export function QuestionEditor({ initial, busy, onCancel, onSubmit }: QuestionEditorProps) {
  const { t } = useTranslation('chat');
  const [value, setValue] = useState(initial);
  const ref = useRef<HTMLTextAreaElement>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${String(Math.min(el.scrollHeight, 260))}px`;
  }, [value]);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, []);
  const text = value.trim();
  const can = text !== '' && !busy;
  return (
    <form
      className="question-edit"
      aria-label={t('edit.label')}
      onSubmit={(e) => {
        e.preventDefault();
        if (can) onSubmit(text);
      }}
    >
      <textarea
        ref={ref}
        className="question-edit-input"
        value={value}
        rows={2}
        aria-label={t('edit.input')}
        disabled={busy}
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            onCancel();
          } else if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            if (can) onSubmit(text);
          }
        }}
      />
      <div className="question-edit-foot">
        <span className="hint">{t('edit.hint')}</span>
        <button type="button" className="btn btn-sm" onClick={onCancel} disabled={busy}>
          {t('common:cancel')} <kbd>Esc</kbd>
        </button>
        <button type="submit" className="btn btn-sm btn-primary" disabled={!can}>
          {busy ? <Spinner size={12} /> : null}
          {t('edit.resend')}
        </button>
      </div>
    </form>
  );
}
