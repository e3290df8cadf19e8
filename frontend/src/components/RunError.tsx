import { fixesFor, runErrorTitle } from '../errors';
import { AlertIcon } from './icons';

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

/** What the user can do about a failed run, by code (the title and hint; never parsed from the text). */
function hintFor(code: string): string {
  switch (code) {
    case 'model_unreachable':
      return 'Check the base URL in Settings and that the endpoint is running, then retry.';
    case 'model_auth':
      return 'Check the API key in Settings.';
    case 'model_rate_limited':
      return 'Wait a moment, then retry.';
    case 'model_unavailable':
      return 'The endpoint answered with an error; retrying may help.';
    case 'model_rejected':
      return 'Check the model name and endpoint in Settings.';
    case 'model_not_configured':
    case 'invalid_settings':
      return 'Finish the model settings, then ask again.';
    default:
      return '';
  }
}

/**
 * The error box of a failed run (issue 10 item 2): a title and hint chosen by the error
 * code, the engine's error text as detail, and the code's fixes: "Open settings" for
 * model_auth, model_unreachable, model_rejected, model_not_configured, invalid_settings and
 * search_failed (auth, not configured), "Retry" (regenerate) for rate limits, network
 * errors and failing endpoints (fixesFor).
 */
export function RunError({ code, message, onOpenSettings, onRetry, retryDisabled }: RunErrorProps) {
  const fixes = fixesFor(code);
  const hint = hintFor(code);
  return (
    <div className="error-box run-error" role="alert" data-error-code={code || undefined}>
      <AlertIcon size={16} />
      <div className="error-body">
        <strong>{runErrorTitle(code)}</strong>
        {hint ? <div className="error-msg">{hint}</div> : null}
        <div className={hint ? 'error-msg error-detail' : 'error-msg'}>{message || 'The run ended with an error.'}</div>
        {fixes.openSettings || (fixes.retry && onRetry) ? (
          <div className="error-actions">
            {fixes.openSettings ? (
              <button type="button" className="btn btn-primary btn-sm" onClick={onOpenSettings}>
                Open settings
              </button>
            ) : null}
            {fixes.retry && onRetry ? (
              <button type="button" className="btn btn-sm" disabled={retryDisabled} onClick={onRetry}>
                Retry
              </button>
            ) : null}
          </div>
        ) : null}
      </div>
    </div>
  );
}
