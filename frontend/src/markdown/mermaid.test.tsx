// @vitest-environment jsdom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it, vi } from 'vitest';
import { Markdown } from './Markdown';
import { renderMarkdown } from './markdown';
import { renderMermaidBlocks, sanitizeMermaidSVG } from './mermaid';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

// This stand-in records that the module was imported and how it was set up, and draws a
// fixed SVG or fails like Mermaid. With mock.real set it hands the diagram to the real
// Mermaid (set up the same way), which draws in jsdom given text sizes (see useRealMermaid).
const mock = vi.hoisted(() => ({ imported: 0, config: [] as unknown[], rendered: [] as string[], real: false }));
vi.mock('mermaid', () => {
  mock.imported++;
  return {
    default: {
      initialize: (c: unknown) => mock.config.push(c),
      render: async (id: string, src: string) => {
        mock.rendered.push(src);
        if (mock.real) {
          const actual = (await vi.importActual<typeof import('mermaid')>('mermaid')).default;
          actual.initialize(mock.config.at(-1) as Parameters<typeof actual.initialize>[0]);
          return actual.render(id, src);
        }
        if (src.includes('%%bad')) throw new Error('Parse error on line 2:\nExpecting NODE');
        return { svg: `<svg id="${id}" class="diagram"><g><text>${String(src.length)}</text></g></svg>` };
      },
    },
  };
});

/**
 * Lets the real Mermaid draw in jsdom, which has no layout: every SVG element measures
 * 40×16 and every text 40 wide (sizes only move shapes, which these tests do not check).
 */
function useRealMermaid(): void {
  const proto = window.SVGElement.prototype as unknown as { getBBox: () => DOMRect; getComputedTextLength: () => number };
  proto.getBBox = () => ({ x: 0, y: 0, width: 40, height: 16 }) as DOMRect;
  proto.getComputedTextLength = () => 40;
  mock.real = true;
}

/** Every URL in the DOM under root that is neither a #fragment nor a data: URL, in attributes and text. */
function remoteURLs(root: Element): string[] {
  const found: string[] = [];
  const re = /(?:https?:)?\/\/[^\s"')]+/gi;
  for (const el of [root, ...root.querySelectorAll('*')]) {
    for (const a of el.attributes) {
      if (a.name === 'xmlns' || a.name.startsWith('xmlns:')) continue;
      found.push(...(a.value.match(re) ?? []));
    }
  }
  found.push(...(root.textContent.match(re) ?? []));
  return found;
}

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

  // The real Mermaid takes seconds to import on a busy machine: these two get a generous timeout.
  it('draws a real diagram with its node styles, in light and dark', { timeout: 60_000 }, async () => {
    useRealMermaid();
    for (const dark of [false, true]) {
      const div = document.createElement('div');
      div.innerHTML = renderMarkdown('```mermaid\ngraph TD\n  Earth-->Moon\n  style Earth fill:#f9f\n```', { highlight: true });
      await renderMermaidBlocks(div, { dark, errorLabel: 'Diagram could not be drawn' });
      const svg = div.querySelector('.mermaid-diagram svg');
      expect(svg, `dark=${String(dark)}`).not.toBeNull();
      expect(svg?.textContent).toContain('Earth');
      expect(svg?.textContent).toContain('Moon');
      // The theme's <style> survives (node fill) and so does the diagram's own style.
      expect(svg?.querySelector('style')?.textContent).toMatch(/\.node rect[^{]*\{fill:#/);
      expect(svg?.querySelector('[style*="fill:#f9f"]')).not.toBeNull();
    }
  });

  it('ignores themeCSS set by a diagram, so it cannot make the page load a remote URL', { timeout: 60_000 }, async () => {
    useRealMermaid();
    for (const dark of [false, true]) {
      const div = document.createElement('div');
      const src =
        '%%{init: {"themeCSS": "svg{background:url(https://x.example/t.png)} .from-directive{opacity:0.5}", "fontFamily": "x;background:url(//x.example/f.png)", ' +
        '"themeVariables": {"primaryColor": "red;background:url(https://x.example/v.png)"}}}%%\ngraph TD\n  A-->B';
      div.innerHTML = renderMarkdown('```mermaid\n' + src + '\n```', { highlight: true });
      await renderMermaidBlocks(div, { dark, errorLabel: 'Diagram could not be drawn' });
      const fig = div.querySelector('.mermaid-diagram');
      expect(fig?.querySelector('svg')).not.toBeNull();
      expect(remoteURLs(fig as Element)).toEqual([]);
      expect(fig?.innerHTML).not.toContain('x.example');
      // Not even the harmless part of the directive's CSS is used: the theme is the app's.
      expect(fig?.innerHTML).not.toContain('from-directive');
    }
  });

  it('strips scripts, handlers, HTML, remote links and remote CSS from an SVG', () => {
    const dirty =
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" id="d" onload="alert(1)">' +
      '<script>alert(2)</script>' +
      '<style>@import url(https://x.example/i.css); @import "https://x.example/j.css"; #d .node rect{fill:#ECECFF;background:url(https://x.example/a.png)}</style>' +
      '<style>#d .n{fill:red;background:u\\72l(https://x.example/esc.png)}</style><style>#d .m{fill:red;background-image:image-set("https://x.example/set.png" 1x)}</style>' +
      '<defs><marker id="arrow"><path d="M0,0L10,5"/></marker><linearGradient id="g"/></defs>' +
      '<g class="node" onclick="alert(3)"><rect style="fill:#f9f;background:url(\'https://x.example/b.png\')" marker-end="url(#arrow)" fill="url(https://x.example/p.svg#g)"/>' +
      '<text>Earth</text></g>' +
      '<foreignObject><div xmlns="http://www.w3.org/1999/xhtml"><img src="https://x.example/c.png"><iframe src="https://x.example/f"></iframe>label</div></foreignObject>' +
      '<image href="https://x.example/d.png"/><image xlink:href="//x.example/e.png"/><use href="https://x.example/u.svg#x"/>' +
      '<a xlink:href="https://x.example/l"><text>link</text></a><a href="javascript:alert(4)"><text>js</text></a>' +
      '<rect style="fill:url(#g)" filter="url(data:image/svg+xml;base64,AAAA)"/>' +
      '</svg>';
    const host = document.createElement('div');
    host.innerHTML = sanitizeMermaidSVG(dirty);
    const svg = host.querySelector('svg');
    expect(svg).not.toBeNull();
    expect(host.querySelector('script, foreignObject, foreignobject, div, img, iframe')).toBeNull();
    for (const el of host.querySelectorAll('*')) {
      for (const a of el.attributes) {
        expect(a.name, `<${el.nodeName} ${a.name}>`).not.toMatch(/^on/i);
        if (a.name === 'data-blocked-src') continue; // kept as text, never loaded
        expect(`${a.name}=${a.value}`).not.toMatch(/x\.example|javascript:/i);
      }
    }
    // CSS that would load something once its escapes are read, or from a plain string, goes whole.
    expect(host.querySelectorAll('style')).toHaveLength(1);
    const css = host.querySelector('style')?.textContent ?? '';
    expect(css).not.toMatch(/x\.example|@import/i);
    expect(host.textContent).not.toMatch(/alert/);
    // What a diagram needs stays: the theme's fill, a node's own style, fragment and data: URLs, the text.
    expect(css).toContain('fill:#ECECFF');
    const rect = host.querySelector('g.node rect');
    expect(rect?.getAttribute('style')).toContain('fill:#f9f');
    expect(rect?.getAttribute('marker-end')).toBe('url(#arrow)');
    expect(host.querySelector('rect[style="fill:url(#g)"]')?.getAttribute('filter')).toBe('url(data:image/svg+xml;base64,AAAA)');
    expect(host.querySelector('marker#arrow path')).not.toBeNull();
    expect(host.textContent).toContain('Earth');
  });
});

