import { describe, expect, it } from 'vitest';
import { contextMeter, latestContextTokens } from './context-meter';
import type { RunState } from '../run/events';

describe('contextMeter', () => {
  it('computes the fraction, threshold and label', () => {
    const m = contextMeter(41_000, 128_000, 80)!;
    expect(m.threshold).toBe(102_400);
    expect(m.fraction).toBeCloseTo(0.3203, 3);
    expect(m.thresholdFraction).toBeCloseTo(0.8);
    expect(m.percent).toBe(32);
    expect(m.level).toBe('ok');
    expect(m.label).toBe('41k / 128k');
  });

  it('turns near at 85% of the threshold and over at the threshold', () => {
    expect(contextMeter(87_039, 128_000, 80)!.level).toBe('ok');
    expect(contextMeter(87_040, 128_000, 80)!.level).toBe('near');
    expect(contextMeter(102_399, 128_000, 80)!.level).toBe('near');
    expect(contextMeter(102_400, 128_000, 80)!.level).toBe('over');
  });

  it('clamps the bar but not the percentage, and defaults a bad threshold to 80%', () => {
    const m = contextMeter(150_000, 100_000, 0)!;
    expect(m.fraction).toBe(1);
    expect(m.percent).toBe(150);
    expect(m.threshold).toBe(80_000);
    expect(contextMeter(-5, 1000, 50)!.used).toBe(0);
  });

  it('is null without a window', () => {
    expect(contextMeter(10, 0, 80)).toBeNull();
    expect(contextMeter(10, Number.NaN, 80)).toBeNull();
  });
});

describe('latestContextTokens', () => {
  const run = (contextTokens: number) => ({ contextTokens }) as RunState;
  it('takes the newest run that knows its context size', () => {
    expect(latestContextTokens([run(100), run(300), run(0), undefined])).toBe(300);
    expect(latestContextTokens([])).toBe(0);
  });
});
