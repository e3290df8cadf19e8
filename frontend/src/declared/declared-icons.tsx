// Icons of the "Links & files" list (declared artifacts): one per kind, plus the
// folder and trash of its menu and of document deletion. Inline SVG in the stroke style of
// icons.tsx: no emoji (no emoji font is installed on the machines this runs on), and every
// icon is decorative: the text beside it, or an aria-label, carries the meaning.

import { i18n } from '../i18n/i18n';
import { Svg, type IconProps } from '../shared/icons';
import type { JSX } from 'react';

/** Two chain links (a web link). */
export function LinkIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M10 13a5 5 0 0 0 7.54.54l3-3a5 5 0 0 0-7.07-7.07l-1.72 1.71" />
      <path d="M14 11a5 5 0 0 0-7.54-.54l-3 3a5 5 0 0 0 7.07 7.07l1.71-1.71" />
    </Svg>
  );
}

/** Angle brackets (an HTML page). */
export function CodeIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="m16 18 6-6-6-6M8 6l-6 6 6 6" />
    </Svg>
  );
}

/** A framed landscape (an image). */
export function ImageIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <rect x="3" y="3" width="18" height="18" rx="2" />
      <circle cx="9" cy="9" r="2" />
      <path d="m21 15-3.09-3.09a2 2 0 0 0-2.82 0L6 21" />
    </Svg>
  );
}

/** A camera (a video). */
export function VideoIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <rect x="2" y="6" width="14" height="12" rx="2" />
      <path d="m22 8-6 4 6 4z" />
    </Svg>
  );
}

/** A note (audio). */
export function AudioIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M9 18V5l12-2v13" />
      <circle cx="6" cy="18" r="3" />
      <circle cx="18" cy="16" r="3" />
    </Svg>
  );
}

/** A page with lines (a PDF). */
export function PdfIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M14 2H6a2 2 0 0 0-2 2v16a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V8z" />
      <path d="M14 2v6h6M8 13h8M8 17h5" />
    </Svg>
  );
}

/** A bound book (a notebook). */
export function NotebookIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M4 19.5A2.5 2.5 0 0 1 6.5 17H20" />
      <path d="M6.5 2H20v20H6.5A2.5 2.5 0 0 1 4 19.5v-15A2.5 2.5 0 0 1 6.5 2z" />
    </Svg>
  );
}

/** A sheet with a folded corner (a file). */
export function SheetIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8z" />
      <path d="M14 3v5h5" />
    </Svg>
  );
}

/** A box (any other kind). */
export function BoxIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M21 8 12 3 3 8v8l9 5 9-5z" />
      <path d="m3 8 9 5 9-5M12 13v8" />
    </Svg>
  );
}

/** An arrow leaving a box (open elsewhere). */
export function OpenIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M14 4h6v6M20 4l-9 9" />
      <path d="M18 14v5a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V7a1 1 0 0 1 1-1h5" />
    </Svg>
  );
}

/** Two overlapping sheets (copy). */
export function CopyIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <rect x="9" y="9" width="12" height="12" rx="2" />
      <path d="M5 15H4a1 1 0 0 1-1-1V4a1 1 0 0 1 1-1h10a1 1 0 0 1 1 1v1" />
    </Svg>
  );
}

/** A folder (reveal in folder). */
export function FolderIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M3 7a2 2 0 0 1 2-2h4l2 2h8a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2z" />
    </Svg>
  );
}

/** A trash can (delete, remove). */
export function TrashIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M3 6h18M8 6V4a1 1 0 0 1 1-1h6a1 1 0 0 1 1 1v2M19 6l-1 14a2 2 0 0 1-2 2H8a2 2 0 0 1-2-2L5 6" />
      <path d="M10 11v6M14 11v6" />
    </Svg>
  );
}

/**
 * The icon and its accessible name, in the UI's language, for a declared artifact's kind
 * (unknown kinds: "Other").
 */
export function kindIcon(kind: string): { Icon: (p: IconProps) => JSX.Element; label: string } {
  switch (kind) {
    case 'link':
      return { Icon: LinkIcon, label: i18n.t('artifacts:kind.link') };
    case 'html':
      return { Icon: CodeIcon, label: i18n.t('artifacts:kind.html') };
    case 'image':
      return { Icon: ImageIcon, label: i18n.t('artifacts:kind.image') };
    case 'video':
      return { Icon: VideoIcon, label: i18n.t('artifacts:kind.video') };
    case 'audio':
      return { Icon: AudioIcon, label: i18n.t('artifacts:kind.audio') };
    case 'pdf':
      return { Icon: PdfIcon, label: i18n.t('artifacts:kind.pdf') };
    case 'notebook':
      return { Icon: NotebookIcon, label: i18n.t('artifacts:kind.notebook') };
    case 'file':
      return { Icon: SheetIcon, label: i18n.t('artifacts:kind.file') };
    default:
      return { Icon: BoxIcon, label: i18n.t('artifacts:kind.other') };
  }
}
