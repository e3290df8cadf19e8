import { useEffect, useMemo, useRef, useState, type FocusEvent, type MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { copyText, isBrowserMode } from '../api/runtime';
import { chipOf } from '../sources/citations';
import { CODE_COPY_CLASS, COPIED_MS, codeOfCopyButton } from './copy';
import { fenceLanguages, isLanguageReady, loadLanguages } from './highlight';
import { i18n } from '../i18n/i18n';
import { plainTextHTML, useMarkdownLib } from './markdown-lib';
import { hasMath, loadMath, mathReady } from './math';
import { UNTRUSTED_ATTR, blockSubmit, followLink } from './navigation';
import { useRemoteImages } from './remote-images';
import { useCitations } from '../sources/Citations';
import '../shared/everyday.css';

/** Marks a container of untrusted HTML for the navigation guard (see navigation.ts). */
const untrusted = { [UNTRUSTED_ATTR]: '' };

/** Props of Markdown. */
export interface MarkdownProps {
  /** Untrusted markdown (model output, page text, artifact content). */
  source: string;
  className?: string;
  /**
   * Highlight fenced code blocks. Their grammars load lazily; blocks show as plain code
   * until then and re-render highlighted when they arrive.
   */
  highlight?: boolean;
  /**
   * Show citation markers ([1], [1, 2], [3-5]) as chips resolved against the sources of
   * the nearest CitationProvider (see citations.linkCitations); plain text outside one and
   * while the sources load.
   */
  cite?: boolean;
  /**
   * Give every code block a copy button that copies the code only; defaults to
   * `highlight` (answers and artifacts, where code blocks are highlighted).
   */
  copyCode?: boolean;
}

/**
 * Bumps a counter whenever one of `languages` becomes available for highlighting, so memoized
 * HTML re-renders with colours. Does nothing for an empty list. A grammar that arrives between
 * the render and its effect (loaded for another block meanwhile) counts too: the effect
 * compares what is ready once loading has settled with what was ready when the component
 * last rendered.
 */
function useHighlightReady(languages: readonly string[]): number {
  const [tick, setTick] = useState(0);
  const key = languages.join(',');
  const readyAtRender = languages.filter(isLanguageReady).length;
  useEffect(() => {
    if (key === '') return;
    let stale = false;
    const wanted = key.split(',');
    void loadLanguages(wanted).then(() => {
      if (!stale && wanted.filter(isLanguageReady).length > readyAtRender) setTick((t) => t + 1);
    });
    return () => {
      stale = true;
    };
  }, [key, readyAtRender]);
  return tick;
}

/** Whether the app shows its dark theme (it follows the system's colour scheme). */
const prefersDark = (): boolean => typeof window.matchMedia === 'function' && window.matchMedia('(prefers-color-scheme: dark)').matches;

/**
 * Copies the code of the block whose copy button was clicked (copy.codeOfCopyButton) and
 * marks the button data-copied="true" (or "false" when the clipboard refused) for
 * COPIED_MS, which the stylesheet shows as "Copied"; only an attribute changes, so the
 * rendered HTML is not rebuilt. Returns whether target was such a button.
 */
function copyCodeBlock(target: EventTarget | null): boolean {
  const button = target instanceof Element ? target.closest(`.${CODE_COPY_CLASS}`) : null;
  const code = button !== null ? codeOfCopyButton(button) : null;
  if (button === null || code === null) return false;
  void copyText(code).then((ok) => {
    button.setAttribute('data-copied', String(ok));
    button.setAttribute('aria-label', ok ? i18n.t('tools:copy.codeCopied') : i18n.t('tools:copy.failed'));
    window.setTimeout(() => {
      button.removeAttribute('data-copied');
      button.setAttribute('aria-label', i18n.t('tools:copy.code'));
    }, COPIED_MS);
  });
  return true;
}

/**
 * Renders untrusted markdown, sanitized (see renderMarkdown). Nothing in it navigates the app
 * window: a click on a link (`<a>`, an image map's `<area>`, an SVG link) opens absolute
 * external links (http, https, mailto) in the system browser through runtime.BrowserOpenURL
 * and does nothing for all others (relative, fragment, javascript:, data:, file: ...); a form
 * submission, should one get past the sanitizer, is cancelled (see navigation.followLink).
 * Remote images load only with Settings' "Load remote images: Always" or after a click on the
 * "Load images" button shown under this text while it has blocked ones: the click is for this
 * text only (one message, one artifact).
 */
export function Markdown({ source, className, highlight = false, cite = false, copyCode = highlight }: MarkdownProps) {
  const { t, i18n: lang } = useTranslation('tools');
  const language = lang.language;
  const languages = useMemo(() => (highlight ? fenceLanguages(source) : []), [highlight, source]);
  const ready = useHighlightReady(languages);
  const citations = useCitations();
  const resolve = cite ? citations?.resolve : undefined;
  const [clicked, setClicked] = useState(false);
  const images = useRemoteImages() === 'always' || clicked;
  // Bumped when KaTeX arrives, so HTML rendered with pending formulas renders again typeset.
  const [mathTick, setMathTick] = useState(0);
  // Rendered again in another language: chips', copy buttons' and task marks' labels are in the HTML.
  // Plain text until the renderer's chunk is in (markdown-lib.ts), then rendered.
  const lib = useMarkdownLib();
  const html = useMemo(() => (lib === null ? plainTextHTML(source) : lib.renderMarkdown(source, { highlight, cite: resolve, copyCode, images })), [lib, source, highlight, ready, resolve, copyCode, images, language, mathTick]); // eslint-disable-line react-hooks/exhaustive-deps
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let stale = false;
    // Formulas rendered before KaTeX was loaded (by this text or another) are pending.
    if (hasMath(html) && html.includes('math-pending')) {
      void loadMath().then(() => {
        if (!stale && mathReady()) setMathTick((t) => t + 1);
      });
    }
    const el = box.current;
    if (el !== null && lib !== null && html.includes(lib.MERMAID_BLOCK_CLASS)) void lib.renderMermaidBlocks(el, { dark: prefersDark(), errorLabel: i18n.t('tools:markdown.diagramError') });
    return () => {
      stale = true;
    };
  }, [html, lib]);
  // New HTML replaced the chips: a card left open on one of them closes.
  const prune = citations?.prune;
  useEffect(() => {
    if (resolve !== undefined) prune?.();
  }, [html, resolve, prune]);
  // A resolved chip (a button) shows its source's card on hover or focus, and a click or
  // Enter opens the source; unresolved chips are spans and do nothing.
  const chip = (target: EventTarget | null) => {
    const c = resolve !== undefined ? chipOf(target) : null;
    return c !== null && c.el.tagName === 'BUTTON' ? c : null;
  };
  const onShow = (e: MouseEvent | FocusEvent) => {
    const c = chip(e.target);
    if (c !== null) citations?.show(c.el, c.n);
  };
  const onHide = (e: MouseEvent | FocusEvent) => {
    const c = chip(e.target);
    if (c !== null && chip(e.relatedTarget)?.el !== c.el) citations?.hide(e.type === 'blur' || e.type === 'focusout');
  };
  const onClick = (e: MouseEvent) => {
    if (copyCodeBlock(e.target)) return;
    if (followLink(e)) return;
    const c = chip(e.target);
    if (c === null) return;
    e.preventDefault();
    citations?.open(c.n);
  };
  const blocked = !images && lib !== null && lib.hasBlockedImages(html);
  // Browser mode's page CSP (img-src 'self' data: blob:) cannot open per click: say so.
  const cspNote = clicked && isBrowserMode() && /<img\b[^>]*\ssrc="https?:/i.test(html);
  const body = (
    <div
      ref={box}
      className={className ? `markdown ${className}` : 'markdown'}
      {...untrusted}
      onClick={onClick}
      onAuxClick={followLink}
      onSubmit={blockSubmit}
      {...(resolve !== undefined ? { onMouseOver: onShow, onMouseOut: onHide, onFocus: onShow, onBlur: onHide } : {})}
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
  if (cspNote) {
    return (
      <>
        {body}
        <p className="hint load-images-note">{t('markdown.browserBlocks')}</p>
      </>
    );
  }
  if (!blocked) return body;
  return (
    <>
      {body}
      <button
        type="button"
        className="btn btn-sm load-images"
        style={{ marginTop: 6 }}
        title={t('markdown.loadImagesTitle')}
        onClick={() => setClicked(true)}
      >
        {t('markdown.loadImages')}
      </button>
    </>
  );
}

/** Props of CodeView. */
export interface CodeViewProps {
  /** Untrusted source code. */
  code: string;
  /** A language name or content type ("python", "go", "text/x-python"). */
  language: string;
  className?: string;
}

/**
 * Shows source code, syntax-highlighted once its grammar has loaded (plain until then, and
 * for languages the app has no grammar for). The HTML is sanitized like markdown.
 */
export function CodeView({ code, language, className }: CodeViewProps) {
  const languages = useMemo(() => [language], [language]);
  const ready = useHighlightReady(languages);
  const lib = useMarkdownLib();
  const html = useMemo(() => (lib === null ? plainTextHTML(code) : lib.renderCode(code, language)), [lib, code, language, ready]); // eslint-disable-line react-hooks/exhaustive-deps
  return <div className={className ? `code-view ${className}` : 'code-view'} {...untrusted} dangerouslySetInnerHTML={{ __html: html }} />;
}
