// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CODE_COPY_CLASS, COPIED_MS, addCodeCopyButtons, codeOfCopyButton, copyLabel } from './copy';
import { renderMarkdown } from './markdown';
import { CopyButton } from './CopyButton';
import { Markdown } from './Markdown';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const win = window as unknown as Record<string, unknown>;
let clip: ReturnType<typeof vi.fn<(text: string) => Promise<boolean>>>;
let root: Root | null = null;
const host = document.createElement('div');
document.body.appendChild(host);

const render = (node: React.ReactNode) =>
  act(async () => {
    root ??= createRoot(host);
    root.render(node);
    await Promise.resolve();
  });
const settle = () => act(() => new Promise((r) => setTimeout(r, 0)));

beforeEach(() => {
  clip = vi.fn(() => Promise.resolve(true));
  win.runtime = { ClipboardSetText: clip };
});
afterEach(() => {
  act(() => root?.unmount());
  root = null;
  vi.useRealTimers();
  delete win.runtime;
});

const FENCE = 'Intro [1].\n\n```python\nprint("a < b")\nx = 1\n```\n\nAfter.';

describe('code block copy buttons', () => {
  it('renderMarkdown adds one text-less button per code block only when asked', () => {
    const box = document.createElement('div');
    box.innerHTML = renderMarkdown(FENCE, { copyCode: true });
    const buttons = box.querySelectorAll(`pre > button.${CODE_COPY_CLASS}`);
    expect(buttons).toHaveLength(1);
    expect(buttons[0]?.textContent).toBe('');
    expect(buttons[0]?.getAttribute('aria-label')).toBe('Copy code');
    expect(codeOfCopyButton(buttons[0] as Element)).toBe('print("a < b")\nx = 1\n');
    box.innerHTML = renderMarkdown(FENCE);
    expect(box.querySelector('button')).toBeNull();
  });

  it('a button written in the source is still removed (buttons come only from the renderer)', () => {
    const box = document.createElement('div');
    box.innerHTML = renderMarkdown('<button class="code-copy">x</button>\n\n```\ncode\n```', { copyCode: true });
    expect(box.querySelectorAll('button')).toHaveLength(1);
    expect(box.querySelector('pre button')).not.toBeNull();
  });

  it('codeOfCopyButton reads a pre without code, leaving the button out, and refuses other elements', () => {
    const box = document.createElement('div');
    const pre = document.createElement('pre');
    pre.textContent = 'plain';
    box.appendChild(pre);
    addCodeCopyButtons(box);
    const b = pre.querySelector(`.${CODE_COPY_CLASS}`);
    expect(b).not.toBeNull();
    expect(codeOfCopyButton(b as Element)).toBe('plain');
    expect(codeOfCopyButton(pre)).toBeNull();
  });

  it('clicking the button in a rendered answer copies the code only and says Copied', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    await render(<Markdown source={FENCE} highlight />);
    const b = host.querySelector<HTMLButtonElement>(`.${CODE_COPY_CLASS}`);
    expect(b).not.toBeNull();
    await act(async () => {
      b?.click();
      await Promise.resolve();
    });
    await settle();
    expect(clip).toHaveBeenCalledWith('print("a < b")\nx = 1\n');
    expect(b?.getAttribute('data-copied')).toBe('true');
    expect(b?.getAttribute('aria-label')).toBe('Code copied');
    await act(async () => {
      vi.advanceTimersByTime(COPIED_MS + 10);
      await Promise.resolve();
    });
    expect(b?.hasAttribute('data-copied')).toBe(false);
  });
});

describe('CopyButton', () => {
  it('copies the text read at click time, confirms, then returns to Copy', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let text = 'first';
    await render(<CopyButton text={() => text} label="Copy answer" />);
    const b = host.querySelector('button');
    expect(b?.getAttribute('aria-label')).toBe('Copy answer');
    expect(b?.textContent).toBe('Copy');
    text = 'The answer [1].';
    await act(async () => {
      b?.click();
      await Promise.resolve();
    });
    await settle();
    expect(clip).toHaveBeenCalledWith('The answer [1].');
    expect(b?.textContent).toBe('Copied');
    expect(b?.getAttribute('aria-label')).toBe('Copy answer: Copied');
    await act(async () => {
      vi.advanceTimersByTime(COPIED_MS + 10);
      await Promise.resolve();
    });
    expect(b?.textContent).toBe('Copy');
  });

  it('says Copy failed when the clipboard refuses', async () => {
    clip.mockImplementation(() => Promise.reject(new Error('no clipboard')));
    await render(<CopyButton text={() => 'x'} label="Copy artifact" />);
    await act(async () => {
      host.querySelector('button')?.click();
      await Promise.resolve();
    });
    await settle();
    expect(host.querySelector('button')?.textContent).toBe('Copy failed');
  });

  it('copyLabel names each state', () => {
    expect([copyLabel('idle'), copyLabel('copied'), copyLabel('failed'), copyLabel('idle', 'Copy code')]).toEqual([
      'Copy',
      'Copied',
      'Copy failed',
      'Copy code',
    ]);
  });
});
