// @vitest-environment jsdom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it, vi } from 'vitest';
import { LAUNCH_MARK, useLaunchMark } from './launchMark';

function Probe({ rendered }: { rendered: boolean }) {
  useLaunchMark(rendered);
  return null;
}

describe('useLaunchMark', () => {
  it('prints the launch mark through LogPrint once, after the first data has rendered', () => {
    (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
    const logPrint = vi.fn();
    (window as unknown as { runtime: unknown }).runtime = { LogPrint: logPrint };
    vi.spyOn(window, 'requestAnimationFrame').mockImplementation((cb) => {
      cb(0);
      return 0;
    });
    const root = createRoot(document.createElement('div'));
    act(() => root.render(<Probe rendered={false} />));
    expect(logPrint).not.toHaveBeenCalled();
    act(() => root.render(<Probe rendered />));
    expect(logPrint.mock.calls).toEqual([[LAUNCH_MARK]]);
    act(() => root.render(<Probe rendered={false} />));
    act(() => root.render(<Probe rendered />));
    expect(logPrint).toHaveBeenCalledTimes(1);
    act(() => root.unmount());
  });
});
