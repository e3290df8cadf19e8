// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { findRanges, matchCount, paintMatches, stepMatch, HIGHLIGHT_ALL, HIGHLIGHT_CURRENT } from './find';
import { FindBar } from './components/FindBar';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe('findRanges', () => {
  it('finds every case-insensitive occurrence in document order, skipping the find bar and code-copy labels', () => {
    const box = document.createElement('div');
    box.innerHTML =
      '<p>Solar cells and <b>SOLAR</b> panels: solarsolar.</p><div class="find-bar"><input>solar</div><pre><button class="code-copy">solar</button><code>solar()</code></pre>';
    const rs = findRanges(box, '  Solar ');
    expect(rs.map((r) => r.toString())).toEqual(['Solar', 'SOLAR', 'solar', 'solar', 'solar']);
    expect(rs[4]?.startContainer.parentElement?.tagName).toBe('CODE');
    expect(findRanges(box, '')).toEqual([]);
    expect(findRanges(box, '   ')).toEqual([]);
    expect(findRanges(box, 'absent')).toEqual([]);
  });

  it('finds Chinese text without spaces', () => {
    const box = document.createElement('div');
    box.textContent = '钠离子电池比锂离子电池便宜；离子';
    expect(findRanges(box, '离子').length).toBe(3);
  });
});

describe('find steps and count', () => {
  it.each([
    [-1, 3, 1, 0],
    [-1, 3, -1, 2],
    [0, 3, 1, 1],
    [2, 3, 1, 0],
    [0, 3, -1, 2],
    [0, 0, 1, -1],
  ] as const)('stepMatch(%i, %i, %i) = %i', (cur, n, step, want) => {
    expect(stepMatch(cur, n, step)).toBe(want);
  });
  it('matchCount says "3 / 12", "0 / 0", or nothing without a query', () => {
    expect(matchCount(2, 12, 'x')).toBe('3 / 12');
    expect(matchCount(-1, 0, 'x')).toBe('0 / 0');
    expect(matchCount(-1, 0, ' ')).toBe('');
  });
});

/** A stand-in for the CSS Custom Highlight API (jsdom has none). */
class FakeHighlight {
  ranges: Range[];
  constructor(...r: Range[]) {
    this.ranges = r;
  }
}
const g = globalThis as unknown as { CSS?: unknown; Highlight?: unknown };

describe('FindBar', () => {
  let root: Root | null = null;
  const host = document.createElement('div');
  const convo = document.createElement('div');
  convo.className = 'chat-scroll';
  document.body.append(convo, host);
  Element.prototype.scrollIntoView = function scrollIntoView() {};
  const registry = new Map<string, FakeHighlight>();

  afterEach(() => {
    act(() => root?.unmount());
    root = null;
    delete g.CSS;
    delete g.Highlight;
  });
  const press = (target: EventTarget, key: string, opts: KeyboardEventInit = {}) =>
    act(async () => {
      target.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...opts }));
      await new Promise((r) => setTimeout(r, 5));
    });
  const wait = (ms = 80) => act(() => new Promise((r) => setTimeout(r, ms)));

  it('repaints when a longer query finds the same number of matches', async () => {
    // Typing "alph" then "alpha": the count (3) and the current match (the first) stay the
    // same, and the highlights must still move to the longer matches (seen in the real window).
    g.CSS = { highlights: registry };
    g.Highlight = FakeHighlight;
    convo.innerHTML = '<p>alpha beta alpha</p><p>ALPHA gamma</p>';
    await act(async () => {
      root = createRoot(host);
      root.render(<FindBar />);
      await Promise.resolve();
    });
    await press(window, 'f', { ctrlKey: true });
    const input = host.querySelector<HTMLInputElement>('.find-bar input');
    const type = (text: string) =>
      act(async () => {
        Reflect.set(HTMLInputElement.prototype, 'value', text, input);
        input?.dispatchEvent(new Event('input', { bubbles: true }));
        await Promise.resolve();
      });
    await type('alph');
    await wait();
    expect(registry.get(HIGHLIGHT_CURRENT)?.ranges[0]?.toString()).toBe('alph');
    await type('alpha');
    await wait();
    expect(registry.get(HIGHLIGHT_ALL)?.ranges.map((r) => r.toString())).toEqual(['alpha', 'alpha', 'ALPHA']);
    expect(registry.get(HIGHLIGHT_CURRENT)?.ranges[0]?.toString()).toBe('alpha');
  });

  it('Ctrl+F opens it, matches are highlighted and counted, Enter/Shift+Enter move, Esc closes', async () => {
    g.CSS = { highlights: registry };
    g.Highlight = FakeHighlight;
    convo.innerHTML = '<p>alpha beta alpha</p><p>ALPHA gamma</p>';
    await act(async () => {
      root = createRoot(host);
      root.render(<FindBar />);
      await Promise.resolve();
    });
    expect(host.querySelector('.find-bar')).toBeNull();
    const ev = new KeyboardEvent('keydown', { key: 'f', ctrlKey: true, bubbles: true, cancelable: true });
    await act(async () => {
      window.dispatchEvent(ev);
      await new Promise((r) => setTimeout(r, 5));
    });
    expect(ev.defaultPrevented).toBe(true);
    const input = host.querySelector<HTMLInputElement>('.find-bar input');
    expect(input).not.toBeNull();
    expect(document.activeElement).toBe(input);
    await act(async () => {
      // React tracks the value property; set it through the prototype's setter, as typing does.
      Reflect.set(HTMLInputElement.prototype, 'value', 'alpha', input);
      input?.dispatchEvent(new Event('input', { bubbles: true }));
      await Promise.resolve();
    });
    await wait();
    const count = () => host.querySelector('.find-count')?.textContent;
    expect(count()).toBe('1 / 3');
    expect(registry.get(HIGHLIGHT_ALL)?.ranges.length).toBe(3);
    await press(input as HTMLInputElement, 'Enter');
    expect(count()).toBe('2 / 3');
    await press(input as HTMLInputElement, 'Enter');
    await press(input as HTMLInputElement, 'Enter');
    expect(count()).toBe('1 / 3');
    await press(input as HTMLInputElement, 'Enter', { shiftKey: true });
    expect(count()).toBe('3 / 3');
    expect(registry.get(HIGHLIGHT_CURRENT)?.ranges[0]?.toString()).toBe('ALPHA');

    // The conversation changes: the matches follow.
    await act(async () => {
      convo.insertAdjacentHTML('beforeend', '<p>alpha again</p>');
      await Promise.resolve();
    });
    await wait();
    expect(count()).toBe('3 / 4');

    await press(input as HTMLInputElement, 'Escape');
    expect(host.querySelector('.find-bar')).toBeNull();
    expect(registry.has(HIGHLIGHT_ALL)).toBe(false);
    expect(convo.innerHTML).toBe('<p>alpha beta alpha</p><p>ALPHA gamma</p><p>alpha again</p>'); // the DOM was never changed
  });

  it('without the Highlight API the current match is selected', () => {
    const box = document.createElement('div');
    box.textContent = 'one two one';
    document.body.appendChild(box);
    const rs = findRanges(box, 'one');
    expect(paintMatches(rs, 1)).toBe(false);
    const sel = window.getSelection();
    expect(sel?.toString()).toBe('one');
    expect(sel?.getRangeAt(0).startOffset).toBe(8);
    box.remove();
  });
});
