// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Splitter } from './Splitter';
import { LAST_CONVERSATION_KEY, useLastConversation } from './useLastConversation';
import {
  BOUNDS,
  CHAT_MIN,
  DEFAULT_LAYOUT,
  LAYOUT_KEY,
  clampWidth,
  defaultWidth,
  effectiveWidths,
  pageZoom,
  parseLayout,
  serializeLayout,
  useLayout,
  widthRange,
  type LayoutControls,
} from './useLayout';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe('layout rules', () => {
  it('defaults follow the fixed layout it replaced', () => {
    expect(defaultWidth('sidebar', 1280)).toBe(252);
    expect(defaultWidth('panel', 1280)).toBe(397);
    expect(defaultWidth('panel', 1900)).toBe(480);
    expect(defaultWidth('sidebar', 1100)).toBe(220);
    expect(defaultWidth('panel', 1100)).toBe(330);
  });

  it.each([
    { name: 'inside', width: 300, range: { min: 180, max: 480 }, want: 300 },
    { name: 'under the minimum', width: 20, range: { min: 180, max: 480 }, want: 180 },
    { name: 'over the maximum', width: 9000, range: { min: 180, max: 480 }, want: 480 },
    { name: 'fractional', width: 300.6, range: { min: 180, max: 480 }, want: 301 },
    { name: 'not a number', width: Number.NaN, range: { min: 180, max: 480 }, want: 180 },
  ])('clampWidth: $name', ({ width, range, want }) => {
    expect(clampWidth(width, range)).toBe(want);
  });

  it('a column may not squeeze the chat column under its minimum', () => {
    const r = widthRange('panel', 1280, 252);
    expect(r.max).toBe(1280 - 252 - CHAT_MIN);
    // In a narrow window the maximum never falls under the minimum.
    expect(widthRange('panel', 600, 400).max).toBe(BOUNDS.panel.min);
  });

  it('effectiveWidths: collapsed columns are 0 and give their room to the other', () => {
    const wide = { ...DEFAULT_LAYOUT, panel: 900 };
    expect(effectiveWidths(wide, 1280)).toEqual({ sidebar: 252, panel: 1280 - 252 - CHAT_MIN });
    expect(effectiveWidths({ ...wide, sidebarCollapsed: true }, 1280)).toEqual({ sidebar: 0, panel: 900 });
    expect(effectiveWidths({ ...DEFAULT_LAYOUT, sidebarCollapsed: true, panelCollapsed: true }, 1280)).toEqual({ sidebar: 0, panel: 0 });
  });

  it.each([
    { name: 'nothing stored', text: null, want: DEFAULT_LAYOUT },
    { name: 'bad JSON', text: '{"sidebar": 3', want: DEFAULT_LAYOUT },
    { name: 'not an object', text: '42', want: DEFAULT_LAYOUT },
    { name: 'wrong types', text: '{"sidebar":"wide","panel":null,"sidebarCollapsed":"yes"}', want: DEFAULT_LAYOUT },
    {
      name: 'out of bounds',
      text: '{"sidebar":5,"panel":99999,"sidebarCollapsed":true,"panelCollapsed":false}',
      want: { sidebar: BOUNDS.sidebar.min, panel: BOUNDS.panel.max, sidebarCollapsed: true, panelCollapsed: false },
    },
  ])('parseLayout: $name', ({ text, want }) => {
    expect(parseLayout(text)).toEqual(want);
  });

  it('parseLayout reads back what serializeLayout wrote', () => {
    const l = { sidebar: 300, panel: 610, sidebarCollapsed: false, panelCollapsed: true };
    expect(parseLayout(serializeLayout(l))).toEqual(l);
  });
});

describe('useLayout and useLastConversation', () => {
  let root: Root;
  let host: HTMLDivElement;

  beforeEach(() => {
    window.localStorage.clear();
    Object.defineProperty(window, 'innerWidth', { configurable: true, value: 1280 });
    host = document.createElement('div');
    document.body.append(host);
    root = createRoot(host);
  });
  afterEach(() => {
    act(() => root.unmount());
    host.remove();
  });

  const mountLayout = (): { current: LayoutControls } => {
    const ref = { current: undefined as unknown as LayoutControls };
    function Probe() {
      ref.current = useLayout();
      return null;
    }
    act(() => root.render(<Probe />));
    return ref;
  };

  it('stores widths and collapsed state, clamped, and reads them after a restart', () => {
    const l = mountLayout();
    expect(l.current.widths).toEqual({ sidebar: 252, panel: 397 });
    act(() => l.current.setWidth('panel', 5000));
    expect(l.current.widths.panel).toBe(1280 - 252 - CHAT_MIN);
    act(() => l.current.setWidth('sidebar', 10));
    expect(l.current.widths.sidebar).toBe(BOUNDS.sidebar.min);
    act(() => l.current.toggle('sidebar'));
    expect(JSON.parse(window.localStorage.getItem(LAYOUT_KEY) ?? '{}')).toMatchObject({
      sidebar: BOUNDS.sidebar.min,
      panel: 1280 - 252 - CHAT_MIN,
      sidebarCollapsed: true,
      panelCollapsed: false,
    });

    act(() => root.unmount());
    root = createRoot(host);
    const again = mountLayout();
    expect(again.current.layout.sidebarCollapsed).toBe(true);
    expect(again.current.widths).toEqual({ sidebar: 0, panel: 1280 - 252 - CHAT_MIN });
    act(() => again.current.resetWidth('panel'));
    expect(again.current.widths.panel).toBe(397);
    expect(parseLayout(window.localStorage.getItem(LAYOUT_KEY)).panel).toBeNull();
  });

  it('follows the window width without changing what is stored', () => {
    const l = mountLayout();
    act(() => l.current.setWidth('panel', 600));
    Object.defineProperty(window, 'innerWidth', { configurable: true, value: 1100 });
    act(() => {
      window.dispatchEvent(new Event('resize'));
    });
    expect(l.current.widths).toEqual({ sidebar: 220, panel: 1100 - 220 - CHAT_MIN });
    expect(parseLayout(window.localStorage.getItem(LAYOUT_KEY)).panel).toBe(600);
  });

  it('works in the page\'s CSS pixels when the page is zoomed', async () => {
    const l = mountLayout();
    // The zoom shortcuts set a style on <html>; a mutation observer sees it.
    await act(async () => {
      document.documentElement.style.setProperty('zoom', '1.25');
      await Promise.resolve();
    });
    try {
      // 1280 px of window are 1024 px of page: the defaults of a window under 1120 px.
      expect(l.current.viewport).toBe(1024);
      expect(l.current.widths).toEqual({ sidebar: 220, panel: 330 });
      expect(pageZoom()).toBe(1.25);
    } finally {
      await act(async () => {
        document.documentElement.style.removeProperty('zoom');
        await Promise.resolve();
      });
    }
    expect(l.current.viewport).toBe(1280);
  });

  it('a drag moves the splitter as far as the pointer on a zoomed page', () => {
    const resize = vi.fn();
    document.documentElement.style.setProperty('zoom', '2');
    try {
      act(() =>
        root.render(
          <Splitter label="Resize" value={300} min={200} max={500} direction={-1} position={{ right: 300 }} onResize={resize} onReset={() => undefined} onCollapse={() => undefined} />,
        ),
      );
      const sep = host.querySelector<HTMLElement>('[role="separator"]');
      if (sep === null) throw new Error('no separator');
      sep.setPointerCapture = () => undefined;
      sep.hasPointerCapture = () => false;
      const ev = (type: string, clientX: number) => {
        const e = new MouseEvent(type, { bubbles: true, clientX, button: 0 });
        Object.defineProperty(e, 'pointerId', { value: 1 });
        act(() => {
          sep.dispatchEvent(e);
        });
      };
      ev('pointerdown', 900);
      ev('pointermove', 800);
      ev('pointerup', 800);
    } finally {
      document.documentElement.style.removeProperty('zoom');
    }
    // 100 screen px to the left are 50 page px: the panel on the right grows by 50.
    expect(resize).toHaveBeenCalledWith(350);
  });

  function LastProbe(p: { selected: string | null; ids: string[]; loaded: boolean; open: (id: string) => void }) {
    useLastConversation(p.selected, p.ids, p.loaded, p.open);
    return null;
  }

  it('reopens the stored conversation once the list has it, and remembers the next', () => {
    window.localStorage.setItem(LAST_CONVERSATION_KEY, 'c2');
    const open = vi.fn();
    act(() => root.render(<LastProbe selected={null} ids={[]} loaded={false} open={open} />));
    // Not decided yet: the empty selection at start must not erase the stored id.
    expect(window.localStorage.getItem(LAST_CONVERSATION_KEY)).toBe('c2');
    act(() => root.render(<LastProbe selected={null} ids={['c1', 'c2']} loaded open={open} />));
    expect(open).toHaveBeenCalledWith('c2');
    act(() => root.render(<LastProbe selected="c1" ids={['c1', 'c2']} loaded open={open} />));
    expect(window.localStorage.getItem(LAST_CONVERSATION_KEY)).toBe('c1');
    act(() => root.render(<LastProbe selected={null} ids={['c1', 'c2']} loaded open={open} />));
    expect(window.localStorage.getItem(LAST_CONVERSATION_KEY)).toBeNull();
    expect(open).toHaveBeenCalledTimes(1);
  });

  it('opens nothing when the stored conversation is gone', () => {
    window.localStorage.setItem(LAST_CONVERSATION_KEY, 'deleted');
    const open = vi.fn();
    act(() => root.render(<LastProbe selected={null} ids={['c1']} loaded open={open} />));
    expect(open).not.toHaveBeenCalled();
    expect(window.localStorage.getItem(LAST_CONVERSATION_KEY)).toBeNull();
  });

  it('the splitter resizes by keyboard in the direction of its column, and says its width', () => {
    const resize = vi.fn();
    const collapse = vi.fn();
    const render = (direction: 1 | -1) =>
      act(() =>
        root.render(
          <Splitter label="Resize" value={300} min={200} max={500} direction={direction} position={{ left: 300 }} onResize={resize} onReset={() => undefined} onCollapse={collapse} />,
        ),
      );
    render(1);
    const sep = host.querySelector('[role="separator"]');
    expect(sep?.getAttribute('aria-valuenow')).toBe('300');
    const key = (k: string, shiftKey = false) => {
      act(() => {
        sep?.dispatchEvent(new KeyboardEvent('keydown', { key: k, shiftKey, bubbles: true }));
      });
    };
    key('ArrowRight');
    key('ArrowLeft', true);
    key('End');
    key('Enter');
    expect(resize.mock.calls.map((c) => c[0] as number)).toEqual([316, 236, 500]);
    expect(collapse).toHaveBeenCalledTimes(1);
    resize.mockClear();
    render(-1);
    key('ArrowLeft');
    expect(resize).toHaveBeenCalledWith(316);
  });
});
