import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { AlertIcon } from '../shared/icons';

/** Props of ErrorBox. */
export interface ErrorBoxProps {
  title: string;
  children: ReactNode;
  action?: ReactNode;
  onDismiss?: () => void;
}

/** A clearly marked error message with an optional action and dismiss button. */
export function ErrorBox({ title, children, action, onDismiss }: ErrorBoxProps) {
  const { t } = useTranslation('chat');
  return (
    <div className="error-box" role="alert">
      <AlertIcon size={16} />
      <div className="error-body">
        <strong>{title}</strong>
        <div className="error-msg">{children}</div>
        {action || onDismiss ? (
          <div className="error-actions">
            {action}
            {onDismiss ? (
              <button type="button" className="btn btn-sm" onClick={onDismiss}>
                {t('dismiss')}
              </button>
            ) : null}
          </div>
        ) : null}
      </div>
    </div>
  );
}
