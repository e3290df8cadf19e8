// The one call helper of the frontend API (docs/ARCHITECTURE.md, "Frontend API"): every
// bound method is called through callService, which resolves with what the generated binding
// (frontend/wailsjs) returns or rejects with an ApiError. Also here: the conversion of
// whatever a call rejected with into an ApiError, the loose readers every service module
// normalizes Go's JSON with (Go may leave a field out or send null), and Model, which turns
// a generated model class into the plain type the modules derive theirs from.

import { needsSetup, isErrorCode, parseErrorPayload, payloadOf, type ErrorPayload } from '../shared/errors';

/**
 * An error from a bound method, with the backend's stable code (app.AppError; the codes
 * and their fixes are in errors.ts). The backend rejects with the AppError's JSON text
 * (window and browser mode alike); its Error() form "<code>: <message>" is read too when
 * the code is one of ERROR_CODES; anything else gets code "error" and the whole text as
 * message. `code` is "unavailable" when no backend is attached to the page, "unsupported"
 * when the backend does not bind the method called.
 */
export class ApiError extends Error {
  /** Machine-readable code, e.g. "invalid_settings"; "error" when the backend gave none. */
  readonly code: string;
  /** Field name → what is wrong with it (invalid_settings, validation; search_failed: "reason"). */
  readonly fields: Readonly<Record<string, string>>;
  /** The underlying error's text when the message replaces it ("" otherwise). */
  readonly detail: string;
  /** Trying again later may succeed. */
  readonly retryable: boolean;

  /** Creates an ApiError; `message` is shown to the user as is. */
  constructor(code: string, message: string, extra: { fields?: Record<string, string>; detail?: string; retryable?: boolean } = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.fields = extra.fields ?? {};
    this.detail = extra.detail ?? '';
    this.retryable = extra.retryable ?? false;
  }
}

const CODE_RE = /^([a-z][a-z0-9_]{0,63}):\s+([\s\S]+)$/;

/** The ApiError of a decoded AppError. */
function fromPayload(p: ErrorPayload): ApiError {
  return new ApiError(p.code, p.message === '' ? p.code : p.message, { fields: p.fields, detail: p.detail, retryable: p.retryable });
}

/**
 * Converts whatever a bound call rejected with (an Error or string holding an AppError's
 * JSON, an AppError object, a "code: message" text with a known code, or other) into an
 * ApiError (see ApiError).
 */
export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  let text: string;
  if (typeof e === 'string') {
    text = e;
  } else if (e instanceof Error) {
    text = e.message;
  } else if (typeof e === 'object' && e !== null) {
    const p = payloadOf(e);
    if (p !== null && p.message !== '') return fromPayload(p);
    const o = e as { message?: unknown; error?: unknown };
    const msg = typeof o.message === 'string' ? o.message : typeof o.error === 'string' ? o.error : '';
    text = msg !== '' ? msg : JSON.stringify(e);
  } else {
    text = String(e);
  }
  text = text.trim();
  const p = parseErrorPayload(text);
  if (p !== null) return fromPayload(p);
  const m = CODE_RE.exec(text);
  if (m?.[1] && m[2] && isErrorCode(m[1])) return new ApiError(m[1], m[2].trim());
  return new ApiError('error', text === '' ? 'Unknown error' : text);
}

/**
 * Reports whether `e` means the model is not set up (code model_not_configured or
 * invalid_settings), so the UI can offer to open the settings. Decided by the code only.
 */
export function isSettingsError(e: unknown): boolean {
  return needsSetup(toApiError(e).code);
}

/** A JSON object as it arrives from a bound call: any field may be missing or of another type. */
export type Loose = Record<string, unknown>;

/** `v` when it is a string, else "". */
export const asString = (v: unknown): string => (typeof v === 'string' ? v : '');

/** `v` when it is a finite number, else 0. */
export const asNumber = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** true only when `v` is true. */
export const asBool = (v: unknown): boolean => v === true;

/** `v` when it is a plain object (not null, not an array), else an empty object. */
export const asObject = (v: unknown): Loose => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Loose) : {});

/** `v` when it is an array, else an empty one (Go encodes a nil slice as null). */
export const asList = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);

/** `v` when it is an array, its strings only; else an empty list. */
export const asStrings = (v: unknown): string[] => asList(v).filter((x): x is string => typeof x === 'string');

/** Reports whether `v` is an object or a function, whose fields can be read. */
export function isObject(v: unknown): v is Loose {
  return (typeof v === 'object' || typeof v === 'function') && v !== null;
}

/**
 * The data fields of a model class the Wails generator wrote (frontend/wailsjs/go/models.ts,
 * `make bindings`), without its methods (convertValues) and with every field required: the
 * service modules derive their types from it (overriding the fields they type more
 * narrowly), and their normalizers fill every field, "" / 0 / false / [] for what Go left out.
 */
export type Model<T> = { [K in keyof T as T[K] extends (...args: never[]) => unknown ? never : K]-?: T[K] };

/**
 * An argument of a bound method whose parameter the generator typed as a model class
 * (frontend/wailsjs/go/models.ts), built from its data fields alone: the bindings send it as
 * JSON, where an object literal and the class's instance are the same, so the classes (a
 * 100 KB module) need not be in the first screen's bundle. The fields given are type-checked
 * against T's; one left out is left out of the JSON too (Go reads it as its zero value, as it
 * did when the class's constructor copied an undefined field).
 */
export function wire<T extends object>(fields: { [K in keyof T as T[K] extends (...args: never[]) => unknown ? never : K]?: T[K] }): T {
  return fields as T;
}

/**
 * The bound services as the generator names them (Go's app.ChatService … SettingsService;
 * one module of src/api each).
 */
export type ServiceName = 'ChatService' | 'ConversationService' | 'ArtifactService' | 'SettingsService';

/**
 * Runs `fn`, the bound call of `service.method` (window.go.app[service][method], called through
 * its generated binding). Rejects with ApiError "unavailable" when no backend is attached,
 * "unsupported" when the backend does not bind that method (an older backend, or a test
 * double without it), else with the call's error as an ApiError (toApiError).
 */
export async function callService<T>(service: ServiceName, method: string, fn: () => Promise<T>): Promise<T> {
  const go: unknown = (window as unknown as Loose).go;
  const bound = isObject(go) && isObject(go.app) ? go.app : null;
  if (bound === null) throw new ApiError('unavailable', 'The ArtifactFlow backend is not connected to this page.');
  const svc = bound[service];
  if (!isObject(svc) || typeof svc[method] !== 'function') {
    throw new ApiError('unsupported', `This backend has no ${service}.${method}.`);
  }
  try {
    return await fn();
  } catch (e) {
    throw toApiError(e);
  }
}
