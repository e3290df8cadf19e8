// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';

describe('a Markdown view before the renderer has loaded', () => {
  it('shows its text as escaped plain text, then renders it once the chunk is in', async () => {
    // A fresh module graph: the setup file loaded the renderer into the other one.
    vi.resetModules();
    const { act, createElement } = await import('react');
    const { createRoot } = await import('react-dom/client');
    const lib = await import('./markdown-lib');
    const { Markdown } = await import('./Markdown');
    (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
    expect(lib.markdownLib()).toBeNull();

    const host = document.createElement('div');
    const root = createRoot(host);
    act(() => root.render(createElement(Markdown, { source: '# Tides\n\n**High water** <img src=x onerror=alert(1)>' })));
    const pending = host.querySelector('.markdown-pending');
    expect(pending?.textContent).toBe('# Tides\n\n**High water** <img src=x onerror=alert(1)>');
    expect(host.querySelector('img, h1, strong')).toBeNull();

    await act(async () => {
      await lib.loadMarkdownLib();
    });
    expect(host.querySelector('.markdown-pending')).toBeNull();
    expect(host.querySelector('h1')?.textContent).toBe('Tides');
    expect(host.querySelector('strong')?.textContent).toBe('High water');
    expect(host.querySelector('img[onerror]')).toBeNull();
    act(() => root.unmount());
  });
});
