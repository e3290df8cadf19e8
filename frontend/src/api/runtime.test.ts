// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { copyText, isBrowserMode, onDesktopFileDrop, onRunEvent, openExternal } from './runtime';

type Loose = Record<string, unknown>;
const win = window as unknown as Loose;
afterEach(() => {
  delete win.runtime;
});

describe('runtime', () => {
  it('delivers parsed run events and drops malformed payloads', () => {
    const handlers: ((p: unknown) => void)[] = [];
    win.runtime = {
      EventsOnMultiple: (name: string, cb: (p: unknown) => void) => {
        expect(name).toBe('run:event');
        handlers.push(cb);
        return () => undefined;
      },
    };
    const got: unknown[] = [];
    onRunEvent((e) => got.push(e.seq));
    handlers[0]?.({ type: 'complete', conversation_id: 'c', message_id: 'm', seq: 7, data: {} });
    handlers[0]?.('garbage');
    expect(got).toEqual([7]);
  });

  it('opens only external links, through BrowserOpenURL', () => {
    const open = vi.fn();
    win.runtime = { BrowserOpenURL: open };
    expect(openExternal('https://example.org/a?b=1')).toBe(true);
    expect(openExternal('mailto:someone@example.org')).toBe(true);
    expect(openExternal('javascript:alert(1)')).toBe(false);
    expect(openExternal('/relative')).toBe(false);
    expect(openExternal('file:///etc/passwd')).toBe(false);
    expect(open.mock.calls).toEqual([['https://example.org/a?b=1'], ['mailto:someone@example.org']]);
  });
});

describe('browser mode versus the desktop window', () => {
  it('tells the modes apart by the shim marker', () => {
    expect(isBrowserMode()).toBe(true); // no runtime at all
    win.runtime = { EventsOnMultiple: () => () => undefined };
    expect(isBrowserMode()).toBe(false);
    win.runtime = { __browserMode: true };
    expect(isBrowserMode()).toBe(true);
  });

  it('listens to OnFileDrop only in the window, for any drop, and stops on cleanup', () => {
    const onDrop = vi.fn();
    const off = vi.fn();
    win.runtime = { OnFileDrop: onDrop, OnFileDropOff: off };
    const handler = vi.fn();
    const stop = onDesktopFileDrop(handler);
    expect(onDrop).toHaveBeenCalledTimes(1);
    expect(onDrop.mock.calls[0]?.[1]).toBe(false); // not limited to drop targets
    const cb = onDrop.mock.calls[0]?.[0] as (x: number, y: number, paths: unknown) => void;
    cb(10, 20, ['/home/u/a.md', '', 7]);
    cb(1, 1, []);
    expect(handler.mock.calls).toEqual([[['/home/u/a.md'], 10, 20]]); // with the drop point
    stop();
    expect(off).toHaveBeenCalledTimes(1);

    win.runtime = { __browserMode: true, OnFileDrop: onDrop, OnFileDropOff: off };
    onDesktopFileDrop(handler)();
    expect(onDrop).toHaveBeenCalledTimes(1);
    expect(off).toHaveBeenCalledTimes(1);
  });

  it('copies through the runtime in the window and navigator.clipboard in a browser', async () => {
    const set = vi.fn(() => Promise.resolve(true));
    win.runtime = { ClipboardSetText: set };
    await expect(copyText('hi')).resolves.toBe(true);
    expect(set).toHaveBeenCalledWith('hi');
    win.runtime = { __browserMode: true };
    const write = vi.fn(() => Promise.reject(new Error('denied')));
    Object.defineProperty(navigator, 'clipboard', { value: { writeText: write }, configurable: true });
    await expect(copyText('hi')).resolves.toBe(false);
  });
});

