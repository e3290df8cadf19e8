// The pictures a question carries (events.ImageRef), as the metadata event and the stored
// messages give them (docs/ARCHITECTURE.md, "Pictures in questions").

/**
 * One picture attached to a question (events.ImageRef): the upload artifact that keeps it,
 * its file name, media type, SHA-256, size in bytes and in pixels.
 */
export interface ImageRef {
  artifact_id: string;
  name: string;
  mime: string;
  sha256: string;
  size: number;
  width: number;
  height: number;
}

/** Reads a list of ImageRef from loose JSON (a metadata event, a stored message); [] when none. */
export function imageRefs(v: unknown): ImageRef[] {
  if (!Array.isArray(v)) return [];
  const out: ImageRef[] = [];
  for (const x of v as unknown[]) {
    if (typeof x !== 'object' || x === null) continue;
    const r = x as Record<string, unknown>;
    const str = (k: string): string => {
      const v = r[k];
      return typeof v === 'string' ? v : '';
    };
    const num = (k: string): number => {
      const v = r[k];
      return typeof v === 'number' ? v : 0;
    };
    if (str('artifact_id') === '') continue;
    out.push({ artifact_id: str('artifact_id'), name: str('name'), mime: str('mime'), sha256: str('sha256'), size: num('size'), width: num('width'), height: num('height') });
  }
  return out;
}
