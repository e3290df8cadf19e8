// @vitest-environment jsdom
import { act, useEffect } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { firstPaintDone } from '../shared/first-paint';
import type { Source } from '../api/conversations';
import { splitAnswer } from './citations';
import { ActivityFlow } from '../chat/ActivityFlow';
import { ArtifactPanel } from '../artifacts/ArtifactPanel';
import { AnswerFooter } from '../chat/Chat';
import { CitationProvider } from './Citations';
import { Markdown } from '../markdown/Markdown';
import { SearchBanner, searchStatusOf } from './SearchBanner';
import { SourcesList } from './SourcesList';
import { applyEvents, emptyRunsState, type RunEvent, type RunState } from '../run/events';
import { useSources, type SourcesState } from './useSources';

// The panel is rendered alone here: no first frame of the window's to wait for.
firstPaintDone();

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

type Loose = Record<string, unknown>;
const win = window as unknown as Loose;

let root: Root | null = null;
const host = document.createElement('div');
document.body.appendChild(host);

const render = (node: React.ReactNode) =>
  act(async () => {
    root ??= createRoot(host);
    root.render(node);
    await Promise.resolve();
  });
const settle = () => act(() => new Promise((r) => setTimeout(r, 0)));
const wait = (ms: number) => act(() => new Promise((r) => setTimeout(r, ms)));

/** The run-event listeners the page registered through window.runtime. */
let listeners: Map<string, ((payload: unknown) => void)[]>;
const runtime = {
  BrowserOpenURL: vi.fn(),
  ClipboardSetText: vi.fn(() => Promise.resolve(true)),
  EventsOnMultiple: (name: string, cb: (payload: unknown) => void) => {
    listeners.set(name, [...(listeners.get(name) ?? []), cb]);
    return () => listeners.set(name, (listeners.get(name) ?? []).filter((x) => x !== cb));
  },
};
const emit = (ev: Partial<RunEvent> & { type: string; data: Loose }) =>
  act(async () => {
    for (const cb of listeners.get('run:event') ?? []) {
      cb({ conversation_id: 'c1', message_id: 'm1', seq: 1, created_at: '2026-01-01T00:00:00Z', ...ev });
    }
    await Promise.resolve();
  });

beforeEach(() => {
  listeners = new Map();
  runtime.BrowserOpenURL.mockClear();
  runtime.ClipboardSetText.mockClear();
  win.runtime = runtime;
  win.go = { app: {} };
});
afterEach(() => {
  act(() => root?.unmount());
  root = null;
  delete win.go;
  delete win.runtime;
  document.body.querySelectorAll('.cite-card').forEach((el) => el.remove());
});

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
  added_at: '2026-01-01T00:00:00Z',
  ...over,
});

const MOON = src(1, { title: 'Moon facts', site: 'space.example.org', published: '2024-05-01', excerpt: 'Mean distance 384,400 km.', fetched: true, location: 'https://space.example.org/moon' });
const PDF = src(2, { kind: 'file', location: 'notes/moon.pdf', title: 'moon.pdf', site: '', page: 3, fetched: true });

const card = () => document.body.querySelector<HTMLElement>('.cite-card');
const fire = (el: Element, type: string, init: MouseEventInit | FocusEventInit = {}) =>
  act(async () => {
    const ev = type.startsWith('focus') || type === 'blur' ? new FocusEvent(type, { bubbles: type !== 'focus' && type !== 'blur', ...init }) : new MouseEvent(type, { bubbles: true, ...init });
    el.dispatchEvent(ev);
    // A pointer moving onto (off) an element also fires mouseenter (mouseleave) at it, which does not bubble.
    if (type === 'mouseover' || type === 'mouseout') el.dispatchEvent(new MouseEvent(type === 'mouseover' ? 'mouseenter' : 'mouseleave', init));
    await Promise.resolve();
  });

describe('citation chips in Markdown', () => {
  it('show a card on hover with title, site and date, and open the source on click', async () => {
    await render(
      <CitationProvider sources={[MOON, PDF]}>
        <Markdown source={'The Moon is 384,400 km away [1], see also [2] and [7].'} cite />
      </CitationProvider>,
    );
    const [one, two] = Array.from(host.querySelectorAll<HTMLButtonElement>('button.cite'));
    expect(one?.textContent).toBe('1');
    expect(two?.textContent).toBe('2');
    const seven = host.querySelector<HTMLElement>('.cite-missing');
    expect(seven?.textContent).toBe('7');
    expect(seven?.getAttribute('title')).toBe("source 7 is not in this conversation's sources");

    await fire(one!, 'mouseover');
    expect(card()?.textContent).toContain('Moon facts');
    expect(card()?.textContent).toContain('space.example.org · 2024-05-01');
    expect(card()?.textContent).toContain('Mean distance 384,400 km.');
    expect(card()?.textContent).toContain('page read');
    expect(card()?.getAttribute('role')).toBe('tooltip');
    expect(one!.getAttribute('aria-describedby')).toBe(card()?.id);

    await act(async () => {
      one!.click();
      await Promise.resolve();
    });
    expect(runtime.BrowserOpenURL).toHaveBeenCalledWith('https://space.example.org/moon');

    // Leaving the chip closes the card after a moment.
    await fire(one!, 'mouseout', { relatedTarget: host });
    await wait(200);
    expect(card()).toBeNull();
    expect(one!.hasAttribute('aria-describedby')).toBe(false);
  });

  it('show the card on keyboard focus; Escape closes it and is taken', async () => {
    await render(
      <CitationProvider sources={[MOON, PDF]}>
        <Markdown source={'A file says so [2].'} cite />
      </CitationProvider>,
    );
    const chip = host.querySelector<HTMLButtonElement>('button.cite')!;
    await act(async () => {
      chip.focus();
      await Promise.resolve();
    });
    expect(card()?.textContent).toContain('notes/moon.pdf · p. 3');
    expect(card()?.textContent).toContain('workspace folder');
    const esc = new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true });
    await act(async () => {
      chip.dispatchEvent(esc);
      await Promise.resolve();
    });
    expect(esc.defaultPrevented).toBe(true);
    expect(card()).toBeNull();
    // A file source has no URL: a click opens nothing.
    await act(async () => {
      chip.click();
      await Promise.resolve();
    });
    expect(runtime.BrowserOpenURL).not.toHaveBeenCalled();
  });

  it('never open anything from an unresolved chip, and stay text while the sources load', async () => {
    await render(
      <CitationProvider sources={[MOON]}>
        <Markdown source={'Unknown [5].'} cite />
      </CitationProvider>,
    );
    const missing = host.querySelector<HTMLElement>('.cite-missing')!;
    await fire(missing, 'mouseover');
    await act(async () => {
      missing.click();
      await Promise.resolve();
    });
    expect(card()).toBeNull();
    expect(runtime.BrowserOpenURL).not.toHaveBeenCalled();

    await render(
      <CitationProvider sources={null}>
        <Markdown source={'Loading [1].'} cite />
      </CitationProvider>,
    );
    expect(host.querySelector('.cite')).toBeNull();
    expect(host.textContent).toContain('Loading [1].');
  });

  it('close the card when the text is rendered again (a streaming answer)', async () => {
    const view = (text: string) => (
      <CitationProvider sources={[MOON]}>
        <Markdown source={text} cite />
      </CitationProvider>
    );
    await render(view('Streaming [1]'));
    await fire(host.querySelector('button.cite')!, 'mouseover');
    expect(card()).not.toBeNull();
    await render(view('Streaming [1] and more'));
    expect(card()).toBeNull();
  });

  it('re-render when a source arrives: an unresolved chip becomes a button', async () => {
    await render(
      <CitationProvider sources={[]}>
        <Markdown source={'Later [1].'} cite />
      </CitationProvider>,
    );
    expect(host.querySelector('.cite-missing')).not.toBeNull();
    await render(
      <CitationProvider sources={[MOON]}>
        <Markdown source={'Later [1].'} cite />
      </CitationProvider>,
    );
    expect(host.querySelector('.cite-missing')).toBeNull();
    expect(host.querySelector('button.cite')?.getAttribute('aria-label')).toBe('Source 1: Moon facts');
  });

  it('keep links working beside chips', async () => {
    await render(
      <CitationProvider sources={[MOON]}>
        <Markdown source={'[NASA](https://nasa.example.gov/) [1]'} cite />
      </CitationProvider>,
    );
    await act(async () => {
      host.querySelector<HTMLAnchorElement>('a')!.click();
      await Promise.resolve();
    });
    expect(runtime.BrowserOpenURL).toHaveBeenCalledWith('https://nasa.example.gov/');
  });
});

describe('copying text with chips', () => {
  /** Selects the contents of `el` and fires a copy event; returns what was put on the clipboard. */
  const copy = (el: Node) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const sel = document.getSelection()!;
    sel.removeAllRanges();
    sel.addRange(range);
    const data = new Map<string, string>();
    const ev = new Event('copy', { bubbles: true, cancelable: true }) as ClipboardEvent;
    Object.defineProperty(ev, 'clipboardData', { value: { setData: (type: string, v: string) => data.set(type, v) } });
    act(() => {
      (sel.anchorNode?.parentElement ?? document.body).dispatchEvent(ev);
    });
    sel.removeAllRanges();
    return { data, cancelled: ev.defaultPrevented };
  };

  it('gives each chip as its marker, "[1]", not a bare number', async () => {
    await render(
      <CitationProvider sources={[MOON, PDF]}>
        <Markdown source={'The Moon is 384,400 km away on average [1]; see also [2, 7] and [1–2].\n\nNext paragraph `x[3]`.'} cite />
        <AnswerFooter parts={splitAnswer('A [1].\n\n---\n**Sources**\n- [1] [Moon facts](<https://space.example.org/moon>) · space.example.org')} />
      </CitationProvider>,
    );
    const md = host.querySelector('.markdown')!;
    expect(md.querySelectorAll('.cite')).toHaveLength(5);
    const { data, cancelled } = copy(md);
    expect(cancelled).toBe(true);
    // jsdom has no layout (innerText): the text content stands in for it here.
    expect(data.get('text/plain')).toContain('The Moon is 384,400 km away on average [1]; see also [2, 7] and [1–2].');
    expect(data.get('text/plain')).toContain('Next paragraph x[3].');
    expect(data.get('text/html')).toContain('<p>The Moon is 384,400 km away on average [1]; see also [2, 7] and [1–2].</p>');
    expect(data.get('text/html')).not.toMatch(/<button|cite/);
    // The page itself keeps its chips.
    expect(md.querySelectorAll('.cite')).toHaveLength(5);

    // A chip made by React (an answer's source list) copies the same way.
    const item = host.querySelector('.answer-sources li')!;
    expect(copy(item).data.get('text/plain')).toMatch(/^\[1\] ?Moon facts/);
  });

  it('leaves a selection without chips to the browser', async () => {
    await render(
      <CitationProvider sources={[MOON]}>
        <Markdown source={'Nothing cited here.'} cite />
      </CitationProvider>,
    );
    const { data, cancelled } = copy(host.querySelector('.markdown p')!);
    expect(cancelled).toBe(false);
    expect(data.size).toBe(0);
  });
});

describe('the answer footer', () => {
  const answer =
    'Answer [1].\n\n---\n> 2 of 5 searches failed: brave search: 429 Too Many Requests.\n\n**Sources**\n- [1] [Moon facts](<https://space.example.org/moon>) · space.example.org · 2024-05-01\n- [3] notes/gone.md (line 4)';

  it('shows the failure line as a warning and the cited sources with chips and links', async () => {
    await render(
      <CitationProvider sources={[MOON]}>
        <AnswerFooter parts={splitAnswer(answer)} />
      </CitationProvider>,
    );
    expect(host.querySelector('.answer-failures')?.textContent).toBe('2 of 5 searches failed: brave search: 429 Too Many Requests.');
    const items = Array.from(host.querySelectorAll('.answer-sources li'));
    expect(items).toHaveLength(2);
    expect(items[0]?.querySelector('button.cite')?.textContent).toBe('1');
    expect(items[0]?.querySelector('a')?.getAttribute('href')).toBe('https://space.example.org/moon');
    expect(items[0]?.textContent).toContain('space.example.org · 2024-05-01');
    // 3 is not among the sources: unresolved, and its line is text.
    expect(items[1]?.querySelector('.cite-missing')?.textContent).toBe('3');
    expect(items[1]?.querySelector('a')).toBeNull();
    expect(items[1]?.textContent).toContain('notes/gone.md (line 4)');
    await fire(items[0]!.querySelector('button.cite')!, 'mouseover');
    expect(card()?.textContent).toContain('Moon facts');
  });

  it('shows nothing for an answer without a footer', async () => {
    await render(<AnswerFooter parts={splitAnswer('Streaming [1]')} />);
    expect(host.innerHTML).toBe('');
  });
});

describe('the Sources list', () => {
  const list = [MOON, PDF, src(3, { title: 'Lunar laser ranging', fetched: false })];

  it('lists sources in number order with site, date, read or listed, and file places', async () => {
    await render(<SourcesList sources={list} now={Date.parse('2026-01-01T00:10:00Z')} />);
    const rows = Array.from(host.querySelectorAll<HTMLButtonElement>('.source-row'));
    expect(rows.map((r) => r.getAttribute('data-source'))).toEqual(['1', '2', '3']);
    expect(rows[0]?.textContent).toContain('Moon facts');
    expect(rows[0]?.textContent).toContain('space.example.org · 2024-05-01');
    expect(rows[0]?.querySelector('.badge')?.textContent).toBe('read');
    expect(rows[0]?.textContent).toContain('10 min ago');
    expect(rows[1]?.textContent).toContain('notes/moon.pdf · p. 3');
    expect(rows[2]?.querySelector('.badge')?.textContent).toBe('listed');
  });

  it('filters, opens web sources and copies file paths', async () => {
    await render(<SourcesList sources={list} />);
    const input = host.querySelector<HTMLInputElement>('input[type="search"]')!;
    await act(async () => {
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set?.call(input, 'laser');
      input.dispatchEvent(new Event('input', { bubbles: true }));
      await Promise.resolve();
    });
    let rows = Array.from(host.querySelectorAll<HTMLButtonElement>('.source-row'));
    expect(rows.map((r) => r.getAttribute('data-source'))).toEqual(['3']);
    await act(async () => {
      rows[0]!.click();
      await Promise.resolve();
    });
    expect(runtime.BrowserOpenURL).toHaveBeenCalledWith('https://site3.example.org/page');

    await act(async () => {
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set?.call(input, 'nothing here');
      input.dispatchEvent(new Event('input', { bubbles: true }));
      await Promise.resolve();
    });
    expect(host.textContent).toContain('No source matches “nothing here”.');

    await render(<SourcesList key="pdf" sources={[PDF]} />);
    rows = Array.from(host.querySelectorAll<HTMLButtonElement>('.source-row'));
    win.runtime = { ...runtime, __browserMode: false };
    await act(async () => {
      rows[0]!.click();
      await Promise.resolve();
    });
    await settle();
    expect(runtime.ClipboardSetText).toHaveBeenCalledWith('notes/moon.pdf');
    expect(runtime.BrowserOpenURL).toHaveBeenCalledTimes(1);
    expect(host.querySelector('.sources-status')?.textContent).toBe('Copied notes/moon.pdf');
  });

  it('says when there are none yet and while loading', async () => {
    await render(<SourcesList sources={[]} />);
    expect(host.textContent).toContain('cite it as [n]');
    await render(<SourcesList sources={null} />);
    expect(host.textContent).toContain('Loading');
  });
});

describe('the panel Sources tab', () => {
  it('switches with a click or the arrow keys and shows the provider’s sources', async () => {
    const panel = (sources: Source[]) => (
      <CitationProvider sources={sources}>
        <ArtifactPanel conversationId="c1" rows={[]} selectedId={null} onSelect={() => undefined} running={false} onChanged={() => undefined} onAddFiles={() => undefined} />
      </CitationProvider>
    );
    await render(panel([MOON]));
    const tabs = Array.from(host.querySelectorAll<HTMLButtonElement>('[role="tab"]'));
    expect(tabs.map((t) => t.textContent)).toEqual(['Artifacts', 'Sources1']);
    expect(tabs[0]?.getAttribute('aria-selected')).toBe('true');
    expect(tabs[1]?.tabIndex).toBe(-1);
    expect(host.querySelector('.source-list')).toBeNull();

    await act(async () => {
      tabs[0]!.focus();
      tabs[0]!.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
      await Promise.resolve();
    });
    expect(tabs[1]?.getAttribute('aria-selected')).toBe('true');
    expect(document.activeElement).toBe(tabs[1]);
    expect(host.querySelector('[role="tabpanel"]')?.getAttribute('aria-labelledby')).toBe('panel-tab-sources');
    expect(host.querySelectorAll('.source-row')).toHaveLength(1);

    // A source added live shows at once.
    await render(panel([MOON, PDF]));
    expect(host.querySelectorAll('.source-row')).toHaveLength(2);
    expect(tabs[1]?.textContent).toBe('Sources2');

    await act(async () => {
      tabs[0]!.click();
      await Promise.resolve();
    });
    expect(host.querySelector('.source-list')).toBeNull();
  });
});

describe('useSources', () => {
  let got: SourcesState = { sources: null, error: '' };
  function Probe({ id, reload, load }: { id: string | null; reload: number; load: (id: string) => Promise<Source[]> }) {
    const s = useSources(id, reload, load);
    useEffect(() => {
      got = s;
    });
    return null;
  }

  it('loads a snapshot and applies source_added events of the open conversation', async () => {
    const load = vi.fn(() => Promise.resolve([MOON]));
    await render(<Probe id="c1" reload={0} load={load} />);
    await settle();
    expect(load).toHaveBeenCalledWith('c1');
    expect(got.sources?.map((s) => s.n)).toEqual([1]);

    await emit({ type: 'source_added', data: { ...PDF } });
    expect(got.sources?.map((s) => s.n)).toEqual([1, 2]);
    await emit({ type: 'source_added', conversation_id: 'other', data: { ...src(3) } });
    await emit({ type: 'source_added', data: { n: 0, location: '' } });
    expect(got.sources?.map((s) => s.n)).toEqual([1, 2]);
    // A listed result that was then fetched replaces its entry.
    await emit({ type: 'source_added', data: { ...MOON, title: 'Moon facts (read)' } });
    expect(got.sources?.[0]?.title).toBe('Moon facts (read)');
  });

  it('keeps an event that arrives while the snapshot loads', async () => {
    let finish: (v: Source[]) => void = () => undefined;
    const load = vi.fn(() => new Promise<Source[]>((r) => (finish = r)));
    await render(<Probe id="c1" reload={0} load={load} />);
    expect(got.sources).toBeNull();
    await emit({ type: 'source_added', data: { ...PDF } });
    await act(async () => {
      finish([MOON]);
      await Promise.resolve();
    });
    await settle();
    expect(got.sources?.map((s) => s.n)).toEqual([1, 2]);
  });

  it('gives an empty list without a backend method, and reports other errors', async () => {
    const unsupported = Object.assign(new Error('no'), { code: 'unsupported' });
    await render(<Probe id="c1" reload={0} load={() => Promise.reject(unsupported)} />);
    await settle();
    expect(got).toEqual({ sources: [], error: '' });
    await render(<Probe id="c2" reload={0} load={() => Promise.reject(Object.assign(new Error('database is locked'), { code: 'error' }))} />);
    await settle();
    expect(got).toEqual({ sources: [], error: 'database is locked' });
    await render(<Probe id={null} reload={0} load={() => Promise.resolve([MOON])} />);
    expect(got).toEqual({ sources: [], error: '' });
  });
});

describe('the search banner', () => {
  it('reads the settings view; absent fields mean ready', () => {
    expect(searchStatusOf({})).toEqual({ ready: true, problem: '' });
    expect(searchStatusOf(null)).toEqual({ ready: true, problem: '' });
    expect(searchStatusOf({ search_ready: false, search_problem: ' Tavily needs an API key ' })).toEqual({ ready: false, problem: 'Tavily needs an API key' });
    expect(searchStatusOf({ search_ready: true, search_problem: 'stale' })).toEqual({ ready: true, problem: '' });
  });

  it('offers the settings, and is dismissed until the reason changes', async () => {
    const open = vi.fn();
    const notReady = { kind: 'not-ready', problem: 'Tavily needs an API key' } as const;
    const failed = { kind: 'all-failed', error: 'duckduckgo search: 403 Forbidden', messageId: 'm2' } as const;
    await render(<SearchBanner reasons={[notReady]} onOpenSettings={open} />);
    expect(host.textContent).toContain('Web search is not set up.');
    expect(host.textContent).toContain('Tavily needs an API key');
    const [openBtn, dismiss] = Array.from(host.querySelectorAll<HTMLButtonElement>('.search-banner button'));
    expect(openBtn?.textContent).toBe('Open Settings');
    await act(async () => {
      openBtn!.click();
      await Promise.resolve();
    });
    expect(open).toHaveBeenCalledTimes(1);
    await act(async () => {
      dismiss!.click();
      await Promise.resolve();
    });
    expect(host.querySelector('.search-banner')).toBeNull();
    // Still not set up, and now a run's searches all failed: that news shows.
    await render(<SearchBanner reasons={[notReady, failed]} onOpenSettings={open} />);
    expect(host.textContent).toContain('Every web search of the last run failed.');
    expect(host.textContent).toContain('duckduckgo search: 403 Forbidden. Check the search provider in Settings.');
    await act(async () => {
      host.querySelectorAll<HTMLButtonElement>('.search-banner button')[1]!.click();
      await Promise.resolve();
    });
    expect(host.querySelector('.search-banner')).toBeNull();
    // A different problem is news too.
    await render(<SearchBanner reasons={[{ kind: 'not-ready', problem: 'SearXNG needs its URL' }, failed]} onOpenSettings={open} />);
    expect(host.textContent).toContain('SearXNG needs its URL');
    await render(<SearchBanner reasons={[]} onOpenSettings={open} />);
    expect(host.querySelector('.search-banner')).toBeNull();
  });

  it('keeps the cause of a long error when it cuts it', async () => {
    const error = `searxng search at 127.0.0.1:8888: Get "http://127.0.0.1:8888/search?format=json&q=${'dense+urban+heat+island+'.repeat(10)}": dial tcp 127.0.0.1:8888: connect: connection refused`;
    await render(<SearchBanner reasons={[{ kind: 'all-failed', error, messageId: 'm9' }]} onOpenSettings={vi.fn()} />);
    const text = host.querySelector('.search-banner-text')?.textContent ?? '';
    expect(text).toContain('searxng search at 127.0.0.1:8888');
    expect(text).toContain('connect: connection refused. Check the search provider in Settings.');
    expect(text).toContain('…');
  });
});

describe('the activity summary', () => {
  const ev = (seq: number, type: string, data: Loose, agent = 'lead_agent'): RunEvent =>
    ({ type, conversation_id: 'c1', message_id: 'm1', seq, agent_name: agent, created_at: '2026-01-01T00:00:00Z', data }) as RunEvent;
  const run = (events: RunEvent[]): RunState => applyEvents(emptyRunsState(), events).conversations.c1!.runs.m1!;
  const tool = (seq: number, id: string, name: string, ok: boolean): RunEvent[] => [
    ev(seq, 'tool_start', { call_id: id, tool: name, params: {} }, 'search_agent'),
    ev(seq + 1, 'tool_complete', { call_id: id, tool: name, success: ok, error: ok ? '' : 'brave search: 429' }, 'search_agent'),
  ];

  it('counts searches and pages from the steps while running, from the tally after', async () => {
    const events = [
      ev(1, 'metadata', { content: 'q' }),
      ev(2, 'agent_start', { round: 0 }),
      ...tool(3, 's1', 'web_search', true),
      ...tool(5, 's2', 'web_search', false),
      ...tool(7, 'f1', 'web_fetch', true),
    ];
    await render(<ActivityFlow run={run(events)} live={false} />);
    // Folded while running, the summary names the current step; open, it gives the counts.
    expect(host.querySelector('.activity-sum')?.textContent).toBe('lead_agent · planning');
    await act(async () => {
      host.querySelector<HTMLButtonElement>('.activity-head')!.click();
      await Promise.resolve();
    });
    expect(host.querySelector('.activity-sum')?.textContent).toContain('2 searches (1 failed) · 1 page');
    expect(host.querySelector('.activity-web')?.classList.contains('has-failures')).toBe(true);

    const done = run([
      ...events,
      ev(9, 'complete', { response: 'x', web: { searches: 5, searches_failed: 2, fetches: 3, fetches_failed: 1, errors: ['brave search: 429'] }, cited: [1, 2], duration_ms: 1000 }),
    ]);
    expect(done.cited).toEqual([1, 2]);
    await render(<ActivityFlow run={done} live={false} />);
    expect(host.querySelector('.activity-web')?.textContent).toBe('5 searches (2 failed) · 3 pages (1 failed)');
    expect(host.querySelector('.activity-web')?.getAttribute('title')).toBe('brave search: 429');
  });

  it('says nothing of the web for a run without searches', async () => {
    await render(<ActivityFlow run={run([ev(1, 'metadata', { content: 'q' }), ev(2, 'complete', { response: 'x' })])} live={false} />);
    expect(host.querySelector('.activity-web')).toBeNull();
    expect(host.querySelector('.activity-sum')?.textContent).not.toContain('search');
  });
});
