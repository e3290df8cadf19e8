import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { copyText } from '../api/runtime';
import { COPIED_MS, copyLabel, type CopyState } from './copy';
import { CopyIcon } from '../declared/declared-icons';
import { CheckIcon } from '../shared/icons';

/** Props of CopyButton. */
export interface CopyButtonProps {
  /** The text to copy, read at click time (so a streaming answer copies what is there). */
  text: () => string;
  /** What is copied, for the accessible name: "Copy answer", "Copy artifact". */
  label: string;
  className?: string;
  disabled?: boolean;
}

/**
 * A button that copies text to the clipboard (api.copyText: the Wails runtime's
 * ClipboardSetText in the window, navigator.clipboard in a browser) and says "Copied" (or
 * "Copy failed") for two seconds, in a polite live region so screen readers hear it. A
 * normal button: reachable with Tab, pressed with Enter or Space.
 */
export function CopyButton({ text, label, className, disabled }: CopyButtonProps) {
  useTranslation('tools'); // re-render on a language change (copyLabel reads the UI's language)
  const [state, setState] = useState<CopyState>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const t = window.setTimeout(() => setState('idle'), COPIED_MS);
    return () => window.clearTimeout(t);
  }, [state]);
  const onClick = () => {
    void copyText(text()).then((ok) => setState(ok ? 'copied' : 'failed'));
  };
  return (
    <button
      type="button"
      className={`btn btn-sm btn-ghost copy-btn${state !== 'idle' ? ` copy-${state}` : ''}${className ? ` ${className}` : ''}`}
      onClick={onClick}
      disabled={disabled}
      aria-label={state === 'idle' ? label : `${label}: ${copyLabel(state)}`}
      title={label}
    >
      {state === 'copied' ? <CheckIcon size={13} /> : <CopyIcon size={13} />}
      <span className="btn-label" aria-live="polite">
        {copyLabel(state)}
      </span>
    </button>
  );
}
