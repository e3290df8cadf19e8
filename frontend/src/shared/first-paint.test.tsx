// @vitest-environment jsdom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import { useAfterFirstPaint } from './first-paint';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

function Probe({ seen }: { seen: boolean[] }) {
  seen.push(useAfterFirstPaint());
  return null;
}

describe('useAfterFirstPaint', () => {
  it('is false for the first frame, true after it, and true at once for whatever mounts later', async () => {
    const first: boolean[] = [];
    const root = createRoot(document.createElement('div'));
    act(() => root.render(<Probe seen={first} />));
    expect(first).toEqual([false]);
    await act(async () => {
      await new Promise((r) => setTimeout(r, 60)); // a frame (jsdom: ~16 ms) and the task after it
    });
    expect(first.at(-1)).toBe(true);
    const later: boolean[] = [];
    const root2 = createRoot(document.createElement('div'));
    act(() => root2.render(<Probe seen={later} />));
    expect(later).toEqual([true]);
    act(() => {
      root.unmount();
      root2.unmount();
    });
  });
});
