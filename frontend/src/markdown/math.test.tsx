// @vitest-environment jsdom
import { beforeAll, describe, expect, it } from 'vitest';
import { renderMarkdown } from './markdown';
import { hasMath, loadMath, mathReady } from './math';

/** Parses rendered HTML into a detached element for inspection. */
function dom(html: string): HTMLElement {
  const div = document.createElement('div');
  div.innerHTML = html;
  return div;
}

/** The TeX annotations of every typeset formula (KaTeX's MathML keeps the source there). */
function texOf(root: HTMLElement): string[] {
  return [...root.querySelectorAll('annotation[encoding="application/x-tex"]')].map((a) => a.textContent);
}

describe('math before KaTeX is loaded', () => {
  it('keeps the TeX as pending text, never typeset and never lost', () => {
    expect(mathReady()).toBe(false);
    const html = renderMarkdown('Energy $E=mc^2$ here.');
    expect(hasMath(html)).toBe(true);
    const el = dom(html).querySelector('.math.math-inline.math-pending');
    expect(el?.textContent).toBe('E=mc^2');
    expect(dom(html).querySelector('.katex')).toBeNull();
  });
});

describe('math with KaTeX', () => {
  beforeAll(async () => {
    await loadMath();
  });

  it.each([
    ['dollar inline', 'Mass–energy: $E=mc^2$.', 'E=mc^2', false],
    ['paren inline', 'Mass–energy: \\(E=mc^2\\).', 'E=mc^2', false],
    ['dollar display', 'Sum:\n\n$$\n\\sum_{i=1}^n i = \\frac{n(n+1)}{2}\n$$\n\nafter', '\\sum_{i=1}^n i = \\frac{n(n+1)}{2}', true],
    ['bracket display', 'Sum:\n\n\\[\n\\int_0^1 x\\,dx\n\\]\n', '\\int_0^1 x\\,dx', true],
    ['dollar display inside a paragraph', 'so $$a^2+b^2=c^2$$ holds', 'a^2+b^2=c^2', true],
    ['single letter', 'let $x$ be', 'x', false],
  ])('typesets %s', (_, source, tex, display) => {
    const root = dom(renderMarkdown(source));
    expect(texOf(root)).toEqual([tex]);
    expect(root.querySelectorAll('.katex').length).toBe(1);
    expect(root.querySelectorAll('.katex-display').length).toBe(display ? 1 : 0);
    expect(root.querySelector('.math-pending')).toBeNull();
  });

  it.each([
    ['prices', 'It costs $5 and $10 at most.'],
    ['prices with cents', 'Between $5.99 and $10.50, or $3.'],
    ['a lone dollar', 'Pay in US$ or $ only.'],
    ['escaped dollars', 'Use \\$x\\$ literally.'],
    ['a dollar before a space', 'from $ 5 to 10 $ total'],
  ])('leaves %s as text', (_, source) => {
    const html = renderMarkdown(source);
    expect(hasMath(html)).toBe(false);
    const root = dom(html);
    expect(root.querySelector('.katex')).toBeNull();
    expect(root.textContent).toContain('$');
  });

  it.each([
    ['in a paragraph', 'Escaped \\[1\\] and \\[2, 3\\] stay.'],
    ['alone on a line', 'Text\n\n\\[1\\]\n'],
  ])('leaves an escaped citation %s as text', (_, source) => {
    const root = dom(renderMarkdown(source));
    expect(root.querySelector('.math, .katex')).toBeNull();
    expect(root.textContent).toContain('[1]');
  });

  it('leaves code spans and code blocks untouched', () => {
    const root = dom(renderMarkdown('Run `echo $HOME $PATH` or `$x$`.\n\n```sh\nprice=$5; echo "$a$"\n$$b$$\n```\n\n    $$indented$$\n'));
    expect(root.querySelector('.katex, .math')).toBeNull();
    const codes = [...root.querySelectorAll('code')].map((c) => c.textContent);
    expect(codes).toEqual(['echo $HOME $PATH', '$x$', 'price=$5; echo "$a$"\n$$b$$\n', '$$indented$$\n']);
  });

  it('keeps KaTeX markup (with its inline styles) but nothing dangerous', () => {
    const root = dom(renderMarkdown('$\\href{javascript:alert(1)}{x}$ and $\\url{https://evil.example}$ and $\\htmlClass{x}{y}$ <img src=x onerror="alert(1)"> $\\frac{1}{2}$'));
    expect(root.querySelector('a, [href], [onerror]')).toBeNull();
    // The untrusted commands are shown as their names in the error colour, not obeyed.
    expect([...root.querySelectorAll('.katex-html .mord.text')].map((e) => e.textContent)).toEqual(['\\href', '\\url', '\\htmlClass']);
    // KaTeX's own markup survives: MathML and the styled HTML layout.
    expect(root.querySelector('math semantics')).not.toBeNull();
    expect(root.querySelector('.katex-html [style]')).not.toBeNull();
  });

  it('never makes a citation chip of brackets inside a formula', () => {
    const root = dom(renderMarkdown('See $x_{[1]}$ and [1].', { cite: () => ({ title: 'S', url: 'https://example.com' }) as never }));
    expect(texOf(root)).toEqual(['x_{[1]}']);
    expect(root.querySelectorAll('.katex .cite, .katex button').length).toBe(0);
  });

  it('shows a formula that does not parse as an inline error with its source', () => {
    const root = dom(renderMarkdown('bad $\\frac{1}{$ end'));
    const err = root.querySelector('.katex-error');
    expect(err?.textContent).toContain('\\frac{1}{');
  });
});
