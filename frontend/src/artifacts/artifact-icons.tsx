// Icons of the artifact toolbar, uploads and compare view (stroke style like icons.tsx;
// decorative: buttons carry the text or an aria-label).

import { Svg as BaseSvg, type IconProps } from '../shared/icons';

// This set is drawn at 15px unless a size is given.
function Svg({ size = 15, ...rest }: IconProps) {
  return <BaseSvg size={size} {...rest} />;
}

/** A pencil (edit). */
export function PencilIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M12 20h9" />
      <path d="M16.5 3.5a2.12 2.12 0 0 1 3 3L7 19l-4 1 1-4z" />
    </Svg>
  );
}

/** Two columns (compare). */
export function CompareIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <rect x="3" y="4" width="7" height="16" rx="1.5" />
      <rect x="14" y="4" width="7" height="16" rx="1.5" />
    </Svg>
  );
}

/** An arrow into a tray (export / download). */
export function DownloadIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M12 3v12M7 10l5 5 5-5" />
      <path d="M5 21h14" />
    </Svg>
  );
}

/** An arrow out of a tray (upload / add files). */
export function UploadIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M12 16V4M7 9l5-5 5 5" />
      <path d="M5 20h14" />
    </Svg>
  );
}

/** A counter-clockwise arrow (restore). */
export function RestoreIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M3 12a9 9 0 1 0 3-6.7L3 8" />
      <path d="M3 3v5h5" />
    </Svg>
  );
}

/** Two arrows in opposite directions (swap). */
export function SwapIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M7 4 3 8l4 4M3 8h13M17 20l4-4-4-4M21 16H8" />
    </Svg>
  );
}

/** A small down chevron (menu button). */
export function CaretIcon(p: IconProps) {
  return (
    <Svg size={12} {...p}>
      <path d="m6 9 6 6 6-6" />
    </Svg>
  );
}

/** A sheet with a folded corner (file). */
export function FileIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8z" />
      <path d="M14 3v5h5" />
    </Svg>
  );
}

/** An eye (view a version). */
export function EyeIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M2 12s3.5-7 10-7 10 7 10 7-3.5 7-10 7S2 12 2 12z" />
      <circle cx="12" cy="12" r="3" />
    </Svg>
  );
}
