// The error codes of the backend (app.AppError, app/errors.go) and what the page does with
// them. A bound method's error arrives as the JSON text of an AppError,
// {"code","message","detail"?,"fields"?,"retryable"?}: in the window as the message of the
// rejected Error (Wails' ErrorFormatter is app.FormatBoundError), in browser mode the same
// (the shim throws an Error with that JSON). AppError's Error() text, "<code>: <message>",
// is read too, but only for a code this list knows, so a Go error chain such as "store:
// not found" never passes for a code. The page switches on these codes only, never on
// message text. What the page says about a code is in the `errors` catalogue
// (errorMessage, runErrorTitle, runErrorHint), in the UI's language; the backend's own
// (English) text is shown only as the detail.

import { i18n } from '../i18n/i18n';

/** Every code app.AppError uses (the Code* constants of app/errors.go). */
export const ERROR_CODES = [
  'not_found',
  'conflict',
  'busy',
  'invalid_request',
  'validation',
  'invalid_settings',
  'model_not_configured',
  'model_unreachable',
  'model_auth',
  'model_rate_limited',
  'model_unavailable',
  'model_rejected',
  'model_answer_too_large',
  'search_failed',
  'file_too_large',
  'not_a_file',
  'file_unavailable',
  'open_failed',
  'forbidden',
  'not_running',
  'desktop_only',
  'cancelled',
  'timeout',
  'unavailable',
  'internal',
  'database_corrupt',
  'settings_file_invalid',
] as const;

/** One of ERROR_CODES. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Reports whether `code` is one of the backend's error codes. */
export function isErrorCode(code: string): code is ErrorCode {
  return (ERROR_CODES as readonly string[]).includes(code);
}

/** An AppError as decoded from its JSON text. */
export interface ErrorPayload {
  code: string;
  message: string;
  /** The underlying Go error's text when `message` replaces it ("" otherwise). */
  detail: string;
  /** Field name → what is wrong (invalid_settings, validation); search_failed has "reason". */
  fields: Record<string, string>;
  retryable: boolean;
}

/**
 * Decodes `text` when it is the JSON of an AppError (an object with string `code` and
 * `message`); null otherwise. Non-string field values are dropped.
 */
export function parseErrorPayload(text: string): ErrorPayload | null {
  const t = text.trim();
  if (!t.startsWith('{')) return null;
  let v: unknown;
  try {
    v = JSON.parse(t);
  } catch {
    return null;
  }
  return payloadOf(v);
}

/** The ErrorPayload of an object with string `code` and `message`; null for anything else. */
export function payloadOf(v: unknown): ErrorPayload | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  if (typeof o.code !== 'string' || o.code === '' || typeof o.message !== 'string') return null;
  const fields: Record<string, string> = {};
  if (typeof o.fields === 'object' && o.fields !== null && !Array.isArray(o.fields)) {
    for (const [k, x] of Object.entries(o.fields as Record<string, unknown>)) {
      if (typeof x === 'string') fields[k] = x;
    }
  }
  return {
    code: o.code,
    message: o.message,
    detail: typeof o.detail === 'string' ? o.detail : '',
    fields,
    retryable: o.retryable === true,
  };
}

/** The fixes a failed call or run offers the user. */
export interface ErrorFixes {
  /** Show "Open settings": the model or search settings are what is wrong. */
  openSettings: boolean;
  /** Show "Retry": trying again later may work (rate limit, network, a 5xx). */
  retry: boolean;
}

const SETTINGS_CODES: ReadonlySet<string> = new Set([
  'model_auth',
  'model_unreachable',
  'model_rejected',
  'model_not_configured',
  'invalid_settings',
]);
const RETRY_CODES: ReadonlySet<string> = new Set(['model_rate_limited', 'model_unreachable', 'model_unavailable', 'timeout']);

/**
 * The fixes for an error code: "Open settings" for model_auth, model_unreachable,
 * model_rejected, model_not_configured, invalid_settings and search_failed whose reason is
 * auth, not_configured or unknown_provider; "Retry" for rate limits (model or search),
 * network errors (model_unreachable), a failing endpoint (model_unavailable) and timeouts.
 */
export function fixesFor(code: string, fields: Readonly<Record<string, string>> = {}): ErrorFixes {
  if (code === 'search_failed') {
    const reason = fields.reason ?? '';
    return { openSettings: reason !== 'rate_limited', retry: reason === 'rate_limited' };
  }
  return { openSettings: SETTINGS_CODES.has(code), retry: RETRY_CODES.has(code) };
}

// i18n-keys: errors:code.not_found errors:code.conflict errors:code.busy errors:code.invalid_request errors:code.validation
// i18n-keys: errors:code.invalid_settings errors:code.model_not_configured errors:code.model_unreachable errors:code.model_auth
// i18n-keys: errors:code.model_rate_limited errors:code.model_unavailable errors:code.model_rejected errors:code.model_answer_too_large
// i18n-keys: errors:code.search_failed errors:code.file_too_large errors:code.not_a_file errors:code.file_unavailable
// i18n-keys: errors:code.open_failed errors:code.forbidden errors:code.not_running errors:code.desktop_only errors:code.cancelled
// i18n-keys: errors:code.timeout errors:code.unavailable errors:code.internal
// i18n-keys: errors:code.database_corrupt errors:code.settings_file_invalid

/**
 * What an error code means, in the UI's language ("The model could not be reached."): one
 * sentence for every code of ERROR_CODES; "" for anything else.
 */
export function errorMessage(code: string): string {
  return isErrorCode(code) ? i18n.t(`errors:code.${code}`) : '';
}

// i18n-keys: errors:title.model_unreachable errors:title.model_auth errors:title.model_rate_limited errors:title.model_unavailable
// i18n-keys: errors:title.model_rejected errors:title.model_not_configured errors:title.invalid_settings errors:title.search_failed
const TITLED: ReadonlySet<string> = new Set([
  'model_unreachable',
  'model_auth',
  'model_rate_limited',
  'model_unavailable',
  'model_rejected',
  'model_not_configured',
  'invalid_settings',
  'search_failed',
]);

/** A short title for a failed run with this code ("The research failed" when none fits), in the UI's language. */
export function runErrorTitle(code: string): string {
  return TITLED.has(code) ? i18n.t(`errors:title.${code}`) : i18n.t('errors:title.default');
}

// i18n-keys: errors:hint.model_unreachable errors:hint.model_auth errors:hint.model_rate_limited errors:hint.model_unavailable
// i18n-keys: errors:hint.model_rejected errors:hint.setup
/**
 * What the user can do about a failed run with this code ("Check the API key in Settings."),
 * in the UI's language; "" when the code has no advice.
 */
export function runErrorHint(code: string): string {
  switch (code) {
    case 'model_unreachable':
    case 'model_auth':
    case 'model_rate_limited':
    case 'model_unavailable':
    case 'model_rejected':
      return i18n.t(`errors:hint.${code}`);
    case 'model_not_configured':
    case 'invalid_settings':
      return i18n.t('errors:hint.setup');
    default:
      return '';
  }
}

/** Reports whether `code` means the model or settings must be set up before anything runs. */
export function needsSetup(code: string): boolean {
  return code === 'model_not_configured' || code === 'invalid_settings';
}

/**
 * The text the page shows for a failed call, in the UI's language: not_found says what
 * happened ("deleted, perhaps in another window") and unavailable that the backend is not
 * there, whatever the backend wrote; any other known code gives its errorMessage with the
 * backend's own text after it as the detail; a code this page does not know shows the
 * error's own message.
 */
export function describeError(err: { code: string; message: string }): string {
  if (err.code === 'not_found' || (err.code === 'unavailable' && err.message === '')) return errorMessage(err.code);
  const what = errorMessage(err.code);
  if (what === '') return err.message;
  return err.message === '' ? what : i18n.t('errors:withDetail', { message: what, detail: err.message });
}
