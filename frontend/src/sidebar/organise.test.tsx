// @vitest-environment jsdom
// Pinned and archived conversations in the sidebar, and the follow-up questions under the
// latest answer: groups, menu items, the collapsed Archived toggle, the keyboard, both
// languages, and the suggestions event that carries the questions.
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Conversation } from '../api/conversations';
import { FollowUps } from '../chat/Exchange';
import { i18n } from '../i18n/i18n';
import { replayRun, type RunEvent } from '../run/events';
import { applyPersisted } from '../run/run-reducer';
import { groupConversations, Sidebar } from './Sidebar';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const NOW = Date.parse('2026-11-26T12:00:00Z');

function conv(id: string, title: string, pinned = false, archived = false): Conversation {
  const t = '2026-11-26T11:00:00Z';
  return { id, title, created_at: t, updated_at: t, running: false, last_status: 'complete', pinned, archived };
}

const LIST = [conv('a', 'Alpha'), conv('b', 'Beta', true), conv('c', 'Gamma', false, true), conv('d', 'Delta', true, true), conv('e', 'Epsilon')];

describe('groupConversations', () => {
  it('puts pinned first, archived apart (archived wins over pinned), each in list order', () => {
    const g = groupConversations(LIST);
    expect(g.pinned.map((c) => c.id)).toEqual(['b']);
    expect(g.recent.map((c) => c.id)).toEqual(['a', 'e']);
    expect(g.archived.map((c) => c.id)).toEqual(['c', 'd']);
  });
});

describe('sidebar groups', () => {
  let host: HTMLDivElement;
  let root: Root;
  beforeEach(() => {
    host = document.createElement('div');
    document.body.append(host);
    root = createRoot(host);
  });
  afterEach(async () => {
    act(() => root.unmount());
    host.remove();
    await i18n.changeLanguage('en');
  });

  const render = (conversations: Conversation[], onPin = vi.fn(() => Promise.resolve()), onArchive = vi.fn(() => Promise.resolve())) => {
    act(() =>
      root.render(
        <Sidebar
          conversations={conversations}
          selectedId={null}
          runningIds={new Set()}
          loading={false}
          error=""
          now={NOW}
          onSelect={() => {}}
          onNew={() => {}}
          onSettings={() => {}}
          onRename={() => Promise.resolve()}
          onDelete={() => Promise.resolve()}
          onPin={onPin}
          onArchive={onArchive}
        />,
      ),
    );
    return { onPin, onArchive };
  };
  const text = (sel: string) => [...host.querySelectorAll(sel)].map((e) => e.textContent.trim());
  const titles = (groupId: string) => text(`#${groupId} .conv-title`);
  const toggle = () => host.querySelector<HTMLButtonElement>('.conv-archived-toggle');
  const openMenu = (title: string) => {
    const btn = host.querySelector<HTMLButtonElement>(`[aria-label="Actions for ${title}"]`);
    act(() => btn?.click());
    return text('[role=menuitem]');
  };
  const clickItem = (label: string) => {
    const item = [...host.querySelectorAll<HTMLButtonElement>('[role=menuitem]')].find((b) => b.textContent === label);
    expect(item, label).toBeDefined();
    act(() => item?.click());
  };

  it('shows Pinned above Recent and keeps archived ones behind a collapsed toggle', () => {
    render(LIST);
    expect(text('.conv-group-label')).toEqual(['Pinned', 'Recent']);
    expect(titles('conv-group-pinned')).toEqual(['Beta']);
    expect(titles('conv-group-recent')).toEqual(['Alpha', 'Epsilon']);
    expect(toggle()?.textContent).toBe('Archived (2)');
    expect(toggle()?.getAttribute('aria-expanded')).toBe('false');
    expect(host.querySelector('#conv-group-archived')).toBeNull();
    act(() => toggle()?.click());
    expect(toggle()?.getAttribute('aria-expanded')).toBe('true');
    expect(titles('conv-group-archived')).toEqual(['Gamma', 'Delta']);
  });

  it('shows no group labels and no toggle when nothing is pinned or archived', () => {
    render([conv('a', 'Alpha'), conv('e', 'Epsilon')]);
    expect(text('.conv-group-label')).toEqual([]);
    expect(toggle()).toBeNull();
    expect(titles('conv-group-recent')).toEqual(['Alpha', 'Epsilon']);
  });

  it('offers Pin, Unpin, Archive and Unarchive by state and calls back with the new state', () => {
    const { onPin, onArchive } = render(LIST);
    expect(openMenu('Alpha')).toEqual(['Rename', 'Pin', 'Archive', 'Delete…']);
    clickItem('Pin');
    expect(onPin).toHaveBeenCalledWith('a', true);
    expect(openMenu('Beta')).toEqual(['Rename', 'Unpin', 'Archive', 'Delete…']);
    clickItem('Unpin');
    expect(onPin).toHaveBeenLastCalledWith('b', false);
    expect(text('[role=menuitem]')).toEqual([]);
    act(() => toggle()?.click());
    expect(openMenu('Gamma')).toEqual(['Rename', 'Unarchive', 'Delete…']);
    clickItem('Unarchive');
    expect(onArchive).toHaveBeenCalledWith('c', false);
    openMenu('Epsilon');
    clickItem('Archive');
    expect(onArchive).toHaveBeenLastCalledWith('e', true);
  });

  it('shows a failed change above the list', async () => {
    render(LIST, vi.fn(() => Promise.reject(new Error('database is locked'))));
    openMenu('Alpha');
    clickItem('Pin');
    await act(async () => {});
    expect(text('[role=alert]')).toEqual(['database is locked']);
  });

  it('moves through every shown row with the arrow keys, across groups', () => {
    render(LIST);
    act(() => toggle()?.click());
    const rows = [...host.querySelectorAll<HTMLButtonElement>('.conv-open')];
    expect(rows.map((r) => r.title)).toEqual(['Beta', 'Alpha', 'Epsilon', 'Gamma', 'Delta']);
    rows[0]?.focus();
    const key = (k: string) => {
      act(() => {
        document.activeElement?.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true }));
      });
    };
    key('ArrowDown');
    expect(document.activeElement).toBe(rows[1]);
    key('End');
    expect(document.activeElement).toBe(rows[4]);
    key('Home');
    expect(document.activeElement).toBe(rows[0]);
  });

  it('speaks Chinese', async () => {
    await act(() => i18n.changeLanguage('zh-CN'));
    render(LIST);
    expect(text('.conv-group-label')).toEqual(['已置顶', '最近']);
    expect(toggle()?.textContent).toBe('已归档（2）');
    act(() => host.querySelector<HTMLButtonElement>('.conv-menu-btn')?.click());
    expect(text('[role=menuitem]')).toEqual(['重命名', '取消置顶', '归档', '删除…']);
  });
});

describe('follow-up questions', () => {
  let host: HTMLDivElement;
  let root: Root;
  beforeEach(() => {
    host = document.createElement('div');
    document.body.append(host);
    root = createRoot(host);
  });
  afterEach(async () => {
    act(() => root.unmount());
    host.remove();
    await i18n.changeLanguage('en');
  });

  const ev = (type: RunEvent['type'], seq: number, data: Record<string, unknown>): RunEvent => ({
    type,
    conversation_id: 'c1',
    message_id: 'm1',
    seq,
    created_at: '2026-11-26T11:00:00Z',
    data,
  });

  it('reads the suggestions event after the terminal event, when a run is replayed from the store', () => {
    const run = replayRun(
      [
        ev('metadata', 1, { content: 'How far is the Moon?' }),
        ev('complete', 2, { response: 'About 384,400 km.' }),
        ev('suggestions', 3, { questions: ['Why does it change?', '', 7, 'How is it measured?'], title: 'Lunar distance' }),
      ],
      'm1',
    );
    expect(run?.status).toBe('complete');
    expect(run?.suggestions).toEqual(['Why does it change?', 'How is it measured?']);
    expect(run?.suggestedTitle).toBe('Lunar distance');
  });

  it('keeps a run without the event free of questions', () => {
    const run = replayRun([ev('metadata', 1, { content: 'Q' }), ev('complete', 2, { response: 'A' })], 'm1');
    expect(run?.suggestions).toEqual([]);
    expect(run && applyPersisted(run, ev('suggestions', 3, {})).suggestions).toEqual([]);
  });

  it('renders one button per question; a click or Enter hands its text over', () => {
    const pick = vi.fn();
    act(() => root.render(<FollowUps questions={['Why does it change?', 'How is it measured?']} onPick={pick} />));
    const buttons = [...host.querySelectorAll<HTMLButtonElement>('button.follow-up')];
    expect(buttons.map((b) => b.textContent)).toEqual(['Why does it change?', 'How is it measured?']);
    expect(host.querySelector('[role=group]')?.getAttribute('aria-label')).toBe('Follow-up questions');
    act(() => buttons[1]?.click());
    expect(pick).toHaveBeenCalledWith('How is it measured?');
    expect(buttons.every((b) => b.type === 'button' && b.tabIndex >= 0)).toBe(true);
  });

  it('labels them in Chinese', async () => {
    await act(() => i18n.changeLanguage('zh-CN'));
    act(() => root.render(<FollowUps questions={['月球为什么在远离地球？']} onPick={() => {}} />));
    expect(host.querySelector('.follow-ups-label')?.textContent).toBe('可以继续问');
    expect(host.querySelector('button.follow-up')?.getAttribute('title')).toBe('将这个问题填入输入框');
  });
});
