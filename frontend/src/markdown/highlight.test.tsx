// @vitest-environment jsdom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import { CodeView, Markdown } from './Markdown';
import { fenceLanguages, highlightSync, isLanguageReady, loadLanguages, resolveLanguage, tokensToHtml } from './highlight';
import { renderCode, renderMarkdown } from './markdown';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

function dom(html: string): HTMLElement {
  const div = document.createElement('div');
  div.innerHTML = html;
  return div;
}

describe('resolveLanguage and fenceLanguages', () => {
  it.each([
    ['py', 'python'],
    ['Python', 'python'],
    ['text/x-python', 'python'],
    ['language-ts', 'typescript'],
    ['golang', 'go'],
    ['bash', 'shellscript'],
    ['shell', 'shellscript'],
    ['yml', 'yaml'],
    ['md', 'markdown'],
    ['json {title}', 'json'],
    ['cobol', null],
    ['', null],
  ])('%j -> %j', (name, id) => {
    expect(resolveLanguage(name)).toBe(id);
  });

  it('collects the known languages of fenced blocks', () => {
    const md = '# T\n\n```py\nx = 1\n```\n\n~~~ts\nlet a = 1\n~~~\n\n```cobol\nX\n```\n\n```\nplain\n```\n   ```python\nagain\n```';
    expect(fenceLanguages(md).sort()).toEqual(['python', 'typescript']);
  });
});

describe('highlighting', () => {
  it('is plain until the grammar is loaded, then uses class-coloured spans', async () => {
    const md = '```python\ndef f(x):\n    return "<b>" + x  # note\n```';
    expect(highlightSync('x = 1', 'python')).toBeNull();
    const before = dom(renderMarkdown(md, { highlight: true }));
    expect(before.querySelector('pre.shiki')).toBeNull();
    expect(before.querySelector('pre code')?.textContent).toContain('def f(x):');

    await expect(loadLanguages(['py'])).resolves.toBe(true);
    await expect(loadLanguages(['python'])).resolves.toBe(false);
    expect(isLanguageReady('python')).toBe(true);
    const after = dom(renderMarkdown(md, { highlight: true }));
    const pre = after.querySelector('pre.shiki.language-python');
    expect(pre).not.toBeNull();
    // Same text, now split into coloured spans; the HTML in the string stays text.
    expect(pre?.textContent).toBe('def f(x):\n    return "<b>" + x  # note');
    expect(pre?.querySelectorAll('span.line')).toHaveLength(2);
    expect(pre?.querySelectorAll('span[class^="hl-"]').length).toBeGreaterThan(3);
    expect(after.querySelector('b')).toBeNull();
    // No inline styles: the sanitizer would strip them, so colours are classes.
    expect(after.querySelector('[style]')).toBeNull();
    expect(document.getElementById('af-highlight-colors')?.textContent).toMatch(/\.hl-\d+\{color:#[0-9a-f]{3,8}\}/i);
    expect(document.getElementById('af-highlight-colors')?.textContent).toContain('prefers-color-scheme: dark');
    // Without the option, or for an unknown language, code stays plain.
    expect(dom(renderMarkdown(md)).querySelector('pre.shiki')).toBeNull();
    expect(dom(renderMarkdown('```cobol\nMOVE A TO B\n```', { highlight: true })).querySelector('pre.shiki')).toBeNull();
  });

  it('escapes token text and never emits style attributes', () => {
    // fontStyle 3 = italic | bold.
    const tokens = [[{ content: '<img src=x onerror=alert(1)>', offset: 0, variants: { light: { color: '#D73A49', fontStyle: 3 }, dark: { color: 'red;background:url(x)' } } }]];
    const html = tokensToHtml(tokens, 'go"><script>');
    const d = dom(html);
    expect(d.querySelector('img, script')).toBeNull();
    expect(d.querySelector('[style]')).toBeNull();
    expect(d.querySelector('span.hl-i.hl-b')).not.toBeNull();
    expect(document.getElementById('af-highlight-colors')?.textContent ?? '').not.toContain('url(x)');
  });

  it('renders code artifacts highlighted, and plain for unknown languages', async () => {
    await loadLanguages(['go']);
    const d = dom(renderCode('package main\n\nfunc main() {}\n', 'go'));
    expect(d.querySelector('pre.shiki.language-go span[class^="hl-"]')).not.toBeNull();
    const plain = dom(renderCode('<x>', 'cobol'));
    expect(plain.querySelector('pre.code-plain code')?.textContent).toBe('<x>');
  });

  it('re-renders components once the grammar arrives', async () => {
    const host = document.createElement('div');
    document.body.appendChild(host);
    const root = createRoot(host);
    await act(async () => {
      root.render(
        <>
          <Markdown source={'```sql\nSELECT 1;\n```'} highlight />
          <CodeView code={'key: value\n'} language="yaml" />
        </>,
      );
      await loadLanguages(['sql', 'yaml']);
    });
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
    expect(host.querySelector('.markdown pre.shiki.language-sql')).not.toBeNull();
    expect(host.querySelector('.code-view pre.shiki.language-yaml')).not.toBeNull();
    act(() => root.unmount());
    host.remove();
  });
});
