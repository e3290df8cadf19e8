import { useRef, type KeyboardEvent, type PointerEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { pageZoom } from './useLayout';

/** Props of Splitter. */
export interface SplitterProps {
  /** The accessible name, e.g. "Resize the sidebar". */
  label: string;
  /** The id of the element it resizes (aria-controls), when it has one. */
  controls?: string;
  /** The resized column's width in px. */
  value: number;
  min: number;
  max: number;
  /**
   * +1 when moving the splitter right widens the column (a column on its left), -1 when it
   * narrows it (a column on its right).
   */
  direction: 1 | -1;
  /** Where it sits: px from the left or from the right edge of the positioned parent. */
  position: { left: number } | { right: number };
  /** Asks for a new width in px (the caller clamps). */
  onResize: (width: number) => void;
  /** Double-click: back to the default width. */
  onReset: () => void;
  /** Enter: collapse the column. */
  onCollapse: () => void;
}

/** Arrow-key step in px; with Shift, STEP_BIG. */
export const STEP = 16;
/** Arrow-key step with Shift, in px. */
export const STEP_BIG = 64;

/**
 * A vertical window splitter between two columns (WAI-ARIA window splitter pattern):
 * role="separator" with aria-valuenow in px. Drag it with the pointer (captured, so the drag
 * goes on over the page's frames; pointer distances are divided by the page's zoom); when
 * focused, Left and Right move it by 16 px (64 with Shift), Home and End go to the
 * narrowest and widest, Enter collapses the column; a double-click restores the default
 * width.
 */
export function Splitter({ label, controls, value, min, max, direction, position, onResize, onReset, onCollapse }: SplitterProps) {
  const { t } = useTranslation('tools');
  const drag = useRef<{ x: number; width: number; id: number; zoom: number } | null>(null);

  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    if (e.button !== 0) return;
    e.preventDefault();
    e.currentTarget.setPointerCapture(e.pointerId);
    drag.current = { x: e.clientX, width: value, id: e.pointerId, zoom: pageZoom() };
    document.body.classList.add('resizing');
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    const d = drag.current;
    if (d === null || d.id !== e.pointerId) return;
    onResize(d.width + (direction * (e.clientX - d.x)) / d.zoom);
  };
  const end = (e: PointerEvent<HTMLDivElement>) => {
    if (drag.current?.id !== e.pointerId) return;
    drag.current = null;
    document.body.classList.remove('resizing');
    if (e.currentTarget.hasPointerCapture(e.pointerId)) e.currentTarget.releasePointerCapture(e.pointerId);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const step = e.shiftKey ? STEP_BIG : STEP;
    if (e.key === 'ArrowRight') onResize(value + direction * step);
    else if (e.key === 'ArrowLeft') onResize(value - direction * step);
    else if (e.key === 'Home') onResize(min);
    else if (e.key === 'End') onResize(max);
    else if (e.key === 'Enter') onCollapse();
    else return;
    e.preventDefault();
  };

  return (
    <div
      className="splitter"
      role="separator"
      aria-orientation="vertical"
      aria-label={label}
      aria-controls={controls}
      aria-valuenow={value}
      aria-valuemin={min}
      aria-valuemax={max}
      aria-valuetext={t('splitter.pixels', { px: value })}
      title={t('splitter.title', { label })}
      tabIndex={0}
      style={{ ...position, transform: 'left' in position ? 'translateX(-50%)' : 'translateX(50%)' }}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={end}
      onPointerCancel={end}
      onLostPointerCapture={end}
      onDoubleClick={onReset}
      onKeyDown={onKeyDown}
    />
  );
}
