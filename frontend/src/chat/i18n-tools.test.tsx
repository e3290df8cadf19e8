// @vitest-environment jsdom
// The sources, workspace and tool UI in Chinese: each piece rendered or called with the UI
// in zh-CN says it in Chinese, and in English again after switching back.
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { workspaceStatus, type Source } from '../api/conversations';
import { missingTitle, sourceMeta, webSummary } from '../sources/citations';
import { ActivityFlow } from './ActivityFlow';
import { CitationProvider, CiteChip } from '../sources/Citations';
import { compactionLabel } from './CompactionMarker';
import { ContextMeter } from './ContextMeter';
import { CopyButton } from '../markdown/CopyButton';
import { FindBar } from '../layout/FindBar';
import { Markdown } from '../markdown/Markdown';
import { ConfirmDialog } from '../shared/Modal';
import { PermissionDialog } from './PermissionDialog';
import { SourcesList } from '../sources/SourcesList';
import { Splitter } from '../layout/Splitter';
import { DropOverlay, UploadTray, type UploadItem } from '../files/Uploads';
import { statusLine } from '../files/WorkspaceBar';
import { applyEvents, emptyRunsState, type EventType, type RunEvent } from '../run/events';
import { formatUploadSize, MIB, uploadProblem } from '../files/files';
import { matchCount } from '../layout/find';
import { i18n } from '../i18n/i18n';
import { renderMarkdown } from '../markdown/markdown';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

// jsdom has <dialog> without showModal.
const proto = HTMLDialogElement.prototype as unknown as { showModal?: () => void; close?: () => void };
proto.showModal ??= function (this: HTMLDialogElement) {
  this.setAttribute('open', '');
};
proto.close ??= function (this: HTMLDialogElement) {
  this.removeAttribute('open');
};
Element.prototype.scrollIntoView = function scrollIntoView() {};

let root: Root | null = null;
const host = document.createElement('div');
document.body.appendChild(host);
const render = (node: React.ReactNode) =>
  act(async () => {
    root ??= createRoot(host);
    root.render(node);
    await Promise.resolve();
  });

beforeEach(async () => {
  await i18n.changeLanguage('zh-CN');
});
afterEach(async () => {
  act(() => root?.unmount());
  root = null;
  await i18n.changeLanguage('en');
});

const src = (n: number, over: Partial<Source> = {}): Source => ({
  n,
  kind: 'web',
  location: `https://site${String(n)}.example.org/a`,
  title: `Title ${String(n)}`,
  site: `site${String(n)}.example.org`,
  published: '',
  excerpt: '',
  fetched: false,
  message_id: 'm1',
  page: 0,
  line: 0,
  added_at: '2026-01-02T03:04:05Z',
  ...over,
});

describe('sources in Chinese', () => {
  it('the citation chip and its hover card', async () => {
    const moon = src(1, { title: 'Moon facts', fetched: true, excerpt: 'Mean distance 384,400 km.' });
    await render(
      <CitationProvider sources={[moon]}>
        <CiteChip n={1} />
        <CiteChip n={7} />
      </CitationProvider>,
    );
    const chip = host.querySelector<HTMLButtonElement>('button.cite');
    expect(chip?.getAttribute('aria-label')).toBe('来源 1：Moon facts');
    expect(host.querySelector('.cite-missing')?.getAttribute('title')).toBe('来源 7 不在本对话的来源列表中');
    await act(async () => {
      chip?.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
      chip?.dispatchEvent(new MouseEvent('mouseenter')); // as a pointer does, after mouseover
      await Promise.resolve();
    });
    const card = document.querySelector('.cite-card');
    expect(card?.textContent).toContain('已读取网页');
    expect(card?.textContent).toContain('点击或按 Enter 键在浏览器中打开');
    await act(() => i18n.changeLanguage('en'));
    expect(document.querySelector('.cite-card')?.textContent).toContain('page read');
    expect(host.querySelector('button.cite')?.getAttribute('aria-label')).toBe('Source 1: Moon facts');
  });

  it('the Sources tab, file places and the web tally', async () => {
    const pdf = src(2, { kind: 'file', location: 'notes/moon.pdf', title: 'moon.pdf', site: '', page: 3, fetched: true });
    await render(<SourcesList sources={[src(1), pdf]} />);
    expect(host.querySelector('input')?.getAttribute('placeholder')).toBe('筛选来源');
    expect(host.textContent).toContain('已列出');
    expect(host.textContent).toContain('notes/moon.pdf · 第 3 页');
    await render(<SourcesList sources={[]} />);
    expect(host.textContent).toContain('用 [n] 引用它');
    expect(sourceMeta(src(3, { kind: 'file', location: 'a.md', line: 12 }))).toBe('a.md · 第 12 行');
    expect(missingTitle(9)).toBe('来源 9 不在本对话的来源列表中');
    expect(webSummary({ searches: 5, searches_failed: 2, fetches: 1, fetches_failed: 0 })).toBe('5 次搜索（2 个失败） · 1 个网页');
    await act(() => i18n.changeLanguage('en'));
    expect(webSummary({ searches: 1, searches_failed: 0, fetches: 3, fetches_failed: 1 })).toBe('1 search · 3 pages (1 failed)');
  });
});

describe('workspace in Chinese', () => {
  it('refuses an oversized upload in Chinese and formats sizes', () => {
    expect(uploadProblem({ name: 'big.pdf', size: 20 * MIB + 1 }, 20)).toBe('“big.pdf”略大于 20 MB，超过了 20 MB 的上传上限（见设置）');
    expect(uploadProblem({ name: 'scan.pdf', size: Math.round(25.3 * MIB) }, 20)).toBe('“scan.pdf”大小为 25.3 MB，超过了 20 MB 的上传上限（见设置）');
    expect([formatUploadSize(1), formatUploadSize(512), formatUploadSize(1536)]).toEqual(['1 字节', '512 字节', '1.5 KB']);
  });

  it('the uploads tray and the drop overlay', async () => {
    const item = (over: Partial<UploadItem>): UploadItem => ({
      key: over.name ?? 'k',
      name: 'a.md',
      size: 10,
      status: 'done',
      error: '',
      note: '',
      readable: true,
      artifactId: 'a.md',
      conversationId: 'c1',
      ...over,
    });
    const noop = () => undefined;
    const big = uploadProblem({ name: 'big.pdf', size: 30 * MIB }, 20);
    await render(<UploadTray items={[item({}), item({ name: 'big.pdf', status: 'failed', error: big })]} onOpen={noop} onDismiss={noop} onClear={noop} />);
    expect(host.querySelector('h2')?.textContent).toBe('已添加 1 个，1 个失败');
    expect(host.textContent).toContain('“big.pdf”大小为 30 MB，超过了 20 MB 的上传上限（见设置）');
    expect(host.querySelector('.upload-dismiss')?.getAttribute('aria-label')).toBe('从列表中移除 a.md');
    await render(<DropOverlay hasConversation maxUploadMb={20} />);
    expect(host.textContent).toContain('松开鼠标，将文件添加到本研究');
    expect(host.textContent).toContain('每个不超过 20 MB');
  });

  it('the workspace status line, with plurals in English', async () => {
    const st = workspaceStatus({ conversation_id: 'c', folder: '/r', chosen: true, exists: true, files: 1234, uploads: 3, bytes: 0 });
    expect(statusLine(st, null, false)).toMatch(/^已索引 1,234 个文件（其中 3 个为上传）· /);
    expect(statusLine(workspaceStatus({ conversation_id: 'c' }), null, false)).toBe('尚未选择文件夹：选择一个，智能体就能搜索你的文件');
    await i18n.changeLanguage('en');
    const one = workspaceStatus({ conversation_id: 'c', folder: '/r', chosen: true, exists: true, files: 1, bytes: 0 });
    expect(statusLine(one, null, false)).toMatch(/^1 file indexed · /);
  });
});

describe('tools in Chinese', () => {
  it('the find bar count', () => {
    expect(matchCount(2, 12, 'x')).toBe('第 3 项，共 12 项');
    expect(matchCount(-1, 0, 'x')).toBe('无结果');
    expect(matchCount(-1, 0, '')).toBe('');
  });

  it('the find bar', async () => {
    const convo = document.createElement('div');
    convo.className = 'chat-scroll';
    convo.innerHTML = '<p>钠离子电池比锂离子电池便宜</p>';
    document.body.append(convo);
    try {
      await render(<FindBar />);
      await act(async () => {
        window.dispatchEvent(new KeyboardEvent('keydown', { key: 'f', ctrlKey: true, bubbles: true, cancelable: true }));
        await new Promise((r) => setTimeout(r, 5));
      });
      const input = host.querySelector<HTMLInputElement>('.find-bar input');
      expect(input?.placeholder).toBe('在对话中查找');
      await act(async () => {
        Reflect.set(HTMLInputElement.prototype, 'value', '离子', input);
        input?.dispatchEvent(new Event('input', { bubbles: true }));
        await new Promise((r) => setTimeout(r, 20));
      });
      // The bar searches a moment after the typing stops.
      await vi.waitFor(() => expect(host.querySelector('.find-count')?.textContent).toBe('第 1 项，共 2 项'));
    } finally {
      convo.remove();
    }
  });

  it('the permission dialog: its buttons, question and countdown', async () => {
    let seq = 0;
    const ev = (type: EventType, agent: string, data: Record<string, unknown>): RunEvent => ({
      type,
      conversation_id: 'c1',
      message_id: 'm1',
      seq: ++seq,
      agent_name: agent || undefined,
      created_at: new Date().toISOString(),
      data,
    });
    const runs = applyEvents(emptyRunsState(), [
      ev('metadata', '', { content: 'Q', model: 'm', tool_call_mode: 'native' }),
      ev('agent_start', 'lead_agent', { round: 0 }),
      ev('permission_request', 'crawl_agent', { request_id: 'r1', tool: 'web_fetch', params: { url: 'https://example.org/a' }, timeout_ms: 600_000 }),
    ]);
    await render(<PermissionDialog runs={runs} selectedId="c1" conversations={[]} />);
    const dialog = host.querySelector('dialog');
    expect(dialog?.getAttribute('aria-label')).toBe('允许 web_fetch 吗？');
    const buttons = Array.from(dialog?.querySelectorAll('.modal-foot button') ?? []).map((b) => b.textContent);
    expect(buttons).toEqual(['拒绝 Esc', '始终允许', '允许 Enter']);
    expect(dialog?.querySelector('.perm-what')?.innerHTML).toBe('<strong>crawl_agent</strong> 想要获取这个网页：');
    expect(dialog?.querySelector('.perm-head')?.textContent).toBe('研究已暂停：web_fetch 被设置为先征求你的同意。');
    expect(dialog?.querySelector('[role="timer"]')?.getAttribute('aria-label')).toMatch(/^\d+:\d\d 后自动拒绝$/);
    expect(dialog?.querySelector('.modal-head button')?.getAttribute('aria-label')).toBe('关闭');
    await act(() => i18n.changeLanguage('en'));
    expect(Array.from(dialog?.querySelectorAll('.modal-foot button') ?? []).map((b) => b.textContent)).toEqual(['Deny Esc', 'Always allow', 'Approve Enter']);
    expect(dialog?.querySelector('.perm-what')?.textContent).toBe('crawl_agent wants to fetch this page:');
  });

  it('the activity summary, compaction marker and context meter', async () => {
    const runs = applyEvents(emptyRunsState(), [
      { type: 'metadata', conversation_id: 'c1', message_id: 'm1', seq: 1, created_at: '2026-01-02T03:04:05Z', data: { content: 'Q' } },
      { type: 'agent_start', conversation_id: 'c1', message_id: 'm1', seq: 2, agent_name: 'lead_agent', created_at: '2026-01-02T03:04:05Z', data: { round: 0 } },
    ]);
    const run = runs.conversations.c1?.runs.m1;
    expect(run).toBeDefined();
    await render(<ActivityFlow run={{ ...run!, status: 'complete' }} live={false} />);
    expect(host.querySelector('.activity-title')?.textContent).toBe('过程');
    expect(host.querySelector('.activity-sum')?.textContent).toContain('1 个智能体 · 0 次工具调用');
    expect(compactionLabel({ agent: 'lead_agent', status: 'done', tokensBefore: 41_000, tokensAfter: 3_000 })).toMatch(/^上下文已压缩：.+ → .+ 个 token$/);
    expect(compactionLabel({ agent: 'crawl_agent', status: 'running', tokensBefore: 0, tokensAfter: 0 })).toBe('正在为 crawl_agent 压缩上下文…');
    await render(<ContextMeter used={0} window={128_000} compactAtPercent={80} />);
    expect(host.querySelector('.ctx-label')?.textContent).toBe('上下文');
    expect(host.querySelector('.ctx-meter')?.getAttribute('title')).toBe('上下文窗口：128,000 个 token；超过 80% 后会总结历史记录。');
  });

  it('copy buttons, Load images, blocked images and task marks', async () => {
    await render(<CopyButton text={() => 'x'} label="复制回答" />);
    expect(host.querySelector('button')?.textContent).toBe('复制');
    const html = renderMarkdown('```\ncode\n```\n\n- [x] done\n\n![chart](https://evil.example/c.png)', { copyCode: true });
    const box = document.createElement('div');
    box.innerHTML = html;
    expect(box.querySelector('.code-copy')?.getAttribute('aria-label')).toBe('复制代码');
    expect(box.querySelector('.task-mark')?.getAttribute('aria-label')).toBe('已完成');
    expect(box.querySelector('img')?.getAttribute('alt')).toBe('chart（远程图片未加载）');
    await render(<Markdown source={'```\ncode\n```\n\n![chart](https://evil.example/c.png)'} copyCode />);
    expect(host.querySelector('.load-images')?.textContent).toBe('加载图片');
    const md = host.querySelector<HTMLElement>('.markdown');
    expect(md?.hasAttribute('style')).toBe(false); // untrusted text's container carries no inline style
    expect(document.documentElement.style.getPropertyValue('--code-copied-label')).toBe('"已复制"');
    expect(md?.querySelector('.code-copy')?.getAttribute('aria-label')).toBe('复制代码');
    await act(() => i18n.changeLanguage('en'));
    expect(host.querySelector('.load-images')?.textContent).toBe('Load images');
    expect(document.documentElement.style.getPropertyValue('--code-copied-label')).toBe('"Copied"');
    expect(host.querySelector('.code-copy')?.getAttribute('aria-label')).toBe('Copy code');
  });

  it('the confirm dialog and the splitter', async () => {
    const noop = () => undefined;
    await render(<ConfirmDialog title="删除？" message="确定吗" confirmLabel="删除" onConfirm={noop} onCancel={noop} />);
    expect(host.querySelector('.modal-foot button')?.textContent).toBe('取消');
    await render(
      <Splitter label="调整侧栏宽度" value={240} min={180} max={480} direction={1} position={{ left: 240 }} onResize={noop} onReset={noop} onCollapse={noop} />,
    );
    const sep = host.querySelector('[role="separator"]');
    expect(sep?.getAttribute('aria-valuetext')).toBe('240 像素');
    expect(sep?.getAttribute('title')).toBe('调整侧栏宽度：拖动，或聚焦后用方向键调整；双击恢复默认宽度');
  });
});
