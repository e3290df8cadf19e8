// Icons of the conversation features (same stroke style as icons.tsx, 16px by default).
// Always paired with a text label or an aria-label.

import { Svg, type IconProps } from '../shared/icons';

/** A pencil (edit a question). */
export function PencilIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M12 20h9" />
      <path d="M16.5 3.5a2.12 2.12 0 0 1 3 3L7 19l-4 1 1-4Z" />
    </Svg>
  );
}

/** Two circling arrows (regenerate an answer). */
export function RefreshIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M21 12a9 9 0 0 1-15.36 6.36L3 16" />
      <path d="M3 12A9 9 0 0 1 18.36 5.64L21 8" />
      <path d="M21 3v5h-5M3 21v-5h5" />
    </Svg>
  );
}

/** A magnifying glass (search). */
export function SearchIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <circle cx="11" cy="11" r="7" />
      <path d="m20 20-3.5-3.5" />
    </Svg>
  );
}

/** A clock (queued, countdown). */
export function ClockIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <circle cx="12" cy="12" r="9" />
      <path d="M12 7v5l3 2" />
    </Svg>
  );
}

/** A shield (permission request). */
export function ShieldIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M12 22s8-4 8-10V5l-8-3-8 3v7c0 6 8 10 8 10Z" />
    </Svg>
  );
}

/** Lines pressed together (context compaction). */
export function CompressIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M4 12h16" />
      <path d="m9 4 3 3 3-3M9 20l3-3 3 3" />
    </Svg>
  );
}

/** A life ring (recovered drafts). */
export function RecoverIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <circle cx="12" cy="12" r="9" />
      <circle cx="12" cy="12" r="4" />
      <path d="m5.6 5.6 3.6 3.6M14.8 14.8l3.6 3.6M14.8 9.2l3.6-3.6M5.6 18.4l3.6-3.6" />
    </Svg>
  );
}
