// Pictures in questions: the pictures a question carries (events.ImageRef) as the stored
// messages and the metadata event give them, which files of a paste or drop are pictures,
// and the composer's limits (docs/ARCHITECTURE.md, "Pictures in questions").

export { imageRefs, type ImageRef } from '../run/image-refs';

/** How many pictures one question may carry (engine.MaxImages). */
export const MAX_QUESTION_IMAGES = 8;

/** The media types a picture may have: PNG, JPEG, GIF, WebP. */
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
const IMAGE_EXT = /\.(png|jpe?g|gif|webp)$/i;

/** Reports whether `f` is a picture the app takes (by its type, else its name); the backend checks the bytes. */
export function isImageFile(f: { name: string; type: string }): boolean {
  return IMAGE_TYPES.includes(f.type.toLowerCase()) || (f.type === '' && IMAGE_EXT.test(f.name));
}

/** Reports whether a dropped path names a picture (by its extension). */
export function isImagePath(p: string): boolean {
  return IMAGE_EXT.test(p);
}

/**
 * The picture files of a paste or drop (`ClipboardEvent.clipboardData`,
 * `DragEvent.dataTransfer`), in order. A pasted screenshot has the name "image.png" in
 * most browsers; it is renamed "pasted-<time>.png" so that two pastes are told apart.
 */
export function imageFilesOf(dt: DataTransfer | null, now: Date = new Date()): File[] {
  if (!dt) return [];
  const files: File[] = [];
  const items = Array.from(dt.items);
  if (items.length > 0) {
    for (const it of items) {
      if (it.kind !== 'file') continue;
      const f = it.getAsFile();
      if (f && isImageFile(f)) files.push(f);
    }
  } else {
    files.push(...Array.from(dt.files).filter(isImageFile));
  }
  return files.map((f, i) => (f.name === '' || /^image\.(png|jpe?g|gif|webp)$/i.test(f.name) ? renamed(f, pastedName(f, now, i)) : f));
}

/** "pasted-20261129-121530.png" (the local time; "-2", "-3" … for the later files of one paste). */
function pastedName(f: File, now: Date, i: number): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const stamp = `${String(now.getFullYear())}${pad(now.getMonth() + 1)}${pad(now.getDate())}-${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`;
  const ext = (f.type.split('/')[1] ?? 'png').replace('jpeg', 'jpg');
  return `pasted-${stamp}${i > 0 ? `-${String(i + 1)}` : ''}.${ext}`;
}

function renamed(f: File, name: string): File {
  return new File([f], name, { type: f.type, lastModified: f.lastModified });
}

/**
 * Where the window's file drops may land instead of Links & files: the composer, which
 * takes the pictures dropped onto it. `contains` says whether a drop point (window
 * coordinates, CSS pixels) is over it.
 */
export interface ComposerDropTarget {
  contains: (x: number, y: number) => boolean;
  addFiles: (files: File[]) => void;
  addPaths: (paths: string[]) => void;
}

let dropTarget: ComposerDropTarget | null = null;

/** Makes `t` the composer drop target (one composer at a time); returns the function that removes it. */
export function setComposerDropTarget(t: ComposerDropTarget): () => void {
  dropTarget = t;
  return () => {
    if (dropTarget === t) dropTarget = null;
  };
}

/** The composer drop target when a drop at (x, y) is over it, else null. */
export function composerDropAt(x: number, y: number): ComposerDropTarget | null {
  return dropTarget !== null && dropTarget.contains(x, y) ? dropTarget : null;
}
