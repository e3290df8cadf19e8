// Icons of the layout controls (stroke style like icons.tsx; decorative: buttons carry an
// aria-label or text).

import { Svg, type IconProps } from '../shared/icons';

/** A window with its left column marked (the sidebar). */
export function SidebarIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <rect x="3" y="4" width="18" height="16" rx="2" />
      <path d="M9 4v16" />
    </Svg>
  );
}

/** A window with its right column marked (the artifacts panel). */
export function PanelIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <rect x="3" y="4" width="18" height="16" rx="2" />
      <path d="M15 4v16" />
    </Svg>
  );
}

/** Four corners pointing out (read full-window). */
export function ExpandIcon(p: IconProps) {
  return (
    <Svg {...p}>
      <path d="M4 9V4h5" />
      <path d="M20 9V4h-5" />
      <path d="M4 15v5h5" />
      <path d="M20 15v5h-5" />
    </Svg>
  );
}
