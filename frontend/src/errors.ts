// The error codes of the backend (app.AppError, app/errors.go) and what the page does with
// them (issue 10 item 2). A bound method's error arrives as the JSON text of an AppError,
// {"code","message","detail"?,"fields"?,"retryable"?}: in the window as the message of the
// rejected Error (Wails' ErrorFormatter is app.FormatBoundError), in browser mode the same
// (the shim throws an Error with that JSON). AppError's Error() text, "<code>: <message>",
// is read too, but only for a code this list knows, so a Go error chain such as
// "store: not found" never passes for a code. The page switches on these codes only,
// never on message text.

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

/** A short title for a failed run with this code ("The research failed" when none fits). */
export function runErrorTitle(code: string): string {
  switch (code) {
    case 'model_unreachable':
      return 'The model could not be reached';
    case 'model_auth':
      return 'The model refused the API key';
    case 'model_rate_limited':
      return 'The model is rate limited';
    case 'model_unavailable':
      return 'The model endpoint failed';
    case 'model_rejected':
      return 'The model refused the request';
    case 'model_not_configured':
      return 'The model is not set up';
    case 'invalid_settings':
      return 'The settings are invalid';
    case 'search_failed':
      return 'Web search failed';
    default:
      return 'The research failed';
  }
}

/** Reports whether `code` means the model or settings must be set up before anything runs. */
export function needsSetup(code: string): boolean {
  return code === 'model_not_configured' || code === 'invalid_settings';
}

/**
 * The text the page shows for a failed call, chosen by its code where the code says more
 * than the backend's text: not_found tells what happened ("deleted, perhaps in another
 * window"), desktop_only that the desktop window can do it; any other code shows the
 * error's own message.
 */
export function describeError(err: { code: string; message: string }): string {
  switch (err.code) {
    case 'not_found':
      return 'It no longer exists: it was deleted, perhaps in another window.';
    case 'unavailable':
      return err.message || 'The ArtifactFlow backend is not available.';
    default:
      return err.message;
  }
}
