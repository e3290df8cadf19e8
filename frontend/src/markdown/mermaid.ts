// Mermaid diagrams for ```mermaid code blocks. Mermaid is large, so it is imported (its own
// chunks) only when a rendered text has such a block, and runs in its strict security
// mode; the SVG it returns is sanitized like any other rendered text, so a diagram never
// makes the page contact another server. See docs/ARCHITECTURE.md, "Rendering".

import DOMPurify from 'dompurify';
import type { Mermaid } from 'mermaid';
import { blockRemoteLoads } from './remote-loads';

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

/**
 * Config keys a diagram's own `%%{init: …}%%` directive or front-matter `config:` may not
 * set: Mermaid's default list (mermaid/dist/config.type.d.ts, `secure`; 11.17.2) plus the
 * theme's CSS and variables and the fonts, which go into the SVG's <style> unchecked.
 */
const SECURE_KEYS = ['secure', 'securityLevel', 'startOnLoad', 'maxTextSize', 'suppressErrorRendering', 'maxEdges', 'themeCSS', 'themeVariables', 'fontFamily', 'altFontFamily'];

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
 * Sets Mermaid up for `want` ('default' or 'dark') unless it already is: strict security,
 * SECURE_KEYS out of a diagram's reach, errors thrown rather than drawn, and labels as SVG
 * <text> (htmlLabels off at the top level, which Mermaid 11 reads for every diagram, and for
 * flowcharts), never HTML in a <foreignObject>.
 */
function applyTheme(m: Mermaid, want: 'default' | 'dark'): void {
  if (theme === want) return;
  m.initialize({ startOnLoad: false, securityLevel: 'strict', secure: SECURE_KEYS, theme: want, suppressErrorRendering: true, htmlLabels: false, flowchart: { htmlLabels: false } });
  theme = want;
}

/**
 * Draws every mermaid block under root (see mermaidBlockHTML) as an inline SVG placed
 * before its source, which is then hidden (kept in the DOM for copy and find). Mermaid is
 * imported on the first call that finds a block, never otherwise, and initialised with
 * securityLevel 'strict' (labels are sanitized, no click handlers or links to scripts,
 * no HTML labels), with the theme's CSS, variables and fonts out of a diagram's reach
 * (SECURE_KEYS), and the dark theme when `dark`. Each SVG passes sanitizeMermaidSVG before
 * it is put in the page. A diagram that does not parse gets an
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
  applyTheme(m, want);
  for (const b of blocks) {
    const source = b.querySelector('code')?.textContent ?? '';
    const key = `${want}\n${source}`;
    let svg = drawn.get(key);
    if (svg === undefined) {
      try {
        const r = await m.render(`mermaid-${String(++seq)}`, source);
        svg = sanitizeMermaidSVG(r.svg);
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

/** The most diagrams one export draws (export.MaxDiagrams in the Go export). */
export const MAX_EXPORT_DIAGRAMS = 50;

/**
 * A mermaid block's key in the diagrams sent with an HTML export: the source with CRLF and
 * CR made LF and spaces, tabs and newlines trimmed at both ends, the rule the Go export
 * applies to both sides (export.DiagramKey).
 */
export function mermaidKey(source: string): string {
  return source.replace(/\r\n?/g, '\n').replace(/^[ \t\n]+|[ \t\n]+$/g, '');
}

/**
 * Draws the given mermaid sources (markdown.mermaidSources) for an HTML export and returns
 * the SVGs by mermaidKey, for ArtifactService.ExportWithDiagrams. The diagrams are drawn as
 * renderMermaidBlocks draws them (strict security, the same secure keys, labels as SVG
 * <text> with htmlLabels off, never <foreignObject>, and sanitizeMermaidSVG), always in the
 * light theme of the exported page; a diagram already drawn in the light theme is reused.
 * At most MAX_EXPORT_DIAGRAMS distinct sources are drawn. A source that does not parse, or
 * all of them when Mermaid cannot be loaded, is left out (the export shows its source).
 * Mermaid is imported only when there is a source. Never rejects.
 */
export async function drawMermaidForExport(sources: readonly string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const todo = new Map<string, string>(); // key → source
  for (const src of sources) {
    const key = mermaidKey(src);
    if (key !== '' && !todo.has(key) && todo.size < MAX_EXPORT_DIAGRAMS) todo.set(key, src);
  }
  if (todo.size === 0) return out;
  let m: Mermaid;
  try {
    m = await load();
  } catch {
    return out;
  }
  for (const [key, src] of todo) {
    const cached = drawn.get(`default\n${src}`);
    if (cached !== undefined) {
      out[key] = cached;
      continue;
    }
    applyTheme(m, 'default');
    try {
      const r = await m.render(`mermaid-${String(++seq)}`, src);
      const svg = sanitizeMermaidSVG(r.svg);
      drawn.set(`default\n${src}`, svg);
      out[key] = svg;
    } catch {
      // Left out: the export shows this block's source.
    }
  }
  return out;
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

// One DOMPurify of its own, so the SVG hooks below and renderMarkdown's hooks never meet.
let purifier: ReturnType<typeof DOMPurify> | null = null;

function svgPurifier(): ReturnType<typeof DOMPurify> {
  if (purifier !== null) return purifier;
  purifier = DOMPurify(window);
  purifier.addHook('afterSanitizeAttributes', (node) => {
    blockRemoteLoads(node, false);
  });
  return purifier;
}

/**
 * Returns Mermaid's SVG markup (a string for innerHTML) sanitized as an SVG image: only
 * SVG and SVG-filter elements and attributes stay (no <script>, on* handlers,
 * <foreignObject> or HTML), every remote href/xlink:href/src is dropped (blockRemoteLoads;
 * kept in data-blocked-src), and in <style> elements, style attributes and presentation
 * attributes every url(…) other than a #fragment or data: URL and every @import is
 * removed; CSS that would still load something after that (an image-set(), a url()
 * hidden by CSS escapes) is dropped whole. The diagram's shapes, text and theme styles
 * stay. Rendering never contacts another server, whatever a diagram's source says.
 */
export function sanitizeMermaidSVG(svg: string): string {
  const frag = svgPurifier().sanitize(svg, { USE_PROFILES: { svg: true, svgFilters: true }, RETURN_DOM_FRAGMENT: true });
  for (const style of [...frag.querySelectorAll('style')]) {
    const css = cleanCSS(style.textContent);
    if (css === null) style.remove();
    else style.textContent = css;
  }
  for (const el of [...frag.querySelectorAll('*')]) {
    for (const attr of [...el.attributes]) {
      if (attr.name === 'style') {
        const css = cleanCSS(attr.value);
        if (css === null) el.removeAttribute(attr.name);
        else el.setAttribute(attr.name, css);
      } else if (loadsSomething(attr.value)) {
        el.removeAttribute(attr.name);
      }
    }
  }
  const box = document.createElement('div');
  box.appendChild(frag);
  return box.innerHTML;
}

const CSS_COMMENT = /\/\*[\s\S]*?\*\//g;
const CSS_IMPORT = /@import\b[^;{}]*;?/gi;
/** A url(…) whose target is neither a #fragment nor a data: URL. */
const CSS_FOREIGN_URL = /url\(\s*(?!["']?\s*(?:#|data:))(?:"[^"]*"|'[^']*'|[^)]*)\)/gi;

/** Removes remote url(…) and @import from css; null when what is left would still load something. */
function cleanCSS(css: string): string | null {
  const out = css.replace(CSS_COMMENT, '').replace(CSS_IMPORT, '').replace(CSS_FOREIGN_URL, 'none');
  return loadsSomething(out) ? null : out;
}

/**
 * Whether CSS (or a presentation attribute's value) still refers to something to load once
 * its escapes are decoded and comments dropped: an @import, a url(…) other than a
 * #fragment or data: URL, or a function that takes a plain string as an image URL.
 */
function loadsSomething(value: string): boolean {
  const plain = unescapeCSS(value).replace(CSS_COMMENT, '');
  return /@import/i.test(plain) || /url\(\s*(?!["']?\s*(?:#|data:))/i.test(plain) || /(?:image-set|image|src|cross-fade)\(/i.test(plain);
}

/** Decodes CSS escapes (`\75 rl(`, `\u`), which the CSS parser decodes before it sees a url(. */
function unescapeCSS(s: string): string {
  return s
    .replace(/\\([0-9a-fA-F]{1,6})\s?/g, (_, hex: string) => {
      const cp = parseInt(hex, 16);
      return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : '\uFFFD';
    })
    .replace(/\\([\s\S])/g, '$1');
}
