// Inline SVG icons (stroke style, 16px by default). No emoji: Linux machines here have no
// emoji font, and icons carry no meaning without a text label or aria-label beside them.

import type { SVGProps } from 'react';

/** Props of every icon: an SVG element's props plus size in px (16 by default). */
export type IconProps = SVGProps<SVGSVGElement> & { size?: number };

/**
 * The one SVG frame of all icon sets (icons, artifact-, conversation- and declared-icons):
 * a 24x24 view box drawn in currentColor strokes, hidden from assistive technology.
 */
export function Svg({ size = 16, children, ...rest }: IconProps) {
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
      {...rest}
    >
      {children}
    </svg>
  );
}

/** A plus sign (new research). */
export function PlusIcon(p: IconProps) {
  return <Svg {...p}><path d="M12 5v14M5 12h14" /></Svg>;
}

/** A gear (settings). */
export function GearIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <circle cx="12" cy="12" r="3" />
      <path d="M19.4 15a1.65 1.65 0 0 0 .33 1.82l.06.06a2 2 0 1 1-2.83 2.83l-.06-.06a1.65 1.65 0 0 0-1.82-.33 1.65 1.65 0 0 0-1 1.51V21a2 2 0 1 1-4 0v-.09A1.65 1.65 0 0 0 9 19.4a1.65 1.65 0 0 0-1.82.33l-.06.06a2 2 0 1 1-2.83-2.83l.06-.06A1.65 1.65 0 0 0 4.68 15a1.65 1.65 0 0 0-1.51-1H3a2 2 0 1 1 0-4h.09A1.65 1.65 0 0 0 4.6 9a1.65 1.65 0 0 0-.33-1.82l-.06-.06a2 2 0 1 1 2.83-2.83l.06.06A1.65 1.65 0 0 0 9 4.68a1.65 1.65 0 0 0 1-1.51V3a2 2 0 1 1 4 0v.09a1.65 1.65 0 0 0 1 1.51 1.65 1.65 0 0 0 1.82-.33l.06-.06a2 2 0 1 1 2.83 2.83l-.06.06A1.65 1.65 0 0 0 19.4 9a1.65 1.65 0 0 0 1.51 1H21a2 2 0 1 1 0 4h-.09a1.65 1.65 0 0 0-1.51 1z" />
    </Svg>
  );
}

/** Three horizontal dots (item menu). */
export function DotsIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <circle cx="5" cy="12" r="1" fill="currentColor" />
      <circle cx="12" cy="12" r="1" fill="currentColor" />
      <circle cx="19" cy="12" r="1" fill="currentColor" />
    </Svg>
  );
}

/** A check mark (done). */
export function CheckIcon(p: IconProps) {
  return <Svg {...p}><path d="M20 6 9 17l-5-5" /></Svg>;
}

/** A cross (error, close). */
export function XIcon(p: IconProps) {
  return <Svg {...p}><path d="M18 6 6 18M6 6l12 12" /></Svg>;
}

/** A filled square (stop). */
export function StopIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <rect x="6" y="6" width="12" height="12" rx="2" fill="currentColor" stroke="none" />
    </Svg>
  );
}

/** An arrow pointing up (send). */
export function SendIcon(p: IconProps) {
  return <Svg {...p}><path d="M12 19V5M5 12l7-7 7 7" /></Svg>;
}

/** A chevron pointing right; rotate it for expanded state. */
export function ChevronIcon(p: IconProps) {
  return <Svg {...p}><path d="m9 18 6-6-6-6" /></Svg>;
}

/** A circle with an exclamation mark (error box). */
export function AlertIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <circle cx="12" cy="12" r="10" />
      <path d="M12 8v4M12 16h.01" />
    </Svg>
  );
}

/** A document (artifact). */
export function DocIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M14 2H6a2 2 0 0 0-2 2v16a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V8z" />
      <path d="M14 2v6h6M8 13h8M8 17h5" />
    </Svg>
  );
}

/** A checklist (task plan). */
export function ListCheckIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="m3 7 2 2 4-4M3 17l2 2 4-4M13 6h8M13 12h8M13 18h8" />
    </Svg>
  );
}

/** A circle with a dash (stopped). */
export function StoppedIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <circle cx="12" cy="12" r="10" />
      <path d="M8 12h8" />
    </Svg>
  );
}

/** The app mark: three stacked layers. */
export function LogoIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="m12 2 10 5-10 5L2 7z" />
      <path d="m2 12 10 5 10-5" />
      <path d="m2 17 10 5 10-5" />
    </Svg>
  );
}

/** A spinning arc for running work; its label is given by the caller. */
export function Spinner({ size = 14 }: { size?: number }) {
  return (
    <svg className="spinner" width={size} height={size} viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <circle cx="12" cy="12" r="9" fill="none" stroke="currentColor" strokeOpacity="0.2" strokeWidth="3" />
      <path d="M21 12a9 9 0 0 0-9-9" fill="none" stroke="currentColor" strokeWidth="3" strokeLinecap="round" />
    </svg>
  );
}
