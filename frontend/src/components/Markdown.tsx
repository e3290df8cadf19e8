import { useMemo, type MouseEvent } from 'react';
import { openExternal } from '../api';
import { renderMarkdown } from '../markdown';

/** Props of Markdown. */
export interface MarkdownProps {
  /** Untrusted markdown (model output, page text, artifact content). */
  source: string;
  className?: string;
}

/**
 * Renders untrusted markdown, sanitized (see renderMarkdown). Clicks on links never navigate
 * the app window: absolute external links (http, https, mailto) open in the system browser
 * through runtime.BrowserOpenURL; all others (relative, fragment, other schemes) do nothing.
 */
export function Markdown({ source, className }: MarkdownProps) {
  const html = useMemo(() => renderMarkdown(source), [source]);
  return (
    <div
      className={className ? `markdown ${className}` : 'markdown'}
      onClick={interceptLinks}
      onAuxClick={interceptLinks}
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
}

function interceptLinks(e: MouseEvent<HTMLElement>): void {
  const target = e.target as Element | null;
  const a = target?.closest('a');
  if (!a || !e.currentTarget.contains(a)) return;
  e.preventDefault();
  // The raw attribute, not a.href: a relative link must not resolve against the app's origin.
  openExternal(a.getAttribute('href') ?? '');
}
