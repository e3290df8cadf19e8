// @vitest-environment jsdom
// Settings → MCP servers (ToolsSettings) against a stand-in SettingsService, and the labels an
// MCP tool call gets in the activity and the permission prompt.
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MCP_SECRET_MASK } from '../api/mcp';
import { permissionSubject } from '../run/input-reducers';
import { ActivityFlow } from '../chat/ActivityFlow';
import { typedOverMask } from './McpServerForm';
import { PermissionDialog } from '../chat/PermissionDialog';
import { ToolsSettings } from './ToolsSettings';
import { applyEvents, emptyRunsState, type EventType, type RunEvent, type ToolStep } from '../run/events';
import { describeStep } from '../shared/format';
import { i18n } from '../i18n/i18n';
import { buildMcpInput, mcpFormOf } from './mcp-form';
import { parseMcpToolName } from '../shared/mcp-names';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

type Loose = Record<string, unknown>;
const win = window as unknown as Loose;
const proto = HTMLDialogElement.prototype as unknown as Loose;
proto.showModal ??= function (this: HTMLDialogElement) {
  this.setAttribute('open', '');
};
proto.close ??= function (this: HTMLDialogElement) {
  this.removeAttribute('open');
};

const tool = (name: string, enabled = true) => ({ name, qualified_name: `mcp__everything__${name}`, title: '', description: `${name} tool`, enabled, read_only: false });

/** A server view as the backend sends it, with `over` applied. */
const view = (name: string, over: Loose = {}): Loose => ({
  name,
  command: 'node',
  args: ['/opt/everything/index.js', 'stdio'],
  cwd: '',
  url: '',
  env: {},
  headers: {},
  transport: '',
  agents: ['search_agent', 'crawl_agent'],
  permission: 'confirm',
  disabled: false,
  disabled_tools: [],
  timeout_seconds: 60,
  state: 'stopped',
  active_transport: '',
  error: '',
  log_tail: [],
  stdout_junk: 0,
  retry_in_seconds: 0,
  tools: [],
  ...over,
});

const appError = (code: string, message: string, fields?: Record<string, string>) => new Error(JSON.stringify({ code, message, fields }));

let servers: Loose[] = [];
const makeService = () => ({
  MCPServers: vi.fn(() => Promise.resolve(servers)),
  SaveMCPServer: vi.fn((_name: string, _input: Loose) => Promise.resolve()),
  RemoveMCPServer: vi.fn((_name: string) => Promise.resolve()),
  ImportMCPServers: vi.fn((_text: string) => Promise.resolve({ imported: ['a', 'b'], ignored: ['a.autoApprove'] })),
  TestMCPServer: vi.fn((_name: string) => Promise.resolve({ ok: true, tools: [tool('echo'), tool('add')], error: '', log_tail: [], duration_ms: 420 })),
  MCPServerLog: vi.fn((_name: string) => Promise.resolve('started pid 42\nrunning with 2 tools\n')),
  SetMCPToolEnabled: vi.fn((_name: string, _tool: string, _on: boolean) => Promise.resolve()),
});
let svc: ReturnType<typeof makeService>;

let root: Root | null = null;
const host = document.createElement('div');
document.body.appendChild(host);
const flush = () => act(() => new Promise((r) => setTimeout(r, 0)));

async function open() {
  await act(async () => {
    root ??= createRoot(host);
    root.render(<ToolsSettings />);
    await Promise.resolve();
  });
  await flush();
  await flush();
}

beforeEach(() => {
  servers = [];
  svc = makeService();
  win.go = { app: { SettingsService: svc } };
  win.runtime = {}; // the desktop window (browser mode sets __browserMode)
});

afterEach(async () => {
  act(() => root?.unmount());
  root = null;
  delete win.go;
  delete win.runtime;
  await i18n.changeLanguage('en');
});

const card = (name: string) => host.querySelector<HTMLElement>(`[data-server="${name}"]`);
const button = (scope: ParentNode, text: string) => {
  const b = Array.from(scope.querySelectorAll<HTMLButtonElement>('button')).find((x) => x.textContent.trim() === text);
  if (!b) throw new Error(`no button "${text}" in ${(scope as HTMLElement).textContent}`);
  return b;
};
const click = async (el: HTMLElement) => {
  await act(async () => {
    el.click();
    await Promise.resolve();
  });
  await flush();
};
/** Sets an input's or textarea's value as typing does (React's onChange). */
const type = async (el: HTMLInputElement | HTMLTextAreaElement, value: string) => {
  const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  await act(async () => {
    Object.getOwnPropertyDescriptor(proto, 'value')?.set?.call(el, value);
    el.dispatchEvent(new Event('input', { bubbles: true }));
    await Promise.resolve();
  });
};
const key = async (el: HTMLElement, k: string, extra: KeyboardEventInit = {}) => {
  let prevented = false;
  await act(async () => {
    const ev = new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true, ...extra });
    el.dispatchEvent(ev);
    prevented = ev.defaultPrevented;
    await Promise.resolve();
  });
  await flush();
  return prevented;
};
const field = (label: string): HTMLInputElement | HTMLTextAreaElement => {
  const l = Array.from(host.querySelectorAll('label.field')).find((x) => x.querySelector('.label')?.textContent === label);
  const el = l?.querySelector<HTMLInputElement | HTMLTextAreaElement>('input, textarea');
  if (!el) throw new Error(`no field "${label}"`);
  return el;
};

describe('the server list', () => {
  it('shows each state: not started, starting, running with its tools, failed with the error and log lines, off', async () => {
    servers = [
      view('idle'),
      view('booting', { state: 'starting' }),
      view('everything', { state: 'running', tools: [tool('echo'), tool('add'), tool('longRunningOperation', false)], permission: 'auto' }),
      view('broken', { command: '/bin/false', args: [], state: 'failed', error: 'server exited during start: exit status 1', log_tail: ['boom: missing module', 'exited with status 1'], retry_in_seconds: 4 }),
      view('docs', { command: '', args: [], url: 'https://docs.example.com/mcp', headers: { Authorization: MCP_SECRET_MASK }, disabled: true, state: 'disabled', agents: ['reviewer'] }),
    ];
    await open();
    const state = (n: string) => card(n)?.querySelector('.mcp-state')?.textContent;
    expect(state('idle')).toBe('Not started — starts at first use');
    expect(state('booting')).toBe('Starting…');
    expect(state('everything')).toBe('Running · 3 tools');
    expect(state('broken')).toBe('Failed');
    expect(state('docs')).toBe('Off');
    expect(card('everything')?.querySelector('.mcp-where')?.textContent).toBe('node /opt/everything/index.js stdio');
    expect(card('everything')?.querySelector('.badge')?.textContent).toBe('stdio');
    expect(card('everything')?.querySelector('.mcp-meta')?.textContent).toBe('For search_agent, crawl_agent·runs without asking·timeout 60 s');
    expect(card('idle')?.querySelector('.mcp-meta')?.textContent).toContain('asks before each call');
    const failure = card('broken')?.querySelector('.mcp-failure');
    expect(failure?.querySelector('.mcp-error')?.textContent).toBe('server exited during start: exit status 1');
    expect(failure?.querySelector('.mcp-log-tail')?.textContent).toBe('boom: missing module\nexited with status 1');
    expect(failure?.textContent).toContain('It may start again in 4 s.');
    expect(card('idle')?.querySelector('.mcp-failure')).toBeNull();
    expect(card('docs')?.querySelector('.mcp-where')?.textContent).toBe('https://docs.example.com/mcp');
    expect(card('docs')?.querySelector('.badge')?.textContent).toBe('HTTP');
    expect(card('docs')?.querySelector<HTMLInputElement>('[role="switch"]')?.checked).toBe(false);
    expect(card('everything')?.querySelector<HTMLInputElement>('[role="switch"]')?.checked).toBe(true);
    // No secret value is ever in the page: only the mask the backend sent.
    expect(host.innerHTML).not.toContain('Bearer');
  });

  it('says so when there are none, and renders nothing on a backend without MCP servers', async () => {
    await open();
    expect(host.querySelector('.mcp-empty')?.textContent).toContain('No MCP servers yet');
    act(() => root?.unmount());
    root = null;
    win.go = { app: { SettingsService: {} } };
    await open();
    expect(host.querySelector('[data-testid="mcp-servers"]')).toBeNull();
  });

  it('shows the list in Chinese', async () => {
    await i18n.changeLanguage('zh-CN');
    servers = [view('everything', { state: 'running', tools: [tool('echo')] }), view('broken', { state: 'failed', error: 'x' })];
    await open();
    expect(host.querySelector('legend')?.textContent).toBe('MCP 服务器');
    expect(card('everything')?.querySelector('.mcp-state')?.textContent).toBe('运行中 · 1 个工具');
    expect(card('broken')?.querySelector('.mcp-state')?.textContent).toBe('失败');
    expect(button(host, '添加服务器')).toBeTruthy();
  });
});

describe('per server', () => {
  it('Test lists the tools (calling none), then each tool switch saves its state', async () => {
    servers = [view('everything')];
    await open();
    svc.MCPServers.mockImplementation(() => Promise.resolve([view('everything', { state: 'running', tools: [tool('echo'), tool('add')] })]));
    await click(button(card('everything')!, 'Test'));
    expect(svc.TestMCPServer).toHaveBeenCalledWith('everything');
    expect(card('everything')?.querySelector('.mcp-test')?.textContent).toBe('Found 2 tools in 420 ms; none was called.');
    expect(card('everything')?.querySelector('.mcp-state')?.textContent).toBe('Running · 2 tools');
    const switches = card('everything')!.querySelectorAll<HTMLInputElement>('.mcp-tools [role="switch"]');
    expect(Array.from(switches).map((s) => s.getAttribute('aria-label'))).toEqual(['Offer echo', 'Offer add']);
    await click(switches[0]!);
    expect(svc.SetMCPToolEnabled).toHaveBeenCalledWith('everything', 'echo', false);
    expect(svc.MCPServers).toHaveBeenCalledTimes(3); // loaded again after the test and after the switch
  });

  it('a failed Test shows the error and the log lines', async () => {
    servers = [view('broken', { command: '/bin/false', args: [] })];
    svc.TestMCPServer.mockImplementation(() => Promise.resolve({ ok: false, tools: [], error: 'connection closed: EOF', log_tail: ['no such file'] as never[], duration_ms: 12 }));
    await open();
    await click(button(card('broken')!, 'Test'));
    expect(card('broken')?.querySelector('.mcp-test')?.textContent).toBe('Failed: connection closed: EOF');
    expect(card('broken')?.querySelector('.mcp-test')?.className).toContain('err');
    expect(card('broken')?.querySelector('.mcp-log-tail')?.textContent).toBe('no such file');
    // Once the list has it failed, the card's failure box says it: the result points there.
    svc.MCPServers.mockImplementation(() => Promise.resolve([view('broken', { state: 'failed', error: 'connection closed: EOF', log_tail: ['no such file'] })]));
    await click(button(card('broken')!, 'Test'));
    expect(card('broken')?.querySelector('.mcp-test')?.textContent).toBe("The test failed: the error and the log's last lines are above.");
    expect(card('broken')?.querySelectorAll('.mcp-log-tail').length).toBe(1);
    expect(card('broken')?.querySelector('.mcp-failure .mcp-error')?.textContent).toBe('connection closed: EOF');
  });

  it('View log shows the log in a focusable monospace box', async () => {
    servers = [view('everything')];
    await open();
    await click(button(card('everything')!, 'View log'));
    expect(svc.MCPServerLog).toHaveBeenCalledWith('everything');
    const log = card('everything')?.querySelector<HTMLElement>('pre.mcp-log');
    expect(log?.textContent).toBe('started pid 42\nrunning with 2 tools\n');
    expect(log?.tabIndex).toBe(0);
    expect(log?.getAttribute('aria-label')).toBe('Log of everything');
    await click(button(card('everything')!, 'Hide log'));
    expect(card('everything')?.querySelector('pre.mcp-log')).toBeNull();
  });

  it('Remove asks first: Escape or Cancel keeps the server, Remove removes it', async () => {
    servers = [view('everything')];
    await open();
    await click(button(card('everything')!, 'Remove'));
    const confirm = card('everything')!.querySelector<HTMLElement>('.mcp-confirm')!;
    expect(confirm.textContent).toContain('Remove everything? Its log is kept.');
    expect(document.activeElement?.textContent).toBe('Cancel');
    await key(document.activeElement as HTMLElement, 'Escape');
    expect(card('everything')?.querySelector('.mcp-confirm')).toBeNull();
    expect(svc.RemoveMCPServer).not.toHaveBeenCalled();
    await click(button(card('everything')!, 'Remove'));
    servers = [];
    await click(button(card('everything')!.querySelector('.mcp-confirm')!, 'Remove'));
    expect(svc.RemoveMCPServer).toHaveBeenCalledWith('everything');
    expect(card('everything')).toBeNull();
  });

  it('the on/off switch saves the server as it is, secrets masked, with disabled flipped', async () => {
    servers = [view('everything', { env: { TOKEN: MCP_SECRET_MASK }, agents: ['search_agent'] })];
    await open();
    await click(card('everything')!.querySelector<HTMLInputElement>('.mcp-server-head [role="switch"]')!);
    expect(svc.SaveMCPServer).toHaveBeenCalledWith(
      'everything',
      expect.objectContaining({ command: 'node', env: { TOKEN: MCP_SECRET_MASK }, agents: ['search_agent'], disabled: true, previous_name: '' }),
    );
  });
});

describe('the add form', () => {
  it('checks the fields before sending and says what is wrong under each', async () => {
    servers = [view('everything')];
    await open();
    await click(button(host, 'Add server'));
    expect(document.activeElement).toBe(field('Name'));
    await click(button(host, 'Add'));
    expect(svc.SaveMCPServer).not.toHaveBeenCalled();
    const errors = Array.from(host.querySelectorAll('.mcp-form .field-error')).map((e) => e.textContent);
    expect(errors).toEqual(['Use 1–64 letters, digits, _ or -.', 'Type the program to run (npx, uvx, node, or an absolute path).']);
    expect(field('Name').getAttribute('aria-invalid')).toBe('true');
    await type(field('Name'), 'everything');
    await type(field('Command'), './run.sh');
    await type(field('Timeout'), '0');
    await click(button(host, 'Add'));
    expect(Array.from(host.querySelectorAll('.mcp-form .field-error')).map((e) => e.textContent)).toEqual([
      'A server named everything exists: choose another name, or edit that one.',
      'Use a program found on PATH or an absolute path, not a relative path.',
      'Use a whole number of seconds from 1 to 3600.',
    ]);
    // Unticking every agent would mean the default agents: the form asks for one.
    for (const box of host.querySelectorAll<HTMLInputElement>('.mcp-agents input[type="checkbox"]')) await click(box);
    await click(button(host, 'Add'));
    expect(host.querySelector('.mcp-agents .field-error')?.textContent).toBe('Choose at least one agent.');
    expect(svc.SaveMCPServer).not.toHaveBeenCalled();
  });

  it('adds a local server with Enter: arguments one per line, env values as typed; then closes', async () => {
    await open();
    await click(button(host, 'Add server'));
    await type(field('Name'), 'files');
    await type(field('Command'), 'npx');
    await type(field('Arguments'), '-y\n@modelcontextprotocol/server-filesystem\n\n/home/u/notes ');
    await click(button(host, '+ Variable'));
    const [envName, envValue] = Array.from(host.querySelectorAll<HTMLInputElement>('[data-rows="env"] .mcp-row input'));
    await type(envName!, 'API_TOKEN');
    await type(envValue!, 'tok-123');
    expect(envValue!.type).toBe('password');
    servers = [view('files')];
    expect(await key(field('Command') as HTMLInputElement, 'Enter')).toBe(true); // never the settings form's submit
    expect(svc.SaveMCPServer).toHaveBeenCalledWith('files', {
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/u/notes'],
      cwd: '',
      url: '',
      env: { API_TOKEN: 'tok-123' },
      headers: {},
      transport: '',
      agents: ['search_agent', 'crawl_agent'],
      permission: 'confirm',
      disabled: false,
      disabled_tools: [],
      timeout_seconds: 60,
      previous_name: '',
    });
    expect(host.querySelector('.mcp-form')).toBeNull();
    expect(card('files')).not.toBeNull();
    expect(document.activeElement?.textContent).toBe('Add server');
  });

  it('adds a remote server with its headers and transport', async () => {
    await open();
    await click(button(host, 'Add server'));
    await type(field('Name'), 'docs');
    await click(Array.from(host.querySelectorAll<HTMLLabelElement>('.segmented label')).find((l) => l.textContent === 'Remote URL')!.querySelector('input')!);
    await type(field('URL'), 'ftp://docs');
    await click(button(host, 'Add'));
    expect(host.querySelector('.mcp-form .field-error')?.textContent).toBe('Type an http:// or https:// address.');
    await type(field('URL'), 'https://docs.example.com/mcp');
    await click(button(host, '+ Header'));
    const [hName, hValue] = Array.from(host.querySelectorAll<HTMLInputElement>('[data-rows="headers"] .mcp-row input'));
    await type(hName!, 'Authorization');
    await type(hValue!, 'Bearer abc');
    await click(Array.from(host.querySelectorAll<HTMLLabelElement>('.segmented label')).find((l) => l.textContent === 'Run at once')!.querySelector('input')!);
    await click(button(host, 'Add'));
    expect(svc.SaveMCPServer).toHaveBeenCalledWith(
      'docs',
      expect.objectContaining({ command: '', url: 'https://docs.example.com/mcp', headers: { Authorization: 'Bearer abc' }, env: {}, transport: '', permission: 'auto' }),
    );
  });

  it("shows the backend's error under the field it names, and Escape cancels", async () => {
    svc.SaveMCPServer.mockImplementation(() =>
      Promise.reject(appError('invalid_settings', 'invalid settings', { 'mcp_servers.x.cwd': '"/nope" is not a folder', 'mcp_servers.x.disabled_tools[0]': 'is empty' })),
    );
    await open();
    await click(button(host, 'Add server'));
    await type(field('Name'), 'x');
    await type(field('Command'), 'npx');
    await click(button(host, 'Add'));
    expect(host.querySelector('.mcp-form .form-error')?.textContent).toBe('mcp_servers.x.disabled_tools[0]: is empty');
    expect(field('Folder').getAttribute('aria-invalid')).toBe('true');
    expect(host.querySelector(`#${field('Folder').getAttribute('aria-describedby') ?? 'none'}`)?.textContent).toBe('"/nope" is not a folder');
    expect(await key(field('Name') as HTMLInputElement, 'Escape')).toBe(true); // the dialog around stays open
    expect(host.querySelector('.mcp-form')).toBeNull();
    expect(document.activeElement?.textContent).toBe('Add server');
  });
});

describe('secrets', () => {
  it('an unchanged masked value goes back as the mask; a retyped one as typed; a removed row is left out', async () => {
    servers = [view('everything', { env: { TOKEN: MCP_SECRET_MASK, REGION: MCP_SECRET_MASK, OLD: MCP_SECRET_MASK } })];
    await open();
    await click(button(card('everything')!, 'Edit'));
    const values = Array.from(host.querySelectorAll<HTMLInputElement>('[data-rows="env"] .mcp-row input[type="password"]'));
    expect(values.map((v) => v.value)).toEqual([MCP_SECRET_MASK, MCP_SECRET_MASK, MCP_SECRET_MASK]); // OLD, REGION, TOKEN
    expect(host.querySelector('[data-rows="env"]')?.textContent).toContain('Stored values show as ••••••••');
    // Typing at the end of the mask replaces it with what was typed.
    await type(values[1]!, `${MCP_SECRET_MASK}eu-west`);
    await click(host.querySelector<HTMLButtonElement>('[data-rows="env"] .mcp-row button[aria-label="Remove OLD"]')!);
    await click(button(host, 'Save'));
    expect(svc.SaveMCPServer).toHaveBeenCalledWith('everything', expect.objectContaining({ env: { REGION: 'eu-west', TOKEN: MCP_SECRET_MASK }, previous_name: '' }));
    expect(host.querySelector('.mcp-form')).toBeNull();
    expect(document.activeElement?.textContent).toBe('Edit'); // back on the card's Edit
    expect(card('everything')?.contains(document.activeElement)).toBe(true);
    expect(host.innerHTML).not.toContain('tok-');
  });

  it('typedOverMask keeps only what was typed over a stored value', () => {
    expect(typedOverMask(MCP_SECRET_MASK, MCP_SECRET_MASK)).toBe(MCP_SECRET_MASK);
    expect(typedOverMask(MCP_SECRET_MASK, `${MCP_SECRET_MASK}x`)).toBe('x');
    expect(typedOverMask(MCP_SECRET_MASK, '•••••••')).toBe('');
    expect(typedOverMask('abc', 'abcd')).toBe('abcd');
  });

  it('renaming sends the previous name, so the stored secrets move with it', () => {
    const form = { ...mcpFormOf(view('old', { env: { TOKEN: MCP_SECRET_MASK } }) as never), name: 'new' };
    const built = buildMcpInput(form, ['old', 'other']);
    expect(built.errors).toBeNull();
    expect(built.input).toMatchObject({ previous_name: 'old', env: { TOKEN: MCP_SECRET_MASK } });
    expect(buildMcpInput({ ...form, name: 'other' }, ['old', 'other']).errors).toMatchObject({ name: expect.stringContaining('other') as string });
  });
});

describe('paste JSON', () => {
  it('imports the pasted block and says what was added and which keys were dropped', async () => {
    await open();
    await click(button(host, 'Paste JSON'));
    const box = host.querySelector<HTMLTextAreaElement>('textarea.mcp-json')!;
    expect(document.activeElement).toBe(box);
    await click(button(host, 'Import'));
    expect(host.querySelector('.mcp-import .field-error')?.textContent).toBe('Paste a JSON block first.');
    const text = '{"mcpServers": {"a": {"command": "npx", "autoApprove": []}, "b": {"url": "https://b.example/mcp"}}}';
    await type(box, text);
    servers = [view('a'), view('b', { command: '', url: 'https://b.example/mcp' })];
    await key(box, 'Enter', { ctrlKey: true });
    expect(svc.ImportMCPServers).toHaveBeenCalledWith(text);
    expect(host.querySelector('.mcp-imported')?.textContent).toBe('Added 2 servers: a, b.Dropped keys this app does not use: a.autoApprove.');
    expect(card('a')).not.toBeNull();
    expect(card('b')).not.toBeNull();
    expect(document.activeElement?.textContent).toBe('Paste JSON');
  });

  it('shows why a block was refused, with each field named, and keeps the text', async () => {
    svc.ImportMCPServers.mockImplementation(() => Promise.reject(appError('invalid_settings', 'invalid settings', { 'mcp_servers.a.command': '"./x" is a relative path' })));
    await open();
    await click(button(host, 'Paste JSON'));
    const box = host.querySelector<HTMLTextAreaElement>('textarea.mcp-json')!;
    await type(box, '{"a": {"command": "./x"}}');
    await click(button(host, 'Import'));
    const lines = Array.from(host.querySelectorAll('.mcp-import .field-error p')).map((p) => p.textContent);
    expect(lines).toEqual(['The settings are not valid.', 'mcp_servers.a.command: "./x" is a relative path']);
    expect(box.value).toBe('{"a": {"command": "./x"}}');
    expect(box.getAttribute('aria-invalid')).toBe('true');
  });
});

describe('browser mode', () => {
  it('adding, pasting and editing say why they are desktop-only; Test and tool switches work', async () => {
    win.runtime = { __browserMode: true };
    servers = [view('everything', { state: 'running', tools: [tool('echo')] })];
    await open();
    expect(host.textContent).toContain('adding or changing a server needs the desktop window');
    await click(button(host, 'Add server'));
    expect(host.querySelector('.mcp-form')).toBeNull();
    const note = host.querySelector('.mcp-desktop-only');
    expect(note?.getAttribute('role')).toBe('alert');
    expect(note?.textContent).toBe(
      'Only the desktop window can do this. An MCP server names a program this computer runs, which a web page must not arrange: add or change servers in the desktop window, or in config.json.',
    );
    await click(button(host, 'Paste JSON'));
    expect(host.querySelector('.mcp-import')).toBeNull();
    await click(button(card('everything')!, 'Edit'));
    expect(card('everything')?.querySelector('.mcp-desktop-only')).not.toBeNull();
    expect(svc.SaveMCPServer).not.toHaveBeenCalled();
    expect(svc.ImportMCPServers).not.toHaveBeenCalled();
    await click(button(card('everything')!, '1 tool'));
    await click(card('everything')!.querySelector<HTMLInputElement>('.mcp-tools [role="switch"]')!);
    expect(svc.SetMCPToolEnabled).toHaveBeenCalledWith('everything', 'echo', false);
    await click(button(card('everything')!, 'Test'));
    expect(svc.TestMCPServer).toHaveBeenCalledWith('everything');
  });

  it("the on/off switch shows the backend's desktop_only refusal in the UI's language", async () => {
    win.runtime = { __browserMode: true };
    servers = [view('everything')];
    svc.SaveMCPServer.mockImplementation(() => Promise.reject(appError('desktop_only', 'browser mode does not add or change MCP servers')));
    await open();
    await click(card('everything')!.querySelector<HTMLInputElement>('.mcp-server-head [role="switch"]')!);
    expect(card('everything')?.querySelector('.field-error')?.textContent).toBe('Only the desktop window can do this. (browser mode does not add or change MCP servers)');
  });
});

describe('MCP tool calls in the activity and the permission prompt', () => {
  const step = (over: Partial<ToolStep>): ToolStep => ({
    kind: 'tool', key: 'k', callId: 'c', agent: 'search_agent', tool: 'mcp__everything__echo', params: { message: 'hello' },
    depth: 1, status: 'done', result: 'Echo: hello', error: '', durationMs: 15, ...over,
  });

  it('names the tool and its server, with its arguments as the detail', () => {
    expect(parseMcpToolName('mcp__everything__echo')).toEqual({ server: 'everything', tool: 'echo' });
    expect(parseMcpToolName('mcp__my-files__read_text_file')).toEqual({ server: 'my-files', tool: 'read_text_file' });
    expect(parseMcpToolName('web_search')).toBeNull();
    expect(parseMcpToolName('mcp__x')).toBeNull();
    expect(describeStep(step({}))).toEqual({ agent: 'search_agent', action: 'echo', server: 'everything', detail: 'hello', quoted: true, meta: ['11 chars', '15 ms'] });
    expect(describeStep(step({ tool: 'mcp__everything__add', params: { a: 2, b: 3 }, status: 'running', durationMs: undefined }))).toEqual({
      agent: 'search_agent', action: 'add', server: 'everything', detail: 'a: 2, b: 3', quoted: false, meta: [],
    });
  });

  let seq = 0;
  const ev = (type: EventType, agent: string, data: Record<string, unknown>): RunEvent => ({
    type, conversation_id: 'c1', message_id: 'm1', seq: ++seq, agent_name: agent || undefined, created_at: new Date().toISOString(), data,
  });

  it('shows the call as "echo · everything" with its result on expanding', async () => {
    const runs = applyEvents(emptyRunsState(), [
      ev('metadata', '', { content: 'Q' }),
      ev('agent_start', 'lead_agent', { round: 0 }),
      ev('tool_start', 'lead_agent', { call_id: 't1', tool: 'mcp__everything__echo', params: { message: 'hello' } }),
      ev('tool_complete', 'lead_agent', { call_id: 't1', tool: 'mcp__everything__echo', success: true, result: 'Echo: hello', duration_ms: 15 }),
    ]);
    const run = runs.conversations.c1?.runs.m1;
    await act(async () => {
      root ??= createRoot(host);
      root.render(<ActivityFlow run={{ ...run!, status: 'complete' }} live={false} />);
      await Promise.resolve();
    });
    await click(host.querySelector<HTMLButtonElement>('.activity-head')!);
    expect(permissionSubject({ tool: 'mcp__everything__echo', params: { message: 'hello' } })).toBe('echo · everything');
    const row = host.querySelector<HTMLElement>('.step.kind-tool')!;
    expect(row.querySelector('.step-line')?.textContent).toBe('lead_agent·echo·everything“hello” ·11 chars ·15 ms');
    expect(row.querySelector('.step-tool')?.textContent).toBe('echo');
    expect(row.querySelector('.step-server')?.textContent).toBe('everything');
    await click(row.querySelector<HTMLButtonElement>('.step-head')!);
    expect(row.querySelector('.step-detail-text')?.textContent).toBe('Echo: hello');
  });

  it('the permission prompt names the server and the tool in plain words, in English and Chinese', async () => {
    const runs = applyEvents(emptyRunsState(), [
      ev('metadata', '', { content: 'Q', model: 'm', tool_call_mode: 'native' }),
      ev('agent_start', 'lead_agent', { round: 0 }),
      ev('permission_request', 'search_agent', { request_id: 'r1', tool: 'mcp__everything__echo', params: { message: 'hello' }, timeout_ms: 600_000 }),
    ]);
    await act(async () => {
      root ??= createRoot(host);
      root.render(<PermissionDialog runs={runs} selectedId="c1" conversations={[]} />);
      await Promise.resolve();
    });
    const dialog = host.querySelector('dialog')!;
    expect(dialog.getAttribute('aria-label')).toBe('Allow echo from everything?');
    expect(dialog.querySelector('.perm-what')?.textContent).toBe('search_agent wants to use the tool echo of the MCP server everything with:');
    expect(dialog.querySelector('.perm-head')?.textContent).toBe('The research paused: the MCP server everything is set to ask before each call.');
    expect(dialog.querySelector('.perm-json')?.textContent).toBe('{\n  "message": "hello"\n}');
    expect(dialog.textContent).toContain('Always allow runs every tool of the MCP server everything without asking from now on');
    await act(() => i18n.changeLanguage('zh-CN'));
    expect(dialog.querySelector('.perm-what')?.textContent).toBe('search_agent 想要使用 MCP 服务器 everything 的工具 echo，参数如下：');
  });
});
