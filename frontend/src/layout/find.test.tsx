// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clearMatches, findRanges, findScope, matchCount, paintMatches, stepMatch, HIGHLIGHT_ALL, HIGHLIGHT_CURRENT } from './find';
import { FindBar } from './FindBar';

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

/** A stand-in for the CSS Custom Highlight API (jsdom has none): a Highlight is a set of ranges. */
class FakeHighlight extends Set<Range> {
  constructor(...r: Range[]) {
    super(r);
  }
  get ranges(): Range[] {
    return [...this];
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
  /** Renders the bar over "alpha beta alpha / ALPHA gamma", opens it with Ctrl+F, and returns a way to type in it. */
  const openBar = async () => {
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
    return (text: string) =>
      act(async () => {
        // React tracks the value property; set it through the prototype's setter, as typing does.
        Reflect.set(HTMLInputElement.prototype, 'value', text, input);
        input?.dispatchEvent(new Event('input', { bubbles: true }));
        await Promise.resolve();
      });
  };

  it('repaints when a longer query finds the same number of matches', async () => {
    // Typing "alph" then "alpha": the count (3) and the current match (the first) stay the
    // same, and the highlights must still move to the longer matches (seen in the real window).
    const type = await openBar();
    await type('alph');
    await wait();
    expect(registry.get(HIGHLIGHT_CURRENT)?.ranges[0]?.toString()).toBe('alph');
    await type('alpha');
    await wait();
    expect(registry.get(HIGHLIGHT_ALL)?.ranges.map((r) => r.toString())).toEqual(['alpha', 'alpha', 'ALPHA']);
    expect(registry.get(HIGHLIGHT_CURRENT)?.ranges[0]?.toString()).toBe('alpha');
  });

  it('the highlights change in the same render as the count beside them', async () => {
    // What the user (and a script) sees when "1 / 4" appears must already be highlighted:
    // a passive effect may paint a frame later. Observed outside act(), which would flush
    // every effect before looking.
    const type = await openBar();
    await type('alpha');
    await wait();
    const status = host.querySelector('.find-count');
    expect(status?.textContent).toBe('1 / 3');
    const seen: string[] = [];
    const mo = new MutationObserver(() => {
      seen.push(`${String(status?.textContent)} with ${String(registry.get(HIGHLIGHT_ALL)?.size ?? 0)} highlighted`);
    });
    mo.observe(status as Element, { subtree: true, childList: true, characterData: true });
    // A streaming answer adds a match.
    convo.insertAdjacentHTML('beforeend', '<p>alpha again</p>');
    await vi.waitFor(() => expect(seen.length).toBeGreaterThan(0), { timeout: 2000, interval: 5 });
    mo.disconnect();
    expect(seen).toEqual(['1 / 4 with 4 highlighted']);
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

  it('changes the registered highlights in place and empties them before removing them', () => {
    // WebKitGTK repaints text only for ranges taken out of a registered highlight: a
    // highlight replaced or deleted in the registry left its old matches painted.
    const cleared: string[] = [];
    class Recording extends FakeHighlight {
      override clear() {
        cleared.push(this.ranges.map((r) => r.toString()).join());
        super.clear();
      }
    }
    g.CSS = { highlights: registry };
    g.Highlight = Recording;
    registry.clear();
    const box = document.createElement('div');
    box.textContent = 'moon mood moon';
    document.body.appendChild(box);
    paintMatches(findRanges(box, 'moo'), 0);
    const all = registry.get(HIGHLIGHT_ALL);
    const cur = registry.get(HIGHLIGHT_CURRENT);
    paintMatches(findRanges(box, 'moon'), 1);
    expect(registry.get(HIGHLIGHT_ALL)).toBe(all);
    expect(registry.get(HIGHLIGHT_CURRENT)).toBe(cur);
    expect(all?.ranges.map((r) => r.toString())).toEqual(['moon', 'moon']);
    expect(cur?.ranges[0]?.startOffset).toBe(10);
    expect(cleared).toContain('moo,moo,moo'); // the old matches were taken out one by one
    paintMatches([], -1);
    expect(all?.size).toBe(0);
    expect(cur?.size).toBe(0);
    paintMatches(findRanges(box, 'mood'), 0);
    cleared.length = 0;
    clearMatches();
    expect(cleared).toEqual(['mood', 'mood']);
    expect(registry.has(HIGHLIGHT_ALL)).toBe(false);
    expect(registry.has(HIGHLIGHT_CURRENT)).toBe(false);
    box.remove();
  });

  it('Ctrl+F in an open dialog searches the dialog, from a bar inside it that closes with it', async () => {
    g.CSS = { highlights: registry };
    g.Highlight = FakeHighlight;
    convo.innerHTML = '<p>alpha in the conversation, alpha again</p>';
    const reader = document.createElement('dialog');
    reader.className = 'reader';
    reader.setAttribute('open', '');
    reader.innerHTML = '<header><h2>Report alpha</h2><button>Close</button></header><div class="reader-body"><p>The alpha report.</p></div>';
    document.body.appendChild(reader);
    await act(async () => {
      root = createRoot(host);
      root.render(<FindBar />);
      await Promise.resolve();
    });
    reader.querySelector('button')?.focus();
    await press(window, 'f', { ctrlKey: true });
    const bar = reader.querySelector<HTMLElement>('.find-bar');
    expect(bar).not.toBeNull();
    expect(host.querySelector('.find-bar')).toBeNull();
    const input = bar?.querySelector('input');
    expect(input?.getAttribute('aria-label')).toBe('Find in report');
    expect(document.activeElement).toBe(input);
    await act(async () => {
      Reflect.set(HTMLInputElement.prototype, 'value', 'alpha', input);
      input?.dispatchEvent(new Event('input', { bubbles: true }));
      await Promise.resolve();
    });
    await wait();
    expect(bar?.querySelector('.find-count')?.textContent).toBe('1 / 1'); // the body's, not the heading's or the conversation's
    expect(registry.get(HIGHLIGHT_ALL)?.ranges[0]?.startContainer.parentElement?.closest('.reader-body')).not.toBeNull();

    // Esc closes the bar, not the dialog, and the focus goes back.
    await press(input as HTMLInputElement, 'Escape');
    expect(reader.querySelector('.find-bar')).toBeNull();
    expect(reader.isConnected).toBe(true);
    expect(document.activeElement).toBe(reader.querySelector('button'));

    // The dialog closes with the bar open: the bar closes too.
    await press(window, 'f', { ctrlKey: true });
    expect(reader.querySelector('.find-bar')).not.toBeNull();
    await act(async () => {
      reader.remove();
      await new Promise((r) => setTimeout(r, 5));
    });
    await wait();
    expect(registry.has(HIGHLIGHT_ALL)).toBe(false);
    await press(window, 'f', { ctrlKey: true });
    expect(host.querySelector('.find-bar')?.getAttribute('data-scope')).toBe('conversation');
  });
});

describe('findScope', () => {
  const page = () => {
    const doc = document.implementation.createHTMLDocument('t');
    doc.body.innerHTML = `<div class="app"><main class="chat"><div class="chat-scroll"><p id="answer">answer</p></div></main>
      <aside class="panel"><button id="tab">Sources</button><div class="viewer"><div class="preview" tabindex="0"><p id="report">report</p></div></div></aside></div>`;
    return doc;
  };
  it.each([
    ['nothing focused', null, 'conversation', '.chat-scroll'],
    ['the conversation', '#answer', 'conversation', '.chat-scroll'],
    ['the artifact view', '#report', 'report', '.preview'],
    ['elsewhere in the panel', '#tab', 'panel', 'aside.panel'],
  ] as const)('with the focus on %s it searches the %s', (_what, focus, kind, rootSel) => {
    const doc = page();
    const sc = findScope(doc, focus === null ? null : doc.querySelector(focus));
    expect(sc?.kind).toBe(kind);
    expect(sc?.root).toBe(doc.querySelector(rootSel));
    expect(sc?.host).toBeNull();
  });
  it('an open dialog wins, the one holding the focus first, searched in its body', () => {
    const doc = page();
    doc.body.insertAdjacentHTML(
      'beforeend',
      '<dialog open class="modal" id="settings"><div class="modal-body"><input id="field"></div></dialog><dialog open class="modal modal-compare" id="compare"><div class="modal-body"></div></dialog><dialog class="modal" id="closed"></dialog>',
    );
    const settings = findScope(doc, doc.querySelector('#field'));
    expect(settings?.kind).toBe('dialog');
    expect(settings?.host).toBe(doc.querySelector('#settings'));
    expect(settings?.root).toBe(doc.querySelector('#settings .modal-body'));
    const last = findScope(doc, doc.querySelector('#answer'));
    expect(last?.kind).toBe('report');
    expect(last?.host).toBe(doc.querySelector('#compare'));
  });
  it('is null where there is nothing to search', () => {
    expect(findScope(document.implementation.createHTMLDocument('t'), null)).toBeNull();
  });
});
