// @vitest-environment jsdom
// The sidebar and the branch navigator in both languages: the same component shows English by
// default and Simplified Chinese once the UI's language is zh-CN.
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Conversation } from '../api/conversations';
import { BranchNav } from '../chat/BranchNav';
import { Sidebar } from './Sidebar';
import { i18n } from '../i18n/i18n';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const NOW = Date.parse('2026-11-26T12:00:00Z');

function conv(id: string, title: string, status: Conversation['last_status']): Conversation {
  return { id, title, created_at: '2026-11-26T11:00:00Z', updated_at: '2026-11-26T11:00:00Z', last_status: status } as Conversation;
}

describe('sidebar in English and Chinese', () => {
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

  const render = () =>
    act(() =>
      root.render(
        <Sidebar
          conversations={[conv('a', 'Solar', 'complete'), conv('b', '', 'error'), conv('c', 'Wind', 'cancelled')]}
          selectedId="a"
          runningIds={new Set(['a'])}
          loading={false}
          error=""
          now={NOW}
          onSelect={() => {}}
          onNew={() => {}}
          onSettings={() => {}}
          onRename={() => Promise.resolve()}
          onDelete={() => Promise.resolve()}
        />,
      ),
    );
  const text = (sel: string) => [...host.querySelectorAll(sel)].map((e) => e.textContent.trim());
  const attr = (sel: string, name: string) => host.querySelector(sel)?.getAttribute(name);

  it('shows the New research button, the list and the status badges in English by default', () => {
    render();
    expect(text('.btn-new span')).toEqual(['New research']);
    expect(text('.conv-title')).toEqual(['Solar', 'Untitled research', 'Wind']);
    expect(text('.conv-running')).toEqual(['Researching']);
    expect(text('.conv-badge')).toEqual(['Failed', 'Stopped']);
    expect(attr('.conv-badge-failed', 'title')).toBe('The last run failed');
    expect(attr('.search-input', 'placeholder')).toBe('Search research');
    expect(text('.btn-settings span')).toEqual(['Settings']);
  });

  it('shows them in Chinese after the language switches, without a remount', async () => {
    render();
    await act(() => i18n.changeLanguage('zh-CN'));
    expect(text('.btn-new span')).toEqual(['新建研究']);
    expect(text('.sidebar-label')).toEqual(['研究']);
    expect(text('.conv-title')).toEqual(['Solar', '未命名研究', 'Wind']);
    expect(text('.conv-running')).toEqual(['研究中']);
    expect(text('.conv-badge')).toEqual(['失败', '已停止']);
    expect(attr('.conv-badge-failed', 'title')).toBe('上次运行失败');
    expect(attr('.conv-badge-stopped', 'title')).toBe('上次运行已被停止');
    expect(attr('.search-input', 'placeholder')).toBe('搜索研究');
    expect(attr('.conv-menu-btn', 'aria-label')).toBe('“Solar”的操作');
    expect(text('.btn-settings span')).toEqual(['设置']);
    expect(attr('nav.sidebar', 'aria-label')).toBe('对话');
  });

  it('labels the branch navigator in Chinese', async () => {
    await i18n.changeLanguage('zh-CN');
    act(() => root.render(<BranchNav index={1} count={3} disabled={false} onGo={() => {}} />));
    expect(attr('.branch-pos', 'aria-label')).toBe('第 2 个分支，共 3 个');
    expect(attr('.branch-prev', 'aria-label')).toBe('上一个分支');
    await act(() => i18n.changeLanguage('en'));
    expect(attr('.branch-pos', 'aria-label')).toBe('Branch 2 of 3');
    expect(attr('.branch-next', 'title')).toBe('Next branch (→)');
  });
});
