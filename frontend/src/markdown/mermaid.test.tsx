// @vitest-environment jsdom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it, vi } from 'vitest';
import { Markdown } from './Markdown';
import { renderMarkdown } from './markdown';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

// Mermaid itself needs a real layout engine (jsdom has none); this stand-in records that the
// module was imported and how it was set up, and draws a fixed SVG or fails like Mermaid.
const mock = vi.hoisted(() => ({ imported: 0, config: [] as unknown[], rendered: [] as string[] }));
vi.mock('mermaid', () => {
  mock.imported++;
  return {
    default: {
      initialize: (c: unknown) => mock.config.push(c),
      render: (id: string, src: string) => {
        mock.rendered.push(src);
        if (src.includes('%%bad')) return Promise.reject(new Error('Parse error on line 2:\nExpecting NODE'));
        return Promise.resolve({ svg: `<svg id="${id}" class="diagram"><g><text>${String(src.length)}</text></g></svg>` });
      },
    },
  };
});

/** Mounts Markdown for source and lets its effects and the lazy import settle. */
async function mount(source: string): Promise<HTMLElement> {
  const host = document.createElement('div');
  document.body.appendChild(host);
  const root = createRoot(host);
  await act(async () => {
    root.render(<Markdown source={source} highlight />);
    await Promise.resolve();
  });
  // The dynamic import and render resolve over a few microtask turns.
  for (let i = 0; i < 10; i++) await act(async () => Promise.resolve());
  return host;
}

describe('mermaid diagrams', () => {
  it('renders a mermaid block as its source first, in a mermaid-block', () => {
    const div = document.createElement('div');
    div.innerHTML = renderMarkdown('```mermaid\ngraph TD\n  A-->B\n```', { highlight: true });
    expect(div.querySelector('.mermaid-block pre code')?.textContent).toBe('graph TD\n  A-->B');
  });

  it('does not import mermaid for text without a diagram, and imports it for the first one', async () => {
    await mount('# Title\n\nNo diagram, just `code` and\n\n```js\nlet a = 1;\n```\n');
    expect(mock.imported).toBe(0);
    const host = await mount('Flow:\n\n```mermaid\ngraph TD\n  A-->B\n```\n');
    expect(mock.imported).toBe(1);
    expect(mock.config).toContainEqual(expect.objectContaining({ securityLevel: 'strict', startOnLoad: false }));
    const block = host.querySelector('.mermaid-block');
    expect(block?.querySelector('.mermaid-diagram svg')).not.toBeNull();
    expect(block?.querySelector('pre')?.hasAttribute('hidden')).toBe(true);
  });

  it('shows an inline error and keeps the source shown when a diagram does not parse', async () => {
    const host = await mount('```mermaid\ngraph TD\n  %%bad A--\n```\n');
    const block = host.querySelector('.mermaid-block');
    const err = block?.querySelector('[role="alert"].mermaid-error');
    expect(err?.textContent).toContain('Parse error on line 2');
    expect(block?.querySelector('.mermaid-diagram')).toBeNull();
    const pre = block?.querySelector('pre');
    expect(pre?.hasAttribute('hidden')).toBe(false);
    expect(pre?.textContent).toContain('%%bad A--');
  });
});
