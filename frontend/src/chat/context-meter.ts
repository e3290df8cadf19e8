// The context meter's figures: how full the lead agent's context is against the model's
// window and the compaction threshold.

import type { RunState } from '../run/events';
import { formatCount } from '../shared/format';

/** Where the context stands: below, near (amber) or past the compaction threshold. */
export type MeterLevel = 'ok' | 'near' | 'over';

/** The meter's figures; token counts in tokens, `fraction` of the window in [0, 1]. */
export interface ContextMeterState {
  used: number;
  window: number;
  /** Compaction threshold in tokens (window × compact_at_percent / 100, rounded down). */
  threshold: number;
  fraction: number;
  /** The threshold's position on the bar, in [0, 1]. */
  thresholdFraction: number;
  /** used / window as a whole percentage (may exceed 100). */
  percent: number;
  level: MeterLevel;
  /** "41k / 128k". */
  label: string;
}

/** The meter turns amber from this share of the threshold on. */
export const NEAR_THRESHOLD = 0.85;

/**
 * The meter for `used` tokens of a `window`-token context that is compacted past
 * `compactAtPercent` % (values outside 1–100 count as 80). Level: "over" from the
 * threshold on, "near" from NEAR_THRESHOLD of it, else "ok". Null when the window is
 * unknown (≤ 0).
 */
export function contextMeter(used: number, window: number, compactAtPercent: number): ContextMeterState | null {
  if (!Number.isFinite(window) || window <= 0) return null;
  const u = Number.isFinite(used) && used > 0 ? Math.round(used) : 0;
  const pct = compactAtPercent >= 1 && compactAtPercent <= 100 ? compactAtPercent : 80;
  const threshold = Math.floor((window * pct) / 100);
  const level: MeterLevel = u >= threshold ? 'over' : u >= threshold * NEAR_THRESHOLD ? 'near' : 'ok';
  return {
    used: u,
    window,
    threshold,
    fraction: Math.min(1, u / window),
    thresholdFraction: threshold / window,
    percent: Math.round((u / window) * 100),
    level,
    label: `${formatCount(u)} / ${formatCount(window)}`,
  };
}

/**
 * The lead agent's latest context size in a branch's runs (oldest first): the contextTokens
 * of the newest run that has one; 0 when none does.
 */
export function latestContextTokens(runs: readonly (RunState | undefined)[]): number {
  for (let i = runs.length - 1; i >= 0; i--) {
    const t = runs[i]?.contextTokens ?? 0;
    if (t > 0) return t;
  }
  return 0;
}
