// Mermaid diagrams for ```mermaid code blocks. Mermaid is large, so it is imported (its own
// chunks) only when a rendered text has such a block, and runs in its strict security
// mode. See docs/ARCHITECTURE.md, "Rendering".

import type { Mermaid } from 'mermaid';

/** The class of the element renderMarkdown puts a mermaid code block in. */
export const MERMAID_BLOCK_CLASS = 'mermaid-block';

const escapeHTML = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * The HTML renderMarkdown emits for a mermaid code block: the source as an escaped code
 * block inside `<div class="mermaid-block">`, which is what shows until (or unless) the
 * diagram is drawn by renderMermaidBlocks.
 */
export function mermaidBlockHTML(source: string): string {
  return `<div class="${MERMAID_BLOCK_CLASS}"><pre class="mermaid-source"><code class="language-mermaid">${escapeHTML(source)}</code></pre></div>\n`;
}

let mermaid: Promise<Mermaid> | null = null;
let theme = '';
let seq = 0;

/** Diagrams already drawn, by theme and source, so a re-render does not draw them again. */
const drawn = new Map<string, string>();

function load(): Promise<Mermaid> {
  mermaid ??= import('mermaid').then((m) => m.default);
  return mermaid;
}

/**
 * Draws every mermaid block under root (see mermaidBlockHTML) as an inline SVG placed
 * before its source, which is then hidden (kept in the DOM for copy and find). Mermaid is
 * imported on the first call that finds a block, never otherwise, and initialised with
 * securityLevel 'strict' (labels are sanitized, no click handlers or links to scripts,
 * no HTML labels) and the dark theme when `dark`. A diagram that does not parse gets an
 * inline `.mermaid-error` (role="alert") with `errorLabel` and Mermaid's message, and its
 * source stays shown. Resolves when every block is handled; never rejects.
 */
export async function renderMermaidBlocks(root: ParentNode, opts: { dark: boolean; errorLabel: string }): Promise<void> {
  const blocks = [...root.querySelectorAll<HTMLElement>(`.${MERMAID_BLOCK_CLASS}`)].filter((b) => b.dataset.drawn === undefined);
  if (blocks.length === 0) return;
  let m: Mermaid;
  try {
    m = await load();
  } catch (e) {
    for (const b of blocks) showError(b, opts.errorLabel, e);
    return;
  }
  const want = opts.dark ? 'dark' : 'default';
  if (theme !== want) {
    m.initialize({ startOnLoad: false, securityLevel: 'strict', theme: want, suppressErrorRendering: true, htmlLabels: false, flowchart: { htmlLabels: false } });
    theme = want;
  }
  for (const b of blocks) {
    const source = b.querySelector('code')?.textContent ?? '';
    const key = `${want}\n${source}`;
    let svg = drawn.get(key);
    if (svg === undefined) {
      try {
        const r = await m.render(`mermaid-${String(++seq)}`, source);
        svg = r.svg;
        drawn.set(key, svg);
      } catch (e) {
        showError(b, opts.errorLabel, e);
        continue;
      }
    }
    b.dataset.drawn = 'true';
    b.querySelector('.mermaid-error')?.remove();
    const fig = document.createElement('div');
    fig.className = 'mermaid-diagram';
    fig.setAttribute('role', 'img');
    fig.innerHTML = svg;
    b.insertBefore(fig, b.firstChild);
    b.querySelector('pre')?.setAttribute('hidden', '');
  }
}

function showError(block: HTMLElement, label: string, e: unknown): void {
  block.dataset.drawn = 'error';
  const msg = e instanceof Error ? e.message : String(e);
  const div = document.createElement('div');
  div.className = 'mermaid-error';
  div.setAttribute('role', 'alert');
  div.textContent = `${label}: ${msg.split('\n').slice(0, 4).join(' ').trim()}`;
  block.insertBefore(div, block.firstChild);
}
