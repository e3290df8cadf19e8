// The bound-call wrapper and the normalizers of Go's JSON that the typed API modules
// (api-conversation.ts, api-declared.ts, api-settings.ts, api-sources.ts, api-workspace.ts)
// share: each call resolves with what the binding returns or rejects with an ApiError, and
// every field read from an answer goes through one of the normalizers, since Go's JSON may
// leave a field out or send null.

import { ApiError, toApiError } from './api';

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

/** Reports whether `v` is an object or a function, whose fields can be read. */
export function isObject(v: unknown): v is Loose {
  return (typeof v === 'object' || typeof v === 'function') && v !== null;
}

/**
 * Runs `fn`, the bound call of `service.method` (window.go.app[service][method]). Rejects
 * with ApiError "unavailable" when no backend is attached, "unsupported" when the backend
 * does not bind that method (an older backend, or a test double without it), else with the
 * call's error as an ApiError (toApiError).
 */
export async function callService<T>(service: string, method: string, fn: () => Promise<T>): Promise<T> {
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
