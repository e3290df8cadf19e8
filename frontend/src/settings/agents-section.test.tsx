// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { lineSpan, suggestAgentName } from './agent-files';
import { AgentsSection } from './AgentsSection';
import { RunWarnings } from '../chat/RunWarnings';
import { applyEvents, emptyRunsState, type RunEvent } from '../run/events';
import { i18n } from '../i18n/i18n';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

type Loose = Record<string, unknown>;
const win = window as unknown as Loose;

const TEMPLATE = (name: string) => `---\nname: ${name}\ndescription: Reviews.\ntools: read_artifact\nmodel: inherit\nmax_rounds: 10\n---\n\nYou are ${name}.\n`;

/**
 * A backend standing in for SettingsService's agent-file methods over an in-memory folder.
 * Its check is the backend's for the cases the tests use: a tools line naming "foo" is an
 * unknown tool on that line.
 */
function fakeBackend(files: Record<string, string>) {
  const problemsOf = (file: string, text: string) => {
    const lines = text.split('\n');
    const i = lines.findIndex((l) => l.startsWith('tools:') && l.includes('foo'));
    return i < 0 ? [] : [{ file, line: i + 1, field: 'tools', message: 'unknown tool "foo"', text: `${file}:${String(i + 1)}: tools: unknown tool "foo"` }];
  };
  const nameOf = (text: string) => /^name: (.*)$/m.exec(text)?.[1] ?? '';
  return {
    files,
    UserAgents: vi.fn(() =>
      Promise.resolve({
        dir: '/data/agents',
        built_in: [
          { name: 'lead_agent', description: 'Task coordinator', tools: ['create_artifact', 'call_subagent'], max_rounds: 100 },
          { name: 'search_agent', description: 'Web search specialist', tools: ['web_search', 'search_files'], max_rounds: 3 },
        ],
        user: Object.keys(files)
          .sort()
          .map((file) => ({
            file,
            name: nameOf(files[file] ?? ''),
            description: 'Reviews.',
            tools: ['read_artifact'],
            model: 'inherit',
            max_rounds: 10,
            problems: problemsOf(file, files[file] ?? ''),
          })),
        tools: ['read_artifact', 'web_search'],
      }),
    ),
    ReadUserAgent: vi.fn((file: string) => (file in files ? Promise.resolve(files[file]) : Promise.reject(new Error('{"code":"not_found","message":"Not found"}')))),
    SaveUserAgent: vi.fn((file: string, text: string) => {
      files[file] = text;
      return Promise.resolve(problemsOf(file, text));
    }),
    NewUserAgent: vi.fn((name: string) => {
      if (name === 'search_agent') {
        return Promise.reject(new Error(JSON.stringify({ code: 'validation', message: 'name: taken', fields: { name: '"search_agent" is the name of a built-in agent; choose another' } })));
      }
      files[`${name}.md`] = TEMPLATE(name);
      return Promise.resolve(`${name}.md`);
    }),
    DeleteUserAgent: vi.fn((file: string) => {
      Reflect.deleteProperty(files, file);
      return Promise.resolve();
    }),
  };
}

let root: Root | null = null;
const host = document.createElement('div');
document.body.appendChild(host);
let svc: ReturnType<typeof fakeBackend>;

beforeEach(() => {
  svc = fakeBackend({ 'broken.md': '---\nname: broken\ndescription: Broken.\ntools: [foo]\n---\nBody.\n' });
  win.go = { app: { SettingsService: svc } };
});

afterEach(async () => {
  act(() => root?.unmount());
  root = null;
  delete win.go;
  await act(() => i18n.changeLanguage('en'));
});

const settle = () => act(() => new Promise((r) => setTimeout(r, 0)));

async function render() {
  await act(async () => {
    root ??= createRoot(host);
    root.render(<AgentsSection />);
    await Promise.resolve();
  });
  await settle();
}

const button = (text: string) => {
  const b = [...host.querySelectorAll('button')].find((x) => x.textContent.trim() === text);
  if (!b) throw new Error(`no button ${text}`);
  return b;
};

async function click(el: Element) {
  await act(async () => {
    el.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    await Promise.resolve();
  });
  await settle();
}

function typeInto(el: HTMLInputElement | HTMLTextAreaElement, value: string) {
  act(() => {
    const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
    Object.getOwnPropertyDescriptor(proto, 'value')?.set?.call(el, value);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

async function submitNew(name: string) {
  const input = host.querySelector<HTMLInputElement>('.agent-new input');
  const form = host.querySelector('form.agent-new');
  if (!input || !form) throw new Error('no new-agent form');
  typeInto(input, name);
  await act(async () => {
    form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    await Promise.resolve();
  });
  await settle();
}

const editor = () => host.querySelector<HTMLTextAreaElement>('textarea');
const rows = () => [...host.querySelectorAll<HTMLElement>('[data-testid="user-agent"]')];

describe('Settings → Agents', () => {
  it('lists the built-in agents read-only with their tools, and each file with Ready or its problems by line', async () => {
    await render();
    const builtIn = host.querySelector('[data-testid="built-in-agents"]')?.textContent ?? '';
    expect(builtIn).toContain('search_agent');
    expect(builtIn).toContain('web_search, search_files');
    expect(builtIn).toContain('up to 3 tool rounds');
    expect(host.querySelectorAll('[data-testid="built-in-agents"] button')).toHaveLength(0);
    expect(host.textContent).toContain('/data/agents');
    const [broken] = rows();
    expect(broken?.textContent).toContain('skipped: 1 problem');
    expect(broken?.querySelector('[data-line="4"]')?.textContent).toBe('Line 4: tools: unknown tool "foo"');
  });

  it('creates an agent from the template and opens it in the editor', async () => {
    await render();
    await submitNew('Fact Checker');
    expect(svc.NewUserAgent).toHaveBeenCalledWith('fact-checker');
    expect(editor()?.value).toBe(TEMPLATE('fact-checker'));
    expect(rows().map((r) => r.dataset.file)).toEqual(['broken.md', 'fact-checker.md']);
    expect(rows()[1]?.textContent).toContain('ready');
  });

  it('saves content with a problem, shows it with its line and keeps the text; a click selects that line; fixed, it is ready', async () => {
    await render();
    await submitNew('reviewer');
    const area = editor();
    if (!area) throw new Error('no editor');
    const bad = TEMPLATE('reviewer').replace('tools: read_artifact', 'tools: read_artifact, foo');
    typeInto(area, bad);
    expect(button('Discard changes')).toBeTruthy();
    await click(button('Save'));
    expect(svc.SaveUserAgent).toHaveBeenLastCalledWith('reviewer.md', bad);
    const problems = host.querySelector('#agent-editor-problems');
    expect(problems?.textContent).toContain('Line 4: tools: unknown tool "foo"');
    expect(host.textContent).toContain('runs skip this agent until these problems are fixed');
    expect(editor()?.value).toBe(bad);
    expect(editor()?.getAttribute('aria-invalid')).toBe('true');
    const line = problems?.querySelector('button');
    if (!line) throw new Error('no line button');
    await click(line);
    const a = editor();
    expect(a?.value.slice(a.selectionStart, a.selectionEnd)).toBe('tools: read_artifact, foo');
    expect(rows()[1]?.textContent).toContain('skipped: 1 problem');

    typeInto(editor() as HTMLTextAreaElement, TEMPLATE('reviewer'));
    await click(button('Save'));
    expect(host.querySelector('#agent-editor-problems')).toBeNull();
    expect(host.textContent).toContain('Saved. The agent is ready for the next question.');
    expect(rows()[1]?.textContent).toContain('ready');
  });

  it("shows why a name is refused under the name field and creates nothing", async () => {
    await render();
    await submitNew('search_agent');
    expect(host.querySelector('#agent-new-error')?.textContent).toBe('"search_agent" is the name of a built-in agent; choose another');
    expect(editor()).toBeNull();
    expect(rows()).toHaveLength(1);
  });

  it('deletes a file only after a second click', async () => {
    await render();
    await click(button('Delete'));
    expect(svc.DeleteUserAgent).not.toHaveBeenCalled();
    expect(host.textContent).toContain('Delete broken.md?');
    await click(button('Delete'));
    expect(svc.DeleteUserAgent).toHaveBeenCalledWith('broken.md');
    expect(rows()).toHaveLength(0);
    expect(host.textContent).toContain('None yet');
  });

  it('is hidden when the backend has no agent files', async () => {
    win.go = { app: { SettingsService: {} } };
    await render();
    expect(host.querySelector('[data-testid="agents-section"]')).toBeNull();
  });

  it('speaks Chinese', async () => {
    await act(() => i18n.changeLanguage('zh-CN'));
    await render();
    expect(host.textContent).toContain('内置');
    expect(rows()[0]?.textContent).toContain('第 4 行：');
    // The built-in agents' descriptions are worded in Chinese too, not the backend's English.
    const builtIn = host.querySelector('[data-testid="built-in-agents"]')?.textContent ?? '';
    expect(builtIn).toContain('任务协调与信息整合');
    expect(builtIn).toContain('网络搜索与信息检索专家');
    expect(builtIn).not.toContain('Task coordinator');
  });
});

describe('a run’s warnings', () => {
  it('come from the metadata event and are shown under the question with a way to Settings', async () => {
    const ev: RunEvent = {
      type: 'metadata', conversation_id: 'c', message_id: 'm', seq: 1, created_at: '2026-01-02T03:04:05Z',
      data: { content: 'q', model: 'x', tool_call_mode: 'native', warnings: ['broken.md:4: tools: unknown tool "foo" (the agent is skipped)', 7] },
    };
    const run = applyEvents(emptyRunsState(), [ev]).conversations.c?.runs.m;
    expect(run?.warnings).toEqual(['broken.md:4: tools: unknown tool "foo" (the agent is skipped)']);
    const open = vi.fn();
    await act(async () => {
      root ??= createRoot(host);
      root.render(<RunWarnings warnings={run?.warnings ?? []} onOpenSettings={open} />);
      await Promise.resolve();
    });
    expect(host.textContent).toContain('1 warning');
    expect(host.textContent).toContain('broken.md:4: tools: unknown tool "foo"');
    await click(button('Fix it in Settings → Agents'));
    expect(open).toHaveBeenCalled();
  });

  it('say a coded warning (a picture not sent) in the UI’s language, and the others as sent', async () => {
    const ev: RunEvent = {
      type: 'metadata', conversation_id: 'c', message_id: 'm', seq: 1, created_at: '2026-01-02T03:04:05Z',
      data: {
        content: 'q', model: 'deepseek-chat', tool_call_mode: 'native',
        warnings: ['', 'broken.md:4: tools: unknown tool "foo"', 'The model deepseek-chat is not shown pictures …'],
        warning_codes: [{ index: 2, code: 'picture_not_shown', params: { model: 'deepseek-chat', names: '"chart.png"' } }, { index: 9, code: 'x' }],
      },
    };
    const run = applyEvents(emptyRunsState(), [ev]).conversations.c?.runs.m;
    expect(run?.warningCodes).toEqual([null, { code: 'picture_not_shown', params: { model: 'deepseek-chat', names: '"chart.png"' } }]);
    const show = async () => {
      await act(async () => {
        root ??= createRoot(host);
        root.render(<RunWarnings warnings={run?.warnings ?? []} codes={run?.warningCodes} />);
        await Promise.resolve();
      });
    };
    await act(() => i18n.changeLanguage('zh-CN'));
    await show();
    expect(host.textContent).toContain('模型 deepseek-chat 不接收图片');
    expect(host.textContent).toContain('"chart.png"');
    expect(host.textContent).toContain('broken.md:4: tools: unknown tool "foo"');
    expect(host.textContent).not.toContain('is not shown pictures');
    await act(() => i18n.changeLanguage('en'));
    await show();
    expect(host.textContent).toContain('The model deepseek-chat is not shown pictures (its “Sees pictures” switch is off');
  });
});

describe('agent-files helpers', () => {
  it.each([
    ['a\nbb\nccc', 2, 'bb'],
    ['a\nbb\nccc', 3, 'ccc'],
    ['a\nbb\nccc', 1, 'a'],
    ['a\nbb', 9, ''],
    ['', 1, ''],
  ])('lineSpan(%j, %i) selects %j', (text, line, want) => {
    const [s, e] = lineSpan(text, line);
    expect(text.slice(s, e)).toBe(want);
  });

  it('suggests a name from what was typed', () => {
    expect(suggestAgentName('  Fact Checker ')).toBe('fact-checker');
  });
});
