import { useEffect, useMemo, useState } from 'react';
import { fenceLanguages, loadLanguages } from '../highlight';
import { renderCode, renderMarkdown } from '../markdown';
import { UNTRUSTED_ATTR, blockSubmit, followLink } from '../navigation';

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
}

/**
 * Bumps a counter whenever one of `languages` becomes available for highlighting, so memoized
 * HTML re-renders with colours. Does nothing for an empty list.
 */
function useHighlightReady(languages: readonly string[]): number {
  const [tick, setTick] = useState(0);
  const key = languages.join(',');
  useEffect(() => {
    if (key === '') return;
    let stale = false;
    void loadLanguages(key.split(',')).then((changed) => {
      if (changed && !stale) setTick((t) => t + 1);
    });
    return () => {
      stale = true;
    };
  }, [key]);
  return tick;
}

/**
 * Renders untrusted markdown, sanitized (see renderMarkdown). Nothing in it navigates the app
 * window: a click on a link (`<a>`, an image map's `<area>`, an SVG link) opens absolute
 * external links (http, https, mailto) in the system browser through runtime.BrowserOpenURL
 * and does nothing for all others (relative, fragment, javascript:, data:, file: ...); a form
 * submission, should one get past the sanitizer, is cancelled (see navigation.followLink).
 */
export function Markdown({ source, className, highlight = false }: MarkdownProps) {
  const languages = useMemo(() => (highlight ? fenceLanguages(source) : []), [highlight, source]);
  const ready = useHighlightReady(languages);
  const html = useMemo(() => renderMarkdown(source, { highlight }), [source, highlight, ready]); // eslint-disable-line react-hooks/exhaustive-deps
  return (
    <div
      className={className ? `markdown ${className}` : 'markdown'}
      {...untrusted}
      onClick={followLink}
      onAuxClick={followLink}
      onSubmit={blockSubmit}
      dangerouslySetInnerHTML={{ __html: html }}
    />
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
  const html = useMemo(() => renderCode(code, language), [code, language, ready]); // eslint-disable-line react-hooks/exhaustive-deps
  return <div className={className ? `code-view ${className}` : 'code-view'} {...untrusted} dangerouslySetInnerHTML={{ __html: html }} />;
}
