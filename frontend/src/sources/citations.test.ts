// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import type { Source } from '../api/conversations';
import {
  allSearchesFailed,
  chipOf,
  filterSources,
  findCitations,
  missingTitle,
  parseCitation,
  placeCard,
  sourceMeta,
  sourceTitle,
  splitAnswer,
  toWebTally,
  unchipCitations,
  upsertSource,
  webSummary,
  type CiteResolver,
} from './citations';
import { renderMarkdown } from '../markdown/markdown';
import shared from '../../../backend/sources/testdata/citations.json';

const src = (n: number, over: Partial<Source> = {}): Source => ({
  n,
  kind: 'web',
  location: `https://site${String(n)}.example.org/page`,
  title: `Title ${String(n)}`,
  site: `site${String(n)}.example.org`,
  excerpt: '',
  published: '',
  page: 0,
  line: 0,
  fetched: false,
  message_id: 'm1',
  added_at: '2026-01-02T03:04:05Z',
  ...over,
});

/** Resolves 1, 2 and 3 (titles "Title n"); every other number is not a source. */
const resolve123: CiteResolver = (n) => (n >= 1 && n <= 3 ? { title: `Title ${String(n)}` } : undefined);

function dom(html: string): HTMLElement {
  const div = document.createElement('div');
  div.innerHTML = html;
  return div;
}

const chips = (el: Element) => Array.from(el.querySelectorAll<HTMLElement>('.cite')).map((c) => `${c.tagName === 'BUTTON' ? '' : '?'}${c.textContent}`);

describe('parseCitation and findCitations', () => {
  it.each([
    ['1', [1]],
    ['1, 2', [1, 2]],
    ['3-5', [3, 4, 5]],
    ['3–5', [3, 4, 5]],
    ['1,3-4', [1, 3, 4]],
    ['2、5', [2, 5]],
    ['2，5；', null],
    ['2; 2', [2]],
    [' 7 ', [7]],
    ['9999', [9999]],
    ['10000', null],
    ['0', null],
    ['01', null],
    ['5-3', null],
    ['3-3', null],
    ['1-52', null],
    ['1-51', Array.from({ length: 51 }, (_, i) => i + 1)],
  ])('[%s] cites %j', (inner, want) => {
    expect(parseCitation(inner)).toEqual(want);
  });

  it('finds markers in text, not other bracketed text', () => {
    const text = 'As shown [1] and [2, 3]; see [Page 3], [1a], [x], [] and [4-6].';
    const found = findCitations(text);
    expect(found.map((m) => text.slice(m.start, m.end))).toEqual(['[1]', '[2, 3]', '[4-6]']);
    expect(found.map((m) => m.numbers)).toEqual([[1], [2, 3], [4, 5, 6]]);
  });
});

describe('the citation rule shared with the engine', () => {
  // The same table backend/sources reads (TestCited): the footer's list and the window's
  // chips come from one rule. The window reads rendered Markdown, so this runs the text
  // through renderMarkdown and reads the chips, each number once in order of first use.
  const every: CiteResolver = (n) => ({ title: `Title ${String(n)}` });
  it('has the table', () => {
    expect(shared.cases.length).toBeGreaterThanOrEqual(30);
  });
  it.each(shared.cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const el = dom(renderMarkdown(c.text, { cite: every }));
    const cited: number[] = [];
    for (const chip of el.querySelectorAll<HTMLElement>('.cite[data-cite]')) {
      const n = Number(chip.getAttribute('data-cite'));
      if (!cited.includes(n)) cited.push(n);
    }
    expect(cited).toEqual(c.cited);
  });
});

describe('renderMarkdown with citations', () => {
  it('turns resolved numbers into buttons and others into unresolved chips', () => {
    const el = dom(renderMarkdown('Distance is 384,400 km [1], measured by laser [2, 9] over [1-3].', { cite: resolve123 }));
    expect(chips(el)).toEqual(['1', '2', '?9', '1', '2', '3']);
    const b = el.querySelector<HTMLButtonElement>('button.cite')!;
    expect(b.getAttribute('type')).toBe('button');
    expect(b.getAttribute('data-cite')).toBe('1');
    expect(b.getAttribute('aria-label')).toBe('Source 1: Title 1');
    const missing = el.querySelector<HTMLElement>('.cite-missing')!;
    expect(missing.tagName).toBe('SPAN');
    expect(missing.getAttribute('title')).toBe("source 9 is not in this conversation's sources");
    expect(missing.getAttribute('title')).toBe(missingTitle(9));
    expect(missing.closest('a')).toBeNull();
    expect(el.textContent).toContain('km 1, measured');
  });

  it('leaves code spans, code blocks, links and link labels alone', () => {
    const md = 'Use `arr[1]` here [1].\n\n```\nx = y[2]\n```\n\n    indented[3]\n\n[see [2]](https://example.org/x) and [3](https://example.org/3) and <https://example.org/[1]>';
    const el = dom(renderMarkdown(md, { cite: resolve123 }));
    expect(chips(el)).toEqual(['1']);
    expect(el.querySelector('code')?.textContent).toBe('arr[1]');
    expect(el.querySelector('pre')?.textContent).toContain('y[2]');
    expect(el.querySelectorAll('a .cite')).toHaveLength(0);
  });

  it('renders nothing special without a resolver', () => {
    const el = dom(renderMarkdown('See [1].'));
    expect(el.querySelector('.cite')).toBeNull();
    expect(el.textContent.trim()).toBe('See [1].');
  });

  it('keeps the sanitizer: the source cannot make its own chips, buttons or handlers', () => {
    const md =
      '<button class="cite" data-cite="1" onclick="window.pwned=1">1</button> ' +
      '<span class="cite" data-cite="2">2</span> <img src=x onerror="window.pwned=1"> [2] <script>window.pwned=1</script>';
    const html = renderMarkdown(md, { cite: resolve123 });
    const el = dom(html);
    expect(html).not.toMatch(/onclick|onerror|<script/i);
    // Only the chip made from "[2]" is a chip with a number.
    const numbered = Array.from(el.querySelectorAll('[data-cite]'));
    expect(numbered.map((c) => c.tagName)).toEqual(['BUTTON']);
    expect(numbered[0]?.textContent).toBe('2');
    expect(chipOf(el.querySelector('span.cite'))).toBeNull();
  });

  it('puts a hostile title into an attribute as text', () => {
    const evil: CiteResolver = () => ({ title: '"><img src=x onerror=alert(1)>' });
    const el = dom(renderMarkdown('Claim [1].', { cite: evil }));
    expect(el.querySelector('img')).toBeNull();
    expect(el.querySelector('button.cite')?.getAttribute('aria-label')).toBe('Source 1: "><img src=x onerror=alert(1)>');
  });

  it('still blocks remote loads next to chips', () => {
    const el = dom(renderMarkdown('![x](https://evil.example/?d=1) [1]', { cite: resolve123 }));
    expect(el.querySelector('img')?.getAttribute('src')).toBeNull();
    expect(chips(el)).toEqual(['1']);
  });

  it('writes chips back as their markers for copying, whole or in part', () => {
    const el = dom(renderMarkdown('Far [1]; see [2, 9] and [1 – 3].', { cite: resolve123 }));
    const part = el.cloneNode(true) as HTMLElement;
    expect(unchipCitations(el)).toBe(3);
    expect(el.innerHTML).toBe('<p>Far [1]; see [2, 9] and [1 – 3].</p>\n');
    // A selection that ends inside a group: only its chips are there.
    part.querySelectorAll('.cite-group')[2]?.lastElementChild?.remove();
    unchipCitations(part);
    expect(part.textContent).toBe('Far [1]; see [2, 9] and [1, 2].\n');
    // A chip outside a group (a source list's).
    const li = dom('<span class="cite">4</span> Title');
    unchipCitations(li);
    expect(li.textContent).toBe('[4] Title');
  });

  it('finds chips from events on them or inside them', () => {
    const el = dom(renderMarkdown('A [3].', { cite: resolve123 }));
    const b = el.querySelector('button.cite')!;
    expect(chipOf(b)).toEqual({ n: 3, el: b });
    expect(chipOf(b.firstChild)).toBeNull(); // a text node is no element
    expect(chipOf(el.querySelector('p'))).toBeNull();
  });
});

describe('splitAnswer', () => {
  const footer =
    'The Moon is 384,400 km away [1][2].\n\n---\n> 2 of 5 searches failed: brave search: 429 rate limited. 1 of 3 fetches failed: https://x.example/: 404.\n\n**Sources**\n- [1] [Moon facts](<https://a.example/moon>) · a.example · 2024-05-01\n- [2] notes/moon.pdf (p. 3)\n';

  it('splits the model text, the failure line and the cited sources', () => {
    expect(splitAnswer(footer)).toEqual({
      body: 'The Moon is 384,400 km away [1][2].',
      failures: '2 of 5 searches failed: brave search: 429 rate limited. 1 of 3 fetches failed: https://x.example/: 404.',
      sources: [
        { n: 1, text: '[Moon facts](<https://a.example/moon>) · a.example · 2024-05-01' },
        { n: 2, text: 'notes/moon.pdf (p. 3)' },
      ],
    });
  });

  it('reads a footer with only sources or only failures', () => {
    expect(splitAnswer('A [1].\n\n---\n**Sources**\n- [1] [T](<https://t.example/>)')).toMatchObject({ body: 'A [1].', failures: '', sources: [{ n: 1 }] });
    expect(splitAnswer('Nothing found.\n\n---\n> 1 of 1 searches failed: duckduckgo search: timeout.')).toEqual({
      body: 'Nothing found.',
      failures: '1 of 1 searches failed: duckduckgo search: timeout.',
      sources: [],
    });
  });

  it('keeps a model rule followed by its own text, or quotes, as body', () => {
    for (const text of ['Intro\n\n---\n\nMore text [1].', 'Intro\n\n---\n> a quote of mine', 'No footer at all [1].', 'A\n\n---\n**Sources**\n- not numbered']) {
      expect(splitAnswer(text)).toEqual({ body: text, failures: '', sources: [] });
    }
  });

  it('takes only the last rule', () => {
    const text = 'Part one\n\n---\n\nPart two [1].\n\n---\n**Sources**\n- [1] [T](<https://t.example/>)';
    expect(splitAnswer(text).body).toBe('Part one\n\n---\n\nPart two [1].');
  });
});

describe('web tally', () => {
  it('summarizes searches and pages with failures', () => {
    expect(webSummary({ searches: 5, searches_failed: 2, fetches: 3, fetches_failed: 1 })).toBe('5 searches (2 failed) · 3 pages (1 failed)');
    expect(webSummary({ searches: 1, searches_failed: 0, fetches: 0, fetches_failed: 0 })).toBe('1 search');
    expect(webSummary({ searches: 0, searches_failed: 0, fetches: 1, fetches_failed: 1 })).toBe('1 page (1 failed)');
    expect(webSummary({ searches: 0, searches_failed: 0, fetches: 0, fetches_failed: 0 })).toBe('');
  });

  it('normalizes the terminal data and tells when every search failed', () => {
    expect(toWebTally(undefined)).toBeNull();
    expect(toWebTally({ searches: 2, searches_failed: 2, errors: ['a', 3, '', 'b', 'c', 'd'] })).toEqual({
      searches: 2,
      searches_failed: 2,
      fetches: 0,
      fetches_failed: 0,
      errors: ['a', 'b', 'c'],
    });
    expect(allSearchesFailed({ searches: 2, searches_failed: 2 })).toBe(true);
    expect(allSearchesFailed({ searches: 2, searches_failed: 1 })).toBe(false);
    expect(allSearchesFailed({ searches: 0, searches_failed: 0 })).toBe(false);
    expect(allSearchesFailed(null)).toBe(false);
  });
});

describe('sources', () => {
  it('keeps the list in number order and replaces a number recorded again', () => {
    let list = upsertSource([], src(2));
    list = upsertSource(list, src(1));
    list = upsertSource(list, src(3));
    list = upsertSource(list, src(2, { fetched: true, title: 'Read' }));
    expect(list.map((s) => [s.n, s.title])).toEqual([
      [1, 'Title 1'],
      [2, 'Read'],
      [3, 'Title 3'],
    ]);
  });

  it('describes web and file sources', () => {
    expect(sourceMeta(src(1, { published: '2024-05-01' }))).toBe('site1.example.org · 2024-05-01');
    expect(sourceMeta(src(1, { site: '', location: 'https://www.nasa.gov/moon' }))).toBe('nasa.gov');
    expect(sourceMeta(src(4, { kind: 'file', location: 'notes/moon.pdf', page: 3 }))).toBe('notes/moon.pdf · p. 3');
    expect(sourceMeta(src(4, { kind: 'file', location: 'src/a.go', line: 12 }))).toBe('src/a.go · line 12');
    expect(sourceTitle(src(5, { title: '  ', site: '' }))).toBe('site5.example.org');
  });

  it('filters by words and by number', () => {
    const list = [src(1, { title: 'Moon facts' }), src(2, { title: 'Lunar laser ranging', excerpt: 'Apollo retroreflectors' }), src(12, { title: 'Other' })];
    expect(filterSources(list, '')).toBe(list);
    expect(filterSources(list, 'moon').map((s) => s.n)).toEqual([1]);
    expect(filterSources(list, 'APOLLO laser').map((s) => s.n)).toEqual([2]);
    expect(filterSources(list, '12').map((s) => s.n)).toEqual([12]);
    expect(filterSources(list, '[2]').map((s) => s.n)).toEqual([2]);
    expect(filterSources(list, 'nothing')).toEqual([]);
  });
});

describe('placeCard', () => {
  const view = { width: 1280, height: 900 };
  const card = { width: 360, height: 160 };

  it('goes below the chip, left edges aligned, when it fits', () => {
    expect(placeCard({ left: 100, top: 200, width: 20, height: 17 }, card, view)).toEqual({ left: 100, top: 223, maxHeight: 160 });
  });

  it('flips above the chip near the bottom', () => {
    const p = placeCard({ left: 100, top: 850, width: 20, height: 17 }, card, view);
    expect(p.top + p.maxHeight).toBe(844);
    expect(p.maxHeight).toBe(160);
  });

  it('moves left to stay inside the right edge, and never past the left one', () => {
    expect(placeCard({ left: 1250, top: 200, width: 20, height: 17 }, card, view).left).toBe(1280 - 8 - 360);
    expect(placeCard({ left: -30, top: 200, width: 20, height: 17 }, card, view).left).toBe(8);
  });

  it('caps the height to the larger side in a short window', () => {
    const p = placeCard({ left: 10, top: 100, width: 20, height: 17 }, { width: 360, height: 400 }, { width: 800, height: 300 });
    expect(p.top).toBe(123);
    expect(p.maxHeight).toBe(300 - 123 - 8);
    expect(p.top + p.maxHeight).toBeLessThanOrEqual(300 - 8);
  });
});
