import { useLayoutEffect, type ReactNode, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { SendIcon, Spinner, StopIcon } from './icons';
import { MOD_KEY } from './Sidebar';

/** Props of Composer. */
export interface ComposerProps {
  value: string;
  onChange: (v: string) => void;
  /** Sends the question, or while a run is going adds it to the run (queued). */
  onSend: () => void;
  onStop: () => void;
  running: boolean;
  sending: boolean;
  textareaRef: RefObject<HTMLTextAreaElement | null>;
  /** Shown above the box (the search banner). */
  banner?: ReactNode;
}

/** The question box under the conversation: Enter sends (or queues during a run), Esc stops. */
export function Composer({ value, onChange, onSend, onStop, running, sending, textareaRef, banner }: ComposerProps) {
  const { t } = useTranslation('chat');
  useLayoutEffect(() => {
    const el = textareaRef.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${String(Math.min(el.scrollHeight, 220))}px`;
  }, [value, running, textareaRef]);
  const canSend = value.trim() !== '' && !sending;
  return (
    <div className="composer-wrap">
      {banner}
      <form
        className="composer"
        onSubmit={(e) => {
          e.preventDefault();
          if (canSend) onSend();
        }}
      >
        <textarea
          ref={textareaRef}
          className="composer-input"
          rows={1}
          value={value}
          placeholder={running ? t('composer.placeholderRunning') : t('composer.placeholder')}
          aria-label={t('composer.label')}
          onChange={(e) => onChange(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              if (canSend) onSend();
            }
          }}
        />
        {running ? (
          <>
            <button type="submit" className="btn btn-primary btn-send" disabled={!canSend} aria-label={t('composer.queue')} title={t('composer.queueTitle')}>
              <SendIcon size={16} />
            </button>
            <button type="button" className="btn btn-stop" onClick={onStop} title={t('composer.stopTitle')}>
              <StopIcon size={14} />
              {t('composer.stop')}
            </button>
          </>
        ) : (
          <button type="submit" className="btn btn-primary btn-send" disabled={!canSend} aria-label={t('composer.send')} title={t('composer.sendTitle')}>
            {sending ? <Spinner size={14} /> : <SendIcon size={16} />}
          </button>
        )}
      </form>
      <ComposerHint running={running} />
    </div>
  );
}

/** The keyboard hints under the box. */
function ComposerHint({ running }: { running: boolean }) {
  const { t } = useTranslation('chat');
  return (
    <div className="composer-hint">
      <span>
        {running ? (
          <>
            <kbd>Enter</kbd> {t('composer.hintAdds')} · <kbd>Esc</kbd> {t('composer.hintStops')}
          </>
        ) : (
          <>
            <kbd>Enter</kbd> {t('composer.hintSend')} · <kbd>Shift</kbd>+<kbd>Enter</kbd> {t('composer.hintNewLine')}
          </>
        )}
      </span>
      <span>
        <kbd>{MOD_KEY}</kbd>+<kbd>N</kbd> {t('composer.hintNew')} · <kbd>{MOD_KEY}</kbd>+<kbd>,</kbd> {t('composer.hintSettings')} ·{' '}
        <kbd>{MOD_KEY}</kbd>+<kbd>B</kbd> {t('composer.hintSidebar')} · <kbd>{MOD_KEY}</kbd>+<kbd>J</kbd> {t('composer.hintPanel')}
      </span>
    </div>
  );
}
