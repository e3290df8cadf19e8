import { useTranslation } from 'react-i18next';
import { fixesFor, runErrorHint, runErrorTitle } from '../shared/errors';
import { AlertIcon } from '../shared/icons';

/** Props of RunError. */
export interface RunErrorProps {
  /** The run's error code (DataTerminal.code; "" for an older run without one). */
  code: string;
  /** The run's error text, shown as the detail. */
  message: string;
  /** Opens the Settings dialog. */
  onOpenSettings: () => void;
  /** Researches the question again (Regenerate); absent when the question is not stored. */
  onRetry?: () => void;
  /** Disables Retry (another run is going). */
  retryDisabled?: boolean;
}

/**
 * The error box of a failed run: a title and hint chosen by the error code, the engine's
 * error text as detail, and the code's fixes: "Open settings" for model_auth,
 * model_unreachable, model_rejected, model_not_configured, invalid_settings and
 * search_failed (auth, not configured), "Retry" (regenerate) for rate limits, network
 * errors and failing endpoints (fixesFor). Title, hint and buttons are in the UI's
 * language.
 */
export function RunError({ code, message, onOpenSettings, onRetry, retryDisabled }: RunErrorProps) {
  const { t } = useTranslation('errors');
  const fixes = fixesFor(code);
  const hint = runErrorHint(code);
  return (
    <div className="error-box run-error" role="alert" data-error-code={code || undefined}>
      <AlertIcon size={16} />
      <div className="error-body">
        <strong>{runErrorTitle(code)}</strong>
        {hint ? <div className="error-msg">{hint}</div> : null}
        <div className={hint ? 'error-msg error-detail' : 'error-msg'}>{message || t('runEnded')}</div>
        {fixes.openSettings || (fixes.retry && onRetry) ? (
          <div className="error-actions">
            {fixes.openSettings ? (
              <button type="button" className="btn btn-primary btn-sm" onClick={onOpenSettings}>
                {t('common:openSettings')}
              </button>
            ) : null}
            {fixes.retry && onRetry ? (
              <button type="button" className="btn btn-sm" disabled={retryDisabled} onClick={onRetry}>
                {t('common:retry')}
              </button>
            ) : null}
          </div>
        ) : null}
      </div>
    </div>
  );
}
