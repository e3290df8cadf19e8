// @vitest-environment jsdom
import { act, useEffect, useState } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { adoptReactEffectTiming } from './effect-timing';

/** How a test opens the "menu" without an input event (a run event, a timer): set by Opener. */
const outside: { open: (() => void) | null } = { open: null };

/** A button whose click opens a "menu"; the effect of that render moves the focus into it. */
function Opener({ log }: { log: string[] }) {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    outside.open = () => setOpen(true);
  }, []);
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

describe('adoptReactEffectTiming', () => {
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

  const mount = async (log: string[]) => {
    await act(async () => {
      root = createRoot(host);
      root.render(<Opener log={log} />);
      await Promise.resolve();
    });
  };
  const microtasks = async () => {
    for (let i = 0; i < 10; i++) await Promise.resolve();
  };
  // Everything below runs outside act(), which would flush every effect itself: the page's own timing.

  it('runs the effects of a click before the next event, so a key pressed right after it reaches the menu', async () => {
    restore = adoptReactEffectTiming();
    const log: string[] = [];
    await mount(log);
    host.querySelector<HTMLButtonElement>('.opener')?.click();
    await microtasks(); // the click's task is over; no other task has run
    expect(log).toEqual(['effect']);
    expect(document.activeElement?.className).toBe('first');
  });

  it('runs the effects of a render no input caused in the next task, before the next frame', async () => {
    restore = adoptReactEffectTiming();
    const log: string[] = [];
    await mount(log);
    await new Promise((r) => setTimeout(r, 5)); // the mount's own events are long over
    outside.open?.();
    await microtasks();
    log.push('after its task');
    await new Promise((r) => requestAnimationFrame(() => r(null)));
    log.push('next frame');
    expect(log).toEqual(['after its task', 'effect', 'next frame']);
  });

  it("restores Preact's own timing (the effect after the frame)", async () => {
    adoptReactEffectTiming()();
    const log: string[] = [];
    await mount(log);
    host.querySelector<HTMLButtonElement>('.opener')?.click();
    await new Promise((r) => requestAnimationFrame(() => r(null)));
    log.push('next frame');
    await new Promise((r) => setTimeout(r, 60)); // every timing has run by now
    expect(log).toEqual(['next frame', 'effect']);
  });
});
