// Markdown to sanitized HTML. Everything the model, web pages or artifacts produce goes
// through renderMarkdown before it reaches the DOM (untrusted text is rendered sanitized;
// docs/ARCHITECTURE.md, "Security").

import DOMPurify from 'dompurify';
import { Marked, type MarkedExtension, type Tokens } from 'marked';
import { linkCitations, type CiteResolver } from '../sources/citations';
import { addCodeCopyButtons } from './copy';
import { highlightSync } from './highlight';
import { i18n } from '../i18n/i18n';
import { hasMath, mathExtension, typesetMath } from './math';
import { mermaidBlockHTML } from './mermaid';

// For Markdown.tsx, which loads this module (and with it Mermaid's drawing glue) as a chunk
// of its own (markdown-lib.ts).
export { MERMAID_BLOCK_CLASS, renderMermaidBlocks } from './mermaid';
import { blockRemoteLoads } from './remote-loads';

/** State of one checklist item in a task plan. */
export type TaskMark = 'done' | 'todo' | 'progress';

// Task-plan markers besides GitHub's "[ ]"/"[x]". The lead ticks items off by
// turning "[✗]" into "[✓]", so ✗ means "not done yet", not "failed".
const MARKERS: Partial<Record<string, TaskMark>> = {
  '✓': 'done',
  '✔': 'done',
  '√': 'done',
  x: 'done',
  X: 'done',
  '✗': 'todo',
  '✘': 'todo',
  ' ': 'todo',
  '~': 'progress',
  '→': 'progress',
  '>': 'progress',
};
const MARKER_RE = /^\[(.)\]\s+/u;

/** A task marker's accessible name in the UI's language. */
function markLabel(mark: TaskMark): string {
  if (mark === 'done') return i18n.t('tools:markdown.taskDone');
  if (mark === 'progress') return i18n.t('tools:markdown.taskProgress');
  return i18n.t('tools:markdown.taskTodo');
}

/** Escapes text for an HTML attribute value in double quotes. */
const attr = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

const marks = new WeakMap<Tokens.ListItem, TaskMark>();

const options: MarkedExtension = {
  gfm: true,
  breaks: false,
  walkTokens(token) {
    if (token.type !== 'list_item') return;
    const item = token as Tokens.ListItem;
    if (item.task) {
      marks.set(item, item.checked === true ? 'done' : 'todo');
      return;
    }
    // "[✓] text": the first inline text token of the item starts with the marker.
    const first = item.tokens[0];
    if (first?.type !== 'text' && first?.type !== 'paragraph') return;
    const inline = (first as Tokens.Text | Tokens.Paragraph).tokens?.[0];
    if (inline?.type !== 'text') return;
    const t = inline as Tokens.Text;
    const m = MARKER_RE.exec(t.text);
    const mark = m?.[1] !== undefined ? MARKERS[m[1]] : undefined;
    if (!m || mark === undefined) return;
    t.text = t.text.slice(m[0].length);
    t.raw = t.raw.slice(Math.min(m[0].length, t.raw.length));
    marks.set(item, mark);
  },
  renderer: {
    text(token) {
      // An escaped bracket ("\[1]", "[1\]") is rendered apart from the text around it, so the
      // citation chips (citations.linkCitations, which read one text node at a time) find
      // no citation in it: the engine's rule (sources.Citations) does not count one either.
      if (token.type === 'escape' && (token.text === '[' || token.text === ']')) {
        return `<span class="md-escaped">${token.text === '[' ? '&#91;' : '&#93;'}</span>`;
      }
      return false;
    },
    checkbox() {
      // Rendered by listitem as a marker span; inputs are not allowed through the sanitizer.
      return '';
    },
    listitem(item) {
      const body = this.parser.parse(item.tokens);
      const mark = marks.get(item);
      if (mark === undefined) return `<li>${body}</li>\n`;
      return `<li class="task task-${mark}"><span class="task-mark" role="img" aria-label="${attr(markLabel(mark))}"></span><div class="task-body">${body}</div></li>\n`;
    },
  },
};

const isMermaid = (lang: string | undefined): boolean => (lang ?? '').trim().split(/\s/)[0]?.toLowerCase() === 'mermaid';

// Math (math.ts) and mermaid blocks (mermaid.ts, drawn later by the Markdown component).
const marked = new Marked(options, mathExtension(), {
  renderer: {
    code({ text, lang }) {
      return isMermaid(lang) ? mermaidBlockHTML(text) : false;
    },
  },
});

// The same, with fenced code highlighted when its grammar is loaded (else marked's plain
// <pre><code>, which `false` falls back to).
const markedHighlighted = new Marked(options, mathExtension(), {
  renderer: {
    code({ text, lang }) {
      if (isMermaid(lang)) return mermaidBlockHTML(text);
      return highlightSync(text, lang ?? '') ?? false;
    },
  },
});

const FORBID_TAGS = ['style', 'form', 'input', 'button', 'textarea', 'select', 'option', 'iframe', 'frame', 'object', 'embed', 'base', 'link', 'meta'];
const FORBID_ATTR = ['style', 'srcset', 'formaction', 'autofocus'];

let hooked = false;

/**
 * True only while renderMarkdown runs with `images: true` (the user clicked "Load images",
 * or Settings say "always"): the sanitizer hook then keeps an `<img>`'s http(s) src.
 * Rendering is synchronous, so no other render sees it.
 */
let keepImages = false;

/** Marks links (and image-map areas) so the Markdown component can open them in the system browser. */
function installHooks(): void {
  if (hooked) return;
  hooked = true;
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    const name = node.nodeName.toUpperCase();
    if (name === 'A' || name === 'AREA') {
      const href = node.getAttribute('href') ?? '';
      node.removeAttribute('target');
      node.setAttribute('rel', 'noopener noreferrer');
      if (/^(https?:|mailto:)/i.test(href)) {
        node.setAttribute('data-external', 'true');
        if (!node.hasAttribute('title')) node.setAttribute('title', href);
      }
    } else {
      blockRemoteLoads(node, keepImages);
      if (node.nodeName === 'IMG') {
        node.setAttribute('loading', 'lazy');
        node.setAttribute('referrerpolicy', 'no-referrer');
      }
    }
  });
}

/**
 * Renders GitHub-flavoured markdown to sanitized HTML (a string for innerHTML).
 *
 * Scripts, event-handler attributes, javascript: URLs, styles, forms and their controls,
 * frames, `<meta>` (so no refresh), `<base>` and `<link>` are removed by DOMPurify, and
 * remote URLs that images, media and SVG would load by themselves are dropped (see
 * blockRemoteLoads): rendering never contacts another server.
 * Task-list items ("- [ ]", "- [x]", and the task-plan markers "[✓]", "[✗]", "[~]", "[→]")
 * become `<li class="task task-done|task-todo|task-progress">` with a marker span. Links
 * and image-map areas keep their href, lose any target and get rel="noopener noreferrer";
 * http(s) and mailto ones also get data-external="true" (the Markdown component opens them
 * with BrowserOpenURL).
 * With `highlight`, fenced code whose grammar is loaded (highlight.loadLanguages) becomes
 * shiki's class-coloured `<pre class="shiki">`; other code stays plain. Either way the
 * result passes the same sanitizer.
 * With `cite`, citation markers (`[1]`, `[1, 2]`, `[3-5]`) outside code and links become
 * chips (citations.linkCitations) after sanitizing: the chips are made on the sanitized
 * DOM with DOM calls, so the sanitizer's rules (no buttons from the source) still hold for
 * everything else. A backslash-escaped bracket (`\[1]`) is rendered as
 * `<span class="md-escaped">[</span>`, so it never makes a chip (as in the engine's rule).
 * With `copyCode`, every code block gets a copy button (copy.addCodeCopyButtons), also
 * added after sanitizing; the Markdown component handles its clicks.
 * With `images`, remote http(s) images are kept (see blockRemoteLoads); without it their
 * URLs are in data-blocked-src (hasBlockedImages).
 * TeX math (`$…$`, `$$…$$`, `\(…\)`, `\[…\]`; see math.mathExtension for what stays text,
 * such as "$5 and $10" and code) is typeset by KaTeX after sanitizing, once math.loadMath
 * has loaded it (its TeX source in a `.math-pending` element until then; math.hasMath
 * tells whether there is any). A ```mermaid block becomes `<div class="mermaid-block">`
 * with its source (mermaid.mermaidBlockHTML), which mermaid.renderMermaidBlocks draws.
 */
export function renderMarkdown(source: string, opts: { highlight?: boolean; cite?: CiteResolver; copyCode?: boolean; images?: boolean } = {}): string {
  installHooks();
  keepImages = opts.images === true;
  try {
    return renderSanitized(source, opts);
  } finally {
    keepImages = false;
  }
}

/**
 * The sources of the ```mermaid fenced blocks of Markdown `source`, in document order (those
 * inside lists and quotes too), each as the block's text that renderMarkdown draws (marked's
 * code token text, the info string's first word "mermaid" in any case). [] when there is
 * none; a source without the word "mermaid" is not even parsed.
 */
export function mermaidSources(source: string): string[] {
  if (!/mermaid/i.test(source)) return [];
  const found: string[] = [];
  void marked.walkTokens(marked.lexer(source), (t) => {
    if (t.type === 'code' && isMermaid((t as Tokens.Code).lang)) found.push((t as Tokens.Code).text);
  });
  return found;
}

/**
 * Reports whether rendered HTML (renderMarkdown's) has an image whose remote src was
 * blocked, which is when the Markdown component offers "Load images".
 */
export function hasBlockedImages(html: string): boolean {
  return /<img\b[^>]*\sdata-blocked-src=/i.test(html);
}

function renderSanitized(source: string, opts: { highlight?: boolean; cite?: CiteResolver; copyCode?: boolean }): string {
  const html = (opts.highlight === true ? markedHighlighted : marked).parse(source, { async: false });
  const math = hasMath(html);
  if (opts.cite === undefined && opts.copyCode !== true && !math) return sanitize(html);
  const frag = DOMPurify.sanitize(html, { FORBID_TAGS, FORBID_ATTR, ALLOW_DATA_ATTR: false, RETURN_DOM_FRAGMENT: true });
  // Math first, so no citation chip is made of a "[1]" inside a formula.
  if (math) typesetMath(frag);
  if (opts.cite !== undefined) linkCitations(frag, opts.cite);
  if (opts.copyCode === true) addCodeCopyButtons(frag);
  const box = document.createElement('div');
  box.appendChild(frag);
  return box.innerHTML;
}

function sanitize(html: string): string {
  return DOMPurify.sanitize(html, {
    FORBID_TAGS,
    FORBID_ATTR,
    ALLOW_DATA_ATTR: false,
  });
}

/**
 * Renders source code (an uploaded .py, a code artifact) as sanitized HTML: highlighted
 * `<pre class="shiki language-ID">` when `language`'s grammar is loaded (see
 * highlight.loadLanguages), else a plain escaped `<pre class="code-plain"><code>`.
 */
export function renderCode(code: string, language: string): string {
  const html = highlightSync(code, language);
  if (html !== null) return sanitize(html);
  const esc = code.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `<pre class="code-plain"><code>${esc}</code></pre>`;
}

/**
 * The Content-Security-Policy an HTML artifact's sandboxed frame runs under: it may show
 * its own inline styles and data:/blob: images and fonts, and load nothing from anywhere
 * (the frame's sandbox already stops scripts, forms and navigation).
 */
export const HTML_ARTIFACT_CSP = "default-src 'none'; img-src data: blob:; style-src 'unsafe-inline'; font-src data:";

/**
 * Returns an HTML artifact's source with a `<meta http-equiv="Content-Security-Policy">`
 * of HTML_ARTIFACT_CSP in front, for the frame's srcdoc: a model-written page with
 * `<img src="https://…">` or a CSS `url(…)` then contacts no server, in the window (which
 * has no CSP of its own) as in browser mode. Content after the meta cannot loosen it.
 */
export function offlineHTML(content: string): string {
  return `<meta http-equiv="Content-Security-Policy" content="${HTML_ARTIFACT_CSP}">${content}`;
}
