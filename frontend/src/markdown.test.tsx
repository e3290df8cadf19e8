// @vitest-environment jsdom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Markdown } from './components/Markdown';
import { renderMarkdown } from './markdown';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/** Parses rendered HTML into a detached element for inspection. */
function dom(html: string): HTMLElement {
  const div = document.createElement('div');
  div.innerHTML = html;
  return div;
}

describe('renderMarkdown sanitizing', () => {
  it.each([
    ['<script>window.pwned = 1</script>hello', 'script'],
    ['<img src="x" onerror="window.pwned = 1">', '[onerror]'],
    ['<a href="javascript:alert(1)">x</a>', 'a[href^="javascript"]'],
    ['[x](javascript:alert(1))', 'a[href^="javascript"]'],
    ['<iframe src="https://evil.example"></iframe>', 'iframe'],
    ['<form action="https://evil.example"><input name="p"></form>', 'form, input'],
    ['<div style="position:fixed;inset:0">cover</div>', '[style]'],
    ['<svg><script>1</script><a xlink:href="javascript:1">y</a></svg>', 'script, [*|href^="javascript"]'],
    ['<div data-external="true" onclick="1">z</div>', '[onclick], div[data-external]'],
  ])('%j renders without %s', (source, selector) => {
    const html = renderMarkdown(source);
    expect(dom(html).querySelector(selector)).toBeNull();
    expect(html).not.toMatch(/onerror|onclick|javascript:/i);
  });

  it('keeps ordinary markdown', () => {
    const el = dom(renderMarkdown('# Title\n\nSome **bold** and `code`.\n\n| a | b |\n|---|---|\n| 1 | 2 |'));
    expect(el.querySelector('h1')?.textContent).toBe('Title');
    expect(el.querySelector('strong')?.textContent).toBe('bold');
    expect(el.querySelectorAll('td')).toHaveLength(2);
  });

  it('marks external links for the click handler', () => {
    const el = dom(renderMarkdown('[site](https://example.org/x) and [rel](/local)'));
    const [site, rel] = Array.from(el.querySelectorAll('a'));
    expect(site?.getAttribute('data-external')).toBe('true');
    expect(site?.getAttribute('rel')).toBe('noopener noreferrer');
    expect(site?.getAttribute('target')).toBeNull();
    expect(rel?.hasAttribute('data-external')).toBe(false);
  });
});

describe('renderMarkdown task lists', () => {
  it('renders GitHub task items and task-plan markers without raw brackets or inputs', () => {
    const source = ['- [x] done', '- [ ] open', '- [✓] ticked **bold**', '- [✗] not yet', '- [~] going', '- plain'].join('\n');
    const el = dom(renderMarkdown(source));
    const items = Array.from(el.querySelectorAll('li'));
    expect(items.map((li) => li.className)).toEqual([
      'task task-done',
      'task task-todo',
      'task task-done',
      'task task-todo',
      'task task-progress',
      '',
    ]);
    expect(items.map((li) => li.textContent.trim())).toEqual(['done', 'open', 'ticked bold', 'not yet', 'going', 'plain']);
    expect(el.querySelector('input')).toBeNull();
    expect(el.querySelector('li.task-done strong')?.textContent).toBe('bold');
    expect(el.querySelector('.task-mark')?.getAttribute('aria-label')).toBe('Done');
  });

  it('handles markers in loose and ordered lists', () => {
    const el = dom(renderMarkdown('1. [✓] first\n\n2. [✗] second\n'));
    expect(Array.from(el.querySelectorAll('li')).map((li) => li.className)).toEqual(['task task-done', 'task task-todo']);
  });
});

describe('Markdown component', () => {
  let container: HTMLDivElement | null = null;
  afterEach(() => {
    container?.remove();
    container = null;
    delete (window as unknown as Record<string, unknown>).runtime;
  });

  function mount(source: string): HTMLDivElement {
    const el = document.createElement('div');
    document.body.append(el);
    act(() => {
      createRoot(el).render(<Markdown source={source} />);
    });
    container = el;
    return el;
  }

  function click(a: Element): MouseEvent {
    const ev = new MouseEvent('click', { bubbles: true, cancelable: true });
    act(() => {
      a.dispatchEvent(ev);
    });
    return ev;
  }

  it('opens external links with BrowserOpenURL and never navigates the window', () => {
    const open = vi.fn();
    (window as unknown as Record<string, unknown>).runtime = { BrowserOpenURL: open };
    const el = mount('See [the review](https://example.org/review) or [here](#top) or [rel](other.html).');
    const links = Array.from(el.querySelectorAll('a'));
    expect(links).toHaveLength(3);
    const events = links.map(click);
    expect(events.every((e) => e.defaultPrevented)).toBe(true);
    expect(open.mock.calls).toEqual([['https://example.org/review']]);
  });

  it('renders a sanitized payload inert', () => {
    const el = mount('<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>ok');
    expect(el.querySelector('script')).toBeNull();
    expect(el.querySelector('img')?.hasAttribute('onerror')).toBe(false);
    expect((window as unknown as Record<string, unknown>).__pwned).toBeUndefined();
  });
});
