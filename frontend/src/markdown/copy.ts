// The logic of the copy buttons: what each one puts on the clipboard and how long its
// "Copied" confirmation shows. Components: CopyButton (answers, artifacts) and the
// code-block buttons that renderMarkdown adds (markdown.ts, handled in Markdown.tsx).

import { i18n } from '../i18n/i18n';

/** How long a copy button says "Copied" (or "Copy failed"), in milliseconds. */
export const COPIED_MS = 2000;

/** The class of the copy button renderMarkdown puts in each code block. */
export const CODE_COPY_CLASS = 'code-copy';

/** A copy button's state: idle, or the outcome of the last click. */
export type CopyState = 'idle' | 'copied' | 'failed';

/** The label a copy button shows for its state, in the UI's language ("Copy" when idle unless `idle` is given). */
export function copyLabel(state: CopyState, idle?: string): string {
  if (state === 'copied') return i18n.t('common:copied');
  if (state === 'failed') return i18n.t('tools:copy.failed');
  return idle ?? i18n.t('common:copy');
}

/**
 * The code of the block whose copy button is `button` (an element inside a `<pre>`):
 * the text of its `<code>` (or of the `<pre>` less the button), exactly as shown, without
 * the button's label; null when `button` is not such a button.
 */
export function codeOfCopyButton(button: Element): string | null {
  if (!button.classList.contains(CODE_COPY_CLASS)) return null;
  const pre = button.closest('pre');
  if (pre === null) return null;
  const code = pre.querySelector('code');
  if (code !== null) return code.textContent;
  const clone = pre.cloneNode(true) as HTMLElement;
  clone.querySelectorAll(`.${CODE_COPY_CLASS}`).forEach((b) => b.remove());
  return clone.textContent;
}

/** A text as a CSS string literal (for `content: var(--x)`), on one line. */
export function cssString(s: string): string {
  return `"${s.replace(/["\\\n]/g, (c) => (c === '\n' ? ' ' : `\\${c}`))}"`;
}

/**
 * Sets the labels the code blocks' copy buttons show from CSS (everyday.css: "Copy",
 * "Copied", "Copy failed") in the UI's language, as custom properties on `root` (<html>):
 * not on the rendered text, which never carries a style attribute. Done on import and on
 * every language change.
 */
export function setCodeCopyLabels(root: HTMLElement = document.documentElement): void {
  root.style.setProperty('--code-copy-label', cssString(i18n.t('common:copy')));
  root.style.setProperty('--code-copied-label', cssString(i18n.t('common:copied')));
  root.style.setProperty('--code-copy-failed-label', cssString(i18n.t('tools:copy.failed')));
}

if (typeof document !== 'undefined') {
  setCodeCopyLabels();
  i18n.on('languageChanged', () => setCodeCopyLabels());
}

/**
 * Puts a copy button at the start of every `<pre>` under root (called by renderMarkdown
 * after sanitizing, so the sanitizer's ban on buttons from the source still holds). The
 * button has no text of its own (its label comes from CSS and aria-label), so selecting and
 * copying the code by hand does not pick up "Copy".
 */
export function addCodeCopyButtons(root: ParentNode): void {
  root.querySelectorAll('pre').forEach((pre) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = CODE_COPY_CLASS;
    b.setAttribute('aria-label', i18n.t('tools:copy.code'));
    b.setAttribute('title', i18n.t('tools:copy.code'));
    pre.classList.add('has-copy');
    pre.insertBefore(b, pre.firstChild);
  });
}
