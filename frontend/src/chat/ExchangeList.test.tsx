// @vitest-environment jsdom
import { act, useRef } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ExchangeList, VIRTUALIZE_ABOVE } from './ExchangeList';
import type { ChatItem } from './types';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root | null = null;
const host = document.createElement('div');
document.body.appendChild(host);

// jsdom lays nothing out: the scroller is 800 px high and each exchange's slot 200 px.
const sizes: [keyof HTMLElement, string, number][] = [
  ['clientHeight', 'chat-scroll', 800],
  ['clientWidth', 'chat-scroll', 700],
  ['offsetHeight', 'exchange-slot', 200],
];
const saved = sizes.map(([prop]) => [prop, Object.getOwnPropertyDescriptor(HTMLElement.prototype, prop)] as const);
beforeAll(() => {
  for (const [prop, cls, px] of sizes) {
    Object.defineProperty(HTMLElement.prototype, prop, {
      configurable: true,
      get(this: HTMLElement) {
        return this.classList.contains(cls) ? px : 0;
      },
    });
  }
});
afterAll(() => {
  for (const [prop, d] of saved) {
    if (d) Object.defineProperty(HTMLElement.prototype, prop, d);
    else Reflect.deleteProperty(HTMLElement.prototype, prop);
  }
});

afterEach(() => {
  act(() => root?.unmount());
  root = null;
});

const itemsOf = (n: number): ChatItem[] =>
  Array.from({ length: n }, (_, i) => {
    const id = `m${String(i + 1)}`;
    return { key: id, message: { id, parent_id: '', content: `Question ${String(i + 1)}`, response: '', status: 'complete', error: '', created_at: '', sibling_ids: [id], sibling_index: 0 } } as unknown as ChatItem;
  });

/** The chat's shape: .app holding the find bar (when open) beside main > .chat-scroll > list. */
function Harness({ items, find }: { items: ChatItem[]; find: boolean }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  return (
    <div className="app">
      {find ? <div className="find-bar" data-scope="conversation" /> : null}
      <main>
        <div className="chat-scroll" ref={scrollRef} style={{ height: '800px', overflowY: 'auto' }}>
          <ExchangeList
            items={items}
            scrollRef={scrollRef}
            renderItem={(it) => (
              <article className="exchange" data-message-id={it.key}>
                {it.message?.content}
              </article>
            )}
          />
        </div>
      </main>
    </div>
  );
}

const render = async (items: ChatItem[], find = false) =>
  act(async () => {
    root ??= createRoot(host);
    root.render(<Harness items={items} find={find} />);
    await new Promise((r) => setTimeout(r, 0));
  });
const shown = () => [...host.querySelectorAll<HTMLElement>('.exchange')].map((e) => e.dataset.messageId);

describe('ExchangeList', () => {
  const cases: { name: string; n: number; find: boolean; all: boolean }[] = [
    { name: 'up to VIRTUALIZE_ABOVE exchanges: every one, as plain children', n: VIRTUALIZE_ABOVE, find: false, all: true },
    { name: 'above it: only some, the newest among them', n: 500, find: false, all: false },
    { name: 'above it with the find bar open: every one (find searches the page)', n: 500, find: true, all: true },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      await render(itemsOf(c.n), c.find);
      const ids = shown();
      expect(ids.at(-1)).toBe(`m${String(c.n)}`);
      if (c.all) {
        expect(ids).toEqual(itemsOf(c.n).map((it) => it.key));
        expect(host.querySelector('.exchange-slot')).toBeNull();
      } else {
        expect(ids.length).toBeGreaterThan(0);
        expect(ids.length).toBeLessThan(50);
        expect(host.querySelectorAll('.exchange-slot').length).toBe(ids.length);
        expect(host.querySelector('.exchange-slot-last [data-message-id="m500"]')).not.toBeNull();
      }
    });
  }

  it('renders every exchange while find is open and goes back to a window when it closes', async () => {
    await render(itemsOf(200));
    expect(shown().length).toBeLessThan(50);
    await render(itemsOf(200), true);
    expect(shown()).toHaveLength(200);
    await render(itemsOf(200), false);
    expect(shown().length).toBeLessThan(50);
  });
});
