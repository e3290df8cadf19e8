// @vitest-environment jsdom
// The artifact UI in both languages: the version selector's labels, the history's notes,
// the activity's artifact verbs and the diff read English by default and Simplified
// Chinese once the UI's language is zh-CN.
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { firstPaintDone } from '../shared/first-paint';
import { declaredArtifact, type ArtifactVersion, type DeclaredArtifact } from '../api/artifacts';
import { artifactStepView } from '../chat/artifact-step';
import { ArtifactPanel, type ArtifactRow } from './ArtifactPanel';
import { ArtifactReader } from './ArtifactReader';
import { DeclaredList, locationText } from '../declared/DeclaredList';
import { kindIcon } from '../declared/declared-icons';
import { draftsHeadline } from '../chat/DraftsBanner';
import { DiffView } from './DiffView';
import { History } from './VersionHistory';
import { diffTexts } from './diff';
import { i18n } from '../i18n/i18n';
import { draftsNote, refLabel, updateTypeLabel, versionChoices, versionTitle } from './versions';

// The panel is rendered alone here: no first frame of the window's to wait for.
firstPaintDone();

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const v = (version: number, update_type: string): ArtifactVersion => ({
  version,
  update_type,
  source: update_type === 'user_edit' ? 'user' : 'agent',
  size: 100,
  message_id: '',
  message: '',
  created_at: '2026-11-26T10:00:00Z',
});

afterEach(async () => {
  await i18n.changeLanguage('en');
});

describe('version labels', () => {
  const stored = [v(1, 'create'), v(2, 'update'), v(4, 'user_edit')];

  it('read in Chinese in zh-CN', async () => {
    await i18n.changeLanguage('zh-CN');
    expect(versionChoices(stored, { version: 4, unsaved: false }).map((c) => c.label)).toEqual(['v4 · 当前', 'v2 · 已更新', 'v1 · 已创建']);
    const [live] = versionChoices(stored, { version: 6, unsaved: true });
    expect(live?.label).toBe('v6 · 草稿');
    expect(live?.title).toContain('实时草稿');
    expect(updateTypeLabel('')).toBe('已更改');
    expect(versionTitle(v(5, 'restore'), 2)).toBe('从 v2 恢复');
    expect(refLabel('current', { version: 5, unsaved: false })).toBe('v5（当前）');
    expect(draftsNote([v(4, 'create')], v(4, 'create'))).toBe('编号为 v4：研究在运行中分 4 步写成，只保留写完的文本，不保留每一步。');
    expect(updateTypeLabel('update_fuzzy')).toBe('已更新，请核对');
  });

  it('follow the language back to English', async () => {
    await i18n.changeLanguage('zh-CN');
    await i18n.changeLanguage('en');
    expect(versionChoices(stored, { version: 6, unsaved: true }).map((c) => c.label)).toEqual(['v6 · draft', 'v4 · Your edit', 'v2 · Updated', 'v1 · Created']);
  });
});

describe('artifact tool rows', () => {
  const result = '<artifact version="2"><id>report</id> Created</artifact>';

  it('name what the tool did in the UI language, keeping the backend verb in English', async () => {
    expect(artifactStepView('create_artifact', { content: 'x' }, result)?.verb).toBe('Created');
    await i18n.changeLanguage('zh-CN');
    expect(artifactStepView('create_artifact', { content: 'x' }, result)?.verb).toBe('已创建');
    expect(artifactStepView('read_artifact', {}, '<artifact id="r" version="1">hi</artifact>')?.verb).toBe('已读取');
    expect(artifactStepView('create_artifact', {}, '<artifact version="2"><id>r</id> Frobbed</artifact>')?.verb).toBe('Frobbed');
  });
});

describe('diff and reader', () => {
  let host: HTMLDivElement;
  let root: Root;
  beforeEach(() => {
    host = document.createElement('div');
    document.body.append(host);
    root = createRoot(host);
  });
  afterEach(() => {
    act(() => root.unmount());
    host.remove();
  });

  const lines = (n: number, last: string) => [...Array.from({ length: n }, (_, i) => `line ${String(i + 1)}`), last].join('\n');

  it('folds unchanged lines with a counted label in either language', async () => {
    const model = diffTexts(lines(20, 'old'), lines(20, 'new'));
    act(() => root.render(<DiffView model={model} mode="inline" labels={['v1', 'v2']} />));
    const fold = () => host.querySelector('.d-fold-btn')?.textContent;
    expect(fold()).toMatch(/^⋯ Show \d+ unchanged lines$/);
    const n = /\d+/.exec(fold() ?? '')?.[0];
    await act(() => i18n.changeLanguage('zh-CN'));
    expect(fold()).toBe(`⋯ 显示 ${n ?? ''} 行未更改的内容`);
    expect(host.querySelector('.d-del .sr-only')?.textContent).toBe('已删除：');
  });

  it('says two identical versions have no differences, in Chinese', async () => {
    await i18n.changeLanguage('zh-CN');
    act(() => root.render(<DiffView model={diffTexts('a', 'a')} mode="side" labels={['v1', 'v2']} />));
    expect(host.querySelector('.diff-empty strong')?.textContent).toBe('没有差异。');
  });

  it('labels the reader and its Close button in Chinese', async () => {
    await i18n.changeLanguage('zh-CN');
    act(() =>
      root.render(
        <ArtifactReader title="Report" meta="report · v2" onClose={() => {}}>
          <p>body</p>
        </ArtifactReader>,
      ),
    );
    const dialog = document.querySelector('dialog.reader');
    expect(dialog?.getAttribute('aria-label')).toBe('阅读器：Report');
    expect(dialog?.querySelector('.reader-head button')?.textContent.trim()).toBe('关闭 Esc');
  });
});

describe('the history in plain words', () => {
  it('says why the first version is v2 and asks to check an approximate edit, in either language', async () => {
    const host = document.createElement('div');
    document.body.appendChild(host);
    const root = createRoot(host);
    const versions = [v(2, 'create'), v(3, 'update_fuzzy')];
    const render = () => {
      act(() => {
        root.render(
          <History versions={versions} loading={false} error="" state={{ version: 3, unsaved: false }} restoredFrom={new Map()} shown="current" onView={() => undefined} onCompare={() => undefined} />,
        );
      });
    };
    render();
    const text = () => host.textContent;
    expect(text()).toContain('Numbered v2 after 2 steps of its run');
    expect(text()).toContain('Updated, please check');
    expect(text()).toContain('did not match the text exactly');
    expect(text()).not.toMatch(/draft of its run|approximate match/);
    await act(() => i18n.changeLanguage('zh-CN'));
    render();
    expect(text()).toContain('编号为 v2');
    expect(text()).toContain('请与上一版本比较核对');
    expect(text()).not.toContain('近似匹配');
    act(() => root.unmount());
    host.remove();
  });
});

describe('Links & files and recovered drafts', () => {
  let host: HTMLDivElement;
  let root: Root;
  beforeEach(() => {
    host = document.createElement('div');
    document.body.append(host);
    root = createRoot(host);
  });
  afterEach(() => {
    act(() => root.unmount());
    host.remove();
  });

  const art = (over: Partial<DeclaredArtifact> & { id: string }): DeclaredArtifact => {
    const a = declaredArtifact({ kind: 'link', storage: 'external_url', title: 'T', status: 'available', source: 'tool', ...over });
    if (a === null) throw new Error('no id');
    return a;
  };

  it('counts the drafts of the headline in either language', async () => {
    expect(draftsHeadline(1)).toBe('A research run was interrupted before it could save 1 artifact');
    expect(draftsHeadline(2)).toBe('A research run was interrupted before it could save 2 artifacts');
    await i18n.changeLanguage('zh-CN');
    expect(draftsHeadline(2)).toBe('一次研究运行在保存 2 个产物之前被中断了');
  });

  it('names kinds and client-kept artifacts in Chinese', async () => {
    await i18n.changeLanguage('zh-CN');
    expect(kindIcon('image').label).toBe('图片');
    expect(kindIcon('something').label).toBe('其他');
    expect(locationText(art({ id: 'm', storage: 'managed', managedId: 'x' }))).toBe('由客户端保管');
  });

  it('renders the list with its heading, badges and missing reasons in Chinese', async () => {
    const gone = art({ id: 'g', kind: 'pdf', storage: 'workspace', workspacePath: 'out/a.pdf', source: 'client', status: 'missing', missingReason: 'gone' });
    act(() => root.render(<DeclaredList conversationId="c1" items={[art({ id: 'l', url: 'https://example.com/x' }), gone]} onRemoved={() => {}} />));
    expect(host.querySelector('.declared-head h2')?.textContent).toBe('Links & files');
    await act(() => i18n.changeLanguage('zh-CN'));
    expect(host.querySelector('.declared-head h2')?.textContent).toBe('链接和文件');
    expect([...host.querySelectorAll('.declared-source')].map((b) => b.textContent)).toEqual(['工具', '客户端']);
    expect(host.querySelector('.declared-reason')?.textContent).toBe('缺失：gone');
    expect(host.querySelector('.declared-more')?.getAttribute('aria-label')).toBe('“T”的更多操作');
  });
});

describe('the artifact panel in Chinese', () => {
  let host: HTMLDivElement;
  let root: Root;
  const win = window as unknown as Record<string, unknown>;
  beforeEach(() => {
    host = document.createElement('div');
    document.body.append(host);
    root = createRoot(host);
    win.go = { app: { ArtifactService: { Versions: () => Promise.resolve([v(1, 'create'), v(2, 'update')]), ListDeclared: () => Promise.resolve([]) } } };
  });
  afterEach(() => {
    act(() => root.unmount());
    host.remove();
    delete win.go;
  });

  const row = (id: string, over: Partial<ArtifactRow> = {}): ArtifactRow => ({
    id,
    title: id === 'task_plan' ? 'Plan' : 'Report',
    contentType: 'text/markdown',
    version: 2,
    source: 'agent',
    size: 10,
    unsaved: false,
    content: '# Report',
    ...over,
  });

  it('shows the plan, tabs, version selector and actions in Chinese, and English again after switching back', async () => {
    await i18n.changeLanguage('zh-CN');
    await act(async () => {
      root.render(
        <ArtifactPanel
          conversationId="c1"
          rows={[row('task_plan', { content: '- [x] a\n- [ ] b' }), row('research_report')]}
          selectedId="research_report"
          onSelect={() => {}}
          running={false}
          onChanged={() => {}}
          onAddFiles={() => {}}
        />,
      );
      await import('./ArtifactViewer'); // a chunk loaded on demand (LazyArtifactViewer)
      await new Promise((r) => setTimeout(r, 0));
    });
    const text = (sel: string) => [...host.querySelectorAll(sel)].map((e) => e.textContent.trim());
    expect(text('.plan h2')).toEqual(['任务计划']);
    expect(host.querySelector('.plan-progress')?.getAttribute('aria-label')).toBe('已完成 1/2');
    expect(text('.panel-tab span:not(.count)')).toEqual(['产物', '来源']);
    expect(text('.artifact-row .badge')).toEqual(['智能体']);
    // The version list arrives after the viewer's first render.
    await vi.waitFor(() => expect(text('.viewer .tab')).toEqual(['预览', '源码', '历史2']));
    expect(text('.version-select option')).toEqual(['v2 · 当前', 'v1 · 已创建']);
    expect(text('.viewer-actions .btn-label')).toContain('比较');
    await act(() => i18n.changeLanguage('en'));
    expect(text('.version-select option')).toEqual(['v2 · current', 'v1 · Created']);
    expect(text('.viewer .tab')).toEqual(['Preview', 'Source', 'History2']);
  });
});
