// Bytes in and out of the page: base64 for the bound calls (Go []byte travels as base64 in
// JSON), the upload size limit checked before a file is read, and downloads of exports in
// browser mode.

import { errorMessage } from '../shared/errors';
import { currentLocale, i18n } from '../i18n/i18n';

/** Bytes per MiB; the upload limit in the settings is in MiB. */
export const MIB = 1024 * 1024;

/**
 * Encodes bytes as standard, padded base64 (what Go's encoding/json expects for []byte).
 * Works in chunks, so large files do not overflow the call stack.
 */
export function bytesToBase64(bytes: Uint8Array): string {
  const CHUNK = 0x8000;
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += CHUNK) {
    parts.push(String.fromCharCode(...bytes.subarray(i, i + CHUNK)));
  }
  return btoa(parts.join(''));
}

/**
 * Decodes standard base64 (padded or not, whitespace ignored) to bytes. Throws a TypeError
 * with a readable message when `b64` is not base64.
 */
export function base64ToBytes(b64: string): Uint8Array {
  let bin: string;
  try {
    bin = atob(b64.replace(/\s+/g, ''));
  } catch {
    throw new TypeError(i18n.t('workspace:upload.badBase64'));
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * A size for the upload messages in the UI's language: "512 bytes", "1.5 KB", "20 MB"
 * (1 KB = 1024 bytes; at most one decimal, none when it is 0).
 */
export function formatUploadSize(bytes: number): string {
  if (bytes < 1024) return i18n.t('workspace:size.bytes', { count: bytes });
  const n = new Intl.NumberFormat(currentLocale(), { maximumFractionDigits: 1, useGrouping: false }).format(Number((bytes < MIB ? bytes / 1024 : bytes / MIB).toFixed(1)));
  return bytes < MIB ? i18n.t('workspace:size.kb', { n }) : i18n.t('workspace:size.mb', { n });
}

/**
 * Checks a file's size in bytes against the upload limit (`maxMb` MiB, at least 1) before
 * reading it. Returns "" when it may be uploaded, else the message shown for that file in
 * the UI's language, e.g. `"big.pdf" is 25.3 MB, over the 20 MB upload limit (see Settings)`.
 */
export function uploadProblem(file: { name: string; size: number }, maxMb: number): string {
  const mb = Math.max(1, maxMb);
  if (file.size > mb * MIB) {
    const size = formatUploadSize(file.size);
    const just = Number((file.size / MIB).toFixed(1)) === mb; // shown as the limit itself: "just over 20 MB"
    return i18n.t(just ? 'workspace:upload.justOver' : 'workspace:upload.tooBig', { name: file.name, size, limit: mb });
  }
  return '';
}

/**
 * The message for an upload the backend refused, in the UI's language: a file over the
 * limit as uploadProblem words it (from `error_args`: its size in bytes, the limit in MB,
 * whether the size is a lower bound); another known code as errorMessage words it; else
 * the backend's text.
 */
export function uploadErrorText(name: string, r: { error: string; error_code?: string; error_args?: Record<string, string> }): string {
  const args = r.error_args ?? {};
  if (r.error_code === 'file_too_large' && args.size !== undefined && args.limit_mb !== undefined) {
    const size = Number(args.size);
    const limit = Number(args.limit_mb);
    if (args.at_least === '1') return i18n.t('workspace:upload.tooBigAtLeast', { name, size: formatUploadSize(size), limit });
    return uploadProblem({ name, size }, limit) || i18n.t('workspace:upload.tooBig', { name, size: formatUploadSize(size), limit });
  }
  return (r.error_code ? errorMessage(r.error_code) : '') || r.error;
}

// i18n-keys: workspace:upload.note.renamed workspace:upload.note.unreadable workspace:upload.note.unsupported
// i18n-keys: workspace:upload.note.noExtension workspace:upload.note.decoded workspace:upload.note.existing

/**
 * The note on an uploaded file, in the UI's language, from its parts (`note_parts`: saved
 * under another id, text not readable and why, decoded from a legacy charset, already
 * there); the backend's English `note` when it gives no parts.
 */
export function uploadNoteText(r: { note: string; note_parts?: { code: string; args: Record<string, string> }[] }): string {
  const parts = r.note_parts ?? [];
  if (parts.length === 0) return r.note;
  const words = parts.map((p) => {
    const a = p.args;
    switch (p.code) {
      case 'renamed':
        return i18n.t('workspace:upload.note.renamed', { id: a.id ?? '', base: a.base ?? '' });
      case 'unreadable': {
        const reason =
          a.reason_code === 'unsupported_type'
            ? i18n.t('workspace:upload.note.unsupported', { ext: a.ext ?? '' })
            : a.reason_code === 'no_extension'
              ? i18n.t('workspace:upload.note.noExtension')
              : (a.reason ?? '');
        return i18n.t('workspace:upload.note.unreadable', { reason });
      }
      case 'decoded':
        return i18n.t('workspace:upload.note.decoded', { encoding: a.encoding ?? '' });
      case 'existing':
        return i18n.t('workspace:upload.note.existing', { id: a.id ?? '' });
      default:
        return '';
    }
  });
  return words.includes('') ? r.note : words.join(i18n.t('workspace:upload.note.separator'));
}

/** Reads a File (or Blob) and returns its bytes as base64 (see bytesToBase64). */
export async function readAsBase64(file: Blob): Promise<string> {
  return bytesToBase64(new Uint8Array(await file.arrayBuffer()));
}

/**
 * Saves bytes given as base64 under `filename` through a Blob URL and a temporary
 * <a download> (browser mode; the desktop window writes exports itself). Throws when `b64`
 * is not base64.
 */
export function downloadBase64(filename: string, mime: string, b64: string): void {
  const blob = new Blob([base64ToBytes(b64) as BlobPart], { type: mime || 'application/octet-stream' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
  // Revoke after the click has been handled; downloads keep their own reference.
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * Reports whether a drag carries files: DataTransfer.types includes "Files", or, when
 * `uriLists` is set (the desktop window, where WebKitGTK offers a file manager's drag only
 * as "text/uri-list" and "text/html"), "text/uri-list".
 */
export function dragHasFiles(dt: DataTransfer | null, uriLists = false): boolean {
  if (dt === null) return false;
  const types = Array.from(dt.types);
  return types.includes('Files') || (uriLists && types.includes('text/uri-list'));
}
