import { useEffect, useRef, type KeyboardEvent, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { useTranslation } from 'react-i18next';
import '../i18n/i18n'; // the UI's language, set up before the first render
import { XIcon } from '../shared/icons';

/** Props of ArtifactReader. */
export interface ArtifactReaderProps {
  /** The artifact's title (or id), the reader's heading. */
  title: string;
  /** A line under the title, e.g. "research_report · v3". */
  meta: string;
  /** The rendered artifact. */
  children: ReactNode;
  onClose: () => void;
}

/**
 * An artifact read full-window: the whole window shows the artifact in a readable column,
 * above everything but citation cards. It is a dialog (a <dialog> shown non-modally, so
 * citation cards, which live at the end of the body, still show above it): focus moves into
 * it and Tab stays inside; Esc (unless something inside used it, such as an open citation
 * card) and the Close button close it, and focus returns to where it was.
 */
export function ArtifactReader({ title, meta, children, onClose }: ArtifactReaderProps) {
  const { t } = useTranslation('artifacts');
  const ref = useRef<HTMLDialogElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    closeRef.current?.focus();
    return () => before?.focus();
  }, []);

  const onKeyDown = (e: KeyboardEvent<HTMLDialogElement>) => {
    if (e.key === 'Escape' && !e.defaultPrevented) {
      e.preventDefault();
      e.stopPropagation();
      onClose();
      return;
    }
    if (e.key !== 'Tab') return;
    const focusable = Array.from(
      ref.current?.querySelectorAll<HTMLElement>('button, a[href], input, select, textarea, iframe, [tabindex]:not([tabindex="-1"])') ?? [],
    ).filter((el) => !el.hasAttribute('disabled'));
    const first = focusable[0];
    const last = focusable.at(-1);
    if (first === undefined || last === undefined) return;
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };

  return createPortal(
    <dialog ref={ref} open className="reader" aria-modal="true" aria-label={t('reader.label', { title })} onKeyDown={onKeyDown}>
      <header className="reader-head">
        <div className="reader-heading">
          <h2 className="reader-title">{title}</h2>
          <span className="reader-meta">{meta}</span>
        </div>
        <button ref={closeRef} type="button" className="btn btn-sm btn-ghost" onClick={onClose} title={t('reader.closeTitle')}>
          <XIcon size={14} /> {t('common:close')} <kbd>Esc</kbd>
        </button>
      </header>
      <div className="reader-scroll" tabIndex={0} aria-label={t('reader.scroll', { title })}>
        <div className="reader-body">{children}</div>
      </div>
    </dialog>,
    document.body,
  );
}
