import { useEffect, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { XIcon } from './icons';

/** Props of Modal. */
export interface ModalProps {
  title: string;
  onClose: () => void;
  children: ReactNode;
  /** Buttons shown at the bottom right. */
  footer?: ReactNode;
  /** Extra class for the dialog box, e.g. a width modifier. */
  className?: string;
}

/**
 * A modal dialog on the native <dialog> element: focus stays inside, Esc and the close
 * button call onClose. Rendered open; unmount it to close.
 */
export function Modal({ title, onClose, children, footer, className }: ModalProps) {
  const { t } = useTranslation('tools');
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => {
      if (d?.open) d.close();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className={className ? `modal ${className}` : 'modal'}
      aria-label={title}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <div className="modal-head">
        <h2>{title}</h2>
        <button type="button" className="icon-btn" onClick={onClose} aria-label={t('common:close')}>
          <XIcon />
        </button>
      </div>
      <div className="modal-body">{children}</div>
      {footer ? <div className="modal-foot">{footer}</div> : null}
    </dialog>
  );
}

/** Props of ConfirmDialog. */
export interface ConfirmDialogProps {
  title: string;
  message: ReactNode;
  confirmLabel: string;
  /** Styles the confirm button as destructive. */
  danger?: boolean;
  busy?: boolean;
  error?: string;
  onConfirm: () => void;
  onCancel: () => void;
}

/** A yes/no question in a Modal; the cancel button has focus first. */
export function ConfirmDialog(p: ConfirmDialogProps) {
  const { t } = useTranslation('tools');
  return (
    <Modal
      title={p.title}
      onClose={p.onCancel}
      className="modal-small"
      footer={
        <>
          <button type="button" className="btn" onClick={p.onCancel} autoFocus>
            {t('common:cancel')}
          </button>
          <button type="button" className={p.danger ? 'btn btn-danger' : 'btn btn-primary'} onClick={p.onConfirm} disabled={p.busy}>
            {p.confirmLabel}
          </button>
        </>
      }
    >
      <div className="confirm-text">{p.message}</div>
      {p.error ? <p className="field-error" role="alert">{p.error}</p> : null}
    </Modal>
  );
}
