// @vitest-environment jsdom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import { ZOOM_KEY, applyZoom, nextZoom, storedZoom, useZoom, zoomAction } from './useZoom';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe('zoom', () => {
  it.each([
    [1, 'in', 1.1],
    [1, 'out', 0.9],
    [2, 'in', 2],
    [0.5, 'out', 0.5],
    [1.2, 'in', 1.25],
    [1.2, 'out', 1.1],
    [1.75, 'reset', 1],
  ] as const)('nextZoom(%f, %s) = %f', (cur, action, want) => {
    expect(nextZoom(cur, action)).toBe(want);
  });

  it('reads the shortcuts', () => {
    const k = (key: string, extra: Partial<KeyboardEvent> = {}) => zoomAction({ ctrlKey: true, metaKey: false, altKey: false, key, code: '', ...extra });
    expect([k('+'), k('='), k('-'), k('0'), k('x'), k('+', { ctrlKey: false }), k('=', { ctrlKey: false, metaKey: true }), k('+', { altKey: true })]).toEqual([
      'in',
      'in',
      'out',
      'reset',
      null,
      null,
      'in',
      null,
    ]);
  });

  it('is applied to the root, remembered, and restored', async () => {
    localStorage.setItem(ZOOM_KEY, 'garbage');
    expect(storedZoom()).toBe(1);
    applyZoom(1.25);
    expect(document.documentElement.style.getPropertyValue('zoom')).toBe('1.25');
    expect(storedZoom()).toBe(1.25);
    applyZoom(1);
    expect(localStorage.getItem(ZOOM_KEY)).toBeNull();

    localStorage.setItem(ZOOM_KEY, '1.5');
    const host = document.createElement('div');
    const root = createRoot(host);
    function Z() {
      useZoom();
      return null;
    }
    await act(async () => {
      root.render(<Z />);
      await Promise.resolve();
    });
    expect(document.documentElement.style.getPropertyValue('zoom')).toBe('1.5');
    const ev = new KeyboardEvent('keydown', { key: '=', ctrlKey: true, cancelable: true });
    act(() => {
      window.dispatchEvent(ev);
    });
    expect(ev.defaultPrevented).toBe(true);
    expect(document.documentElement.style.getPropertyValue('zoom')).toBe('1.75');
    expect(localStorage.getItem(ZOOM_KEY)).toBe('1.75');
    act(() => {
      window.dispatchEvent(new KeyboardEvent('keydown', { key: '0', ctrlKey: true }));
    });
    expect(document.documentElement.style.getPropertyValue('zoom')).toBe('');
    act(() => root.unmount());
  });
});
