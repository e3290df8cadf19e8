// TeX math in markdown: a marked extension that finds `$…$`, `$$…$$`, `\(…\)` and `\[…\]`,
// and KaTeX (loaded on first use, its own chunk with its CSS and fonts bundled locally) to
// typeset them after the markdown is sanitized. See docs/ARCHITECTURE.md, "Rendering".

import type { MarkedExtension, Tokens } from 'marked';
import type katexModule from 'katex';

type Katex = typeof katexModule;

/** The class every math element renderMarkdown emits carries (with math-inline or math-display). */
export const MATH_CLASS = 'math';

/** A math token: `text` is the TeX between the delimiters. */
interface MathToken extends Tokens.Generic {
  type: 'math';
  raw: string;
  text: string;
  display: boolean;
}

const escapeHTML = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

// Display math as a block of its own: "$$" or "\[" opening a line, up to the closing
// delimiter ending a line (the formula may span lines).
const BLOCK_DOLLARS = /^ {0,3}\$\$([\s\S]+?)\$\$[ \t]*(?:\n+|$)/;
const BLOCK_BRACKETS = /^ {0,3}\\\[([\s\S]+?)\\\][ \t]*(?:\n+|$)/;
// Inline: "$$…$$" (display), "\(…\)" and "$…$" ("\[…\]" only as a block: in a paragraph
// "\[1\]" is an escaped citation, which stays text). For "$…$" the opening
// dollar is followed by a non-space, the closing one is preceded by a non-space and a
// backslash-free char, and is not followed by a digit: so "$5 and $10" stays text (the
// second dollar follows a space and precedes a digit), as in Pandoc's rule.
const INLINE_DOUBLE = /^\$\$(?!\$)([^]+?)\$\$/;
const INLINE_PAREN = /^\\\(([^]+?)\\\)/;
const INLINE_DOLLAR = /^\$(?![\s$])((?:\\.|[^\\$\n])*?[^\s\\])\$(?!\d)/;
const INLINE_SINGLE_CHAR = /^\$([^\s\\$])\$(?!\d)/;

function inlineMatch(src: string): MathToken | undefined {
  let m = INLINE_DOUBLE.exec(src);
  if (m) return { type: 'math', raw: m[0], text: (m[1] ?? '').trim(), display: true };
  m = INLINE_PAREN.exec(src);
  if (m) return { type: 'math', raw: m[0], text: (m[1] ?? '').trim(), display: false };
  m = INLINE_SINGLE_CHAR.exec(src) ?? INLINE_DOLLAR.exec(src);
  if (m) return { type: 'math', raw: m[0], text: m[1] ?? '', display: false };
  return undefined;
}

/**
 * The marked extension for TeX math. A formula becomes
 * `<span class="math math-inline">TeX</span>` or `<div class="math math-display">TeX</div>`
 * (the TeX escaped, as text), which the sanitizer keeps and typesetMath replaces with
 * KaTeX's output. `\[…\]` is math only as a block opening a line, so an escaped citation
 * ("\[1\]") stays text. Code spans and fenced or indented code are never searched (marked
 * consumes them whole), a backslash-escaped dollar (`\$`) stays a dollar, and a `$` that
 * opens before a space or closes after one, or is followed by a digit ("$5 and $10"),
 * is text.
 */
export function mathExtension(): MarkedExtension {
  return {
    extensions: [
      {
        name: 'mathBlock',
        level: 'block',
        start(src) {
          const i = src.search(/^ {0,3}(\$\$|\\\[)/m);
          return i < 0 ? undefined : i;
        },
        tokenizer(src) {
          const m = BLOCK_DOLLARS.exec(src) ?? BLOCK_BRACKETS.exec(src);
          // "\[1\]" alone on a line is an escaped citation, not a formula.
          if (!m || /^[\d\s,\-–]*$/.test(m[1] ?? '')) return undefined;
          return { type: 'math', raw: m[0], text: (m[1] ?? '').trim(), display: true } satisfies MathToken;
        },
        renderer(token) {
          return `<div class="${MATH_CLASS} math-display">${escapeHTML((token as MathToken).text)}</div>\n`;
        },
      },
      {
        name: 'math',
        level: 'inline',
        start(src) {
          const i = src.search(/\$|\\\(/);
          return i < 0 ? undefined : i;
        },
        tokenizer(src) {
          return inlineMatch(src);
        },
        renderer(token) {
          const t = token as MathToken;
          return t.display
            ? `<span class="${MATH_CLASS} math-display">${escapeHTML(t.text)}</span>`
            : `<span class="${MATH_CLASS} math-inline">${escapeHTML(t.text)}</span>`;
        },
      },
    ],
  };
}

let katex: Katex | null = null;
let loading: Promise<boolean> | null = null;

/**
 * Loads KaTeX and its stylesheet (fonts from the app's own assets, no network) once.
 * Resolves true when this call made it available, false when it already was or failed
 * to load (the formulas then stay as their TeX source; mathReady tells which).
 */
export function loadMath(): Promise<boolean> {
  if (katex !== null) return Promise.resolve(false);
  loading ??= Promise.all([import('katex'), import('katex/dist/katex.min.css')])
    .then(([m]) => {
      katex = (m as { default: Katex }).default;
      return true;
    })
    .catch(() => {
      loading = null;
      return false;
    });
  return loading;
}

/** Whether KaTeX has been loaded (loadMath), so typesetMath typesets. */
export function mathReady(): boolean {
  return katex !== null;
}

/** Whether rendered HTML (renderMarkdown's) contains math to typeset. */
export function hasMath(html: string): boolean {
  return /class="math math-(inline|display)[ "]/.test(html);
}

/**
 * Replaces every math element under root (see mathExtension) with KaTeX's HTML and
 * MathML, when KaTeX is loaded; before that it marks them `math-pending` (shown as their
 * TeX source). KaTeX runs with trust off (no \href, \url, \includegraphics or HTML
 * extensions), errors shown inline (`.katex-error` with the source) and expansion and
 * size limits, so a formula from a model or a web page cannot add links, load anything
 * or stall the page. Its output carries inline styles, which is why it is added after
 * the sanitizer (which removes style attributes) has run.
 */
export function typesetMath(root: ParentNode): void {
  for (const el of root.querySelectorAll<HTMLElement>(`.${MATH_CLASS}.math-inline, .${MATH_CLASS}.math-display`)) {
    if (el.querySelector('.katex') !== null) continue;
    const tex = el.textContent;
    if (katex === null) {
      el.classList.add('math-pending');
      continue;
    }
    el.classList.remove('math-pending');
    el.innerHTML = katex.renderToString(tex, {
      displayMode: el.classList.contains('math-display'),
      throwOnError: false,
      output: 'htmlAndMathml',
      trust: false,
      strict: 'ignore',
      maxExpand: 1000,
      maxSize: 20,
    });
  }
}
