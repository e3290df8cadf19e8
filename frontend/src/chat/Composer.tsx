import { useLayoutEffect, type ReactNode, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { SendIcon, Spinner, StopIcon } from '../shared/icons';
import { MOD_KEY } from '../sidebar/Sidebar';

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

/** One shortcut of the hint: its keys and what they do, never broken across lines (a Chinese word would split: "换/行"). */
function Shortcut({ keys, label }: { keys: string[]; label: string }) {
  return (
    <span className="hint-item">
      {keys.map((k, i) => (
        <span key={k}>
          {i > 0 ? '+' : null}
          <kbd>{k}</kbd>
        </span>
      ))}{' '}
      {label}
    </span>
  );
}

/** The keyboard hints under the box; lines break only between shortcuts. */
function ComposerHint({ running }: { running: boolean }) {
  const { t } = useTranslation('chat');
  return (
    <div className="composer-hint">
      <span>
        {running ? (
          <>
            <Shortcut keys={['Enter']} label={t('composer.hintAdds')} /> · <Shortcut keys={['Esc']} label={t('composer.hintStops')} />
          </>
        ) : (
          <>
            <Shortcut keys={['Enter']} label={t('composer.hintSend')} /> · <Shortcut keys={['Shift', 'Enter']} label={t('composer.hintNewLine')} />
          </>
        )}
      </span>
      <span>
        <Shortcut keys={[MOD_KEY, 'N']} label={t('composer.hintNew')} /> · <Shortcut keys={[MOD_KEY, ',']} label={t('composer.hintSettings')} /> ·{' '}
        <Shortcut keys={[MOD_KEY, 'B']} label={t('composer.hintSidebar')} /> · <Shortcut keys={[MOD_KEY, 'J']} label={t('composer.hintPanel')} />
      </span>
    </div>
  );
}
