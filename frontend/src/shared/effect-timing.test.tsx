// @vitest-environment jsdom
import { act, useEffect, useState } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { runEffectsInNextTask } from './effect-timing';

/** A button whose click opens a "menu"; the effect of that render moves the focus into it. */
function Opener({ log }: { log: string[] }) {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (!open) return;
    log.push('effect');
    document.querySelector<HTMLButtonElement>('.first')?.focus();
  }, [open, log]);
  return (
    <div>
      <button type="button" className="opener" onClick={() => setOpen(true)}>
        open
      </button>
      {open && (
        <button type="button" className="first">
          first item
        </button>
      )}
    </div>
  );
}

describe('runEffectsInNextTask', () => {
  let root: Root | null = null;
  let restore: (() => void) | null = null;
  const host = document.createElement('div');
  document.body.append(host);
  afterEach(() => {
    act(() => root?.unmount());
    root = null;
    restore?.();
    restore = null;
  });

  const clickThenNextFrame = async (log: string[]) => {
    await act(async () => {
      root = createRoot(host);
      root.render(<Opener log={log} />);
      await Promise.resolve();
    });
    // Outside act(), which would flush every effect itself: the page's own timing.
    host.querySelector<HTMLButtonElement>('.opener')?.click();
    await new Promise((r) => requestAnimationFrame(() => r(null)));
    log.push('next frame');
    await new Promise((r) => setTimeout(r, 60)); // every timing has run by now
  };

  it('runs the effect of a click before the next frame, so the focus has moved when the next key arrives', async () => {
    restore = runEffectsInNextTask();
    const log: string[] = [];
    await clickThenNextFrame(log);
    expect(log).toEqual(['effect', 'next frame']);
    expect(document.activeElement?.className).toBe('first');
  });

  it("restores Preact's own timing (the effect after the frame)", async () => {
    runEffectsInNextTask()();
    const log: string[] = [];
    await clickThenNextFrame(log);
    expect(log).toEqual(['next frame', 'effect']);
  });
});
