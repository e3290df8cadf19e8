// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { askFirstList, firstListSettled, takeFirstList } from './first-list';
import { useConversationList } from './useConversationList';
import { emptyRunsState } from '../run/events';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

type Loose = Record<string, unknown>;
const win = window as unknown as Loose;
const row = (id: string, title: string) => ({ id, title, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' });

/** What the probe saw on each render: loading, and the titles listed. */
let seen: { loading: boolean; titles: string[]; error: string }[] = [];

function Probe() {
  const list = useConversationList(emptyRunsState(), 0);
  seen.push({ loading: list.loading, titles: list.conversations.map((c) => c.title), error: list.error });
  return null;
}

let host: HTMLDivElement;
let root: Root | null = null;

beforeEach(() => {
  seen = [];
  host = document.createElement('div');
  void takeFirstList(); // nothing left over from another test
});

afterEach(() => {
  act(() => root?.unmount());
  root = null;
  delete win.go;
});

async function render() {
  await act(async () => {
    root = createRoot(host);
    root.render(<Probe />);
    await Promise.resolve();
  });
}

describe('the conversation list asked for at start-up', () => {
  it('is on the first render when it came before it, and the list is not asked for again', async () => {
    const List = vi.fn(() => Promise.resolve([row('a', 'Moon distance'), row('b', 'Batteries')]));
    win.go = { app: { ConversationService: { List } } };
    askFirstList();
    askFirstList(); // once per page
    await firstListSettled(1000);
    await render();
    expect(seen[0]).toEqual({ loading: false, titles: ['Moon distance', 'Batteries'], error: '' });
    expect(List).toHaveBeenCalledTimes(1);
  });

  it('is waited for, not asked again, when it had not come by the first render', async () => {
    let answer: (v: unknown) => void = () => undefined;
    const List = vi.fn(() => new Promise((resolve) => (answer = resolve)));
    win.go = { app: { ConversationService: { List } } };
    askFirstList();
    await render();
    expect(seen[0]?.loading).toBe(true);
    await act(async () => {
      answer([row('a', 'Late answer')]);
      await new Promise((r) => setTimeout(r, 0));
    });
    expect(seen.at(-1)).toEqual({ loading: false, titles: ['Late answer'], error: '' });
    expect(List).toHaveBeenCalledTimes(1);
  });

  it('shows its failure on the first render', async () => {
    const List = vi.fn(() => Promise.reject(new Error(JSON.stringify({ code: 'internal', message: 'database is locked' }))));
    win.go = { app: { ConversationService: { List } } };
    askFirstList();
    await firstListSettled(1000);
    await render();
    expect(seen[0]?.loading).toBe(false);
    expect(seen[0]?.error).toContain('database is locked');
  });

  it('leaves a later start (nothing asked) to ask for the list itself', async () => {
    const List = vi.fn(() => Promise.resolve([row('c', 'Heat pumps')]));
    win.go = { app: { ConversationService: { List } } };
    await firstListSettled(1000); // at once: nothing was asked
    await render();
    expect(seen[0]?.loading).toBe(true);
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
    expect(seen.at(-1)?.titles).toEqual(['Heat pumps']);
    expect(List).toHaveBeenCalledTimes(1);
  });
});
