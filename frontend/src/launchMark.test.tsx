// @vitest-environment jsdom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it, vi } from 'vitest';
import { LAUNCH_MARK, TIMELINE_PREFIX, markStep, useLaunchMark, type TimelineStep } from './launchMark';

function Probe({ rendered }: { rendered: boolean }) {
  useLaunchMark(rendered);
  return null;
}

describe('useLaunchMark', () => {
  it('prints the launch mark and the timeline through LogPrint once, after the first data has rendered', () => {
    (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
    const logPrint = vi.fn();
    (window as unknown as { runtime: unknown }).runtime = { LogPrint: logPrint };
    vi.spyOn(window, 'requestAnimationFrame').mockImplementation((cb) => {
      cb(0);
      return 0;
    });
    const root = createRoot(document.createElement('div'));
    markStep('bundle evaluated');
    act(() => root.render(<Probe rendered={false} />));
    expect(logPrint).not.toHaveBeenCalled();
    act(() => root.render(<Probe rendered />));
    expect(logPrint.mock.calls[0]).toEqual([LAUNCH_MARK]);
    // Then the timeline: the steps noted so far, in time order, as epoch ms.
    expect(logPrint).toHaveBeenCalledTimes(2);
    const line = String(logPrint.mock.calls[1]?.[0]);
    expect(line.startsWith(`${TIMELINE_PREFIX} `)).toBe(true);
    const steps = JSON.parse(line.slice(TIMELINE_PREFIX.length + 1)) as TimelineStep[];
    expect(steps.map((s) => s.step)).toEqual(['page: bundle evaluated', 'page: first render committed', 'page: first data frame']);
    const [first, , last] = steps.map((s) => s.at);
    expect(first).toBeGreaterThan(Date.UTC(2020, 0, 1));
    expect(first).toBeLessThanOrEqual(last ?? 0);
    act(() => root.render(<Probe rendered={false} />));
    act(() => root.render(<Probe rendered />));
    expect(logPrint).toHaveBeenCalledTimes(2);
    act(() => root.unmount());
  });
});
