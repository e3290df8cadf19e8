// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MODEL_LIST_DELAY_MS } from './ModelSettings';
import { SettingsDialog } from './SettingsDialog';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

type Loose = Record<string, unknown>;
const win = window as unknown as Loose;
// jsdom has <dialog> without showModal.
const proto = HTMLDialogElement.prototype as unknown as Loose;
proto.showModal ??= function (this: HTMLDialogElement) {
  this.open = true;
};
proto.close ??= function (this: HTMLDialogElement) {
  this.open = false;
};

const stored = {
  revision: 'core-1.1',
  base_url: 'http://localhost:11434/v1', api_key_set: false, model: 'qwen3:8b', tool_call_mode: 'native', searxng_url: '',
  allow_private_network: false, max_upload_mb: 20, max_upload_mb_limit: 256, proxy: '', proxy_source: 'direct', proxy_in_effect: '', data_dir: '/home/u/.config/ArtifactFlow', context_window: 0,
  effective_context_window: 32768, compact_at_percent: 80, tool_permissions: {}, permission_timeout_seconds: 120,
  search: { provider: 'duckduckgo', keys_stored: ['brave'], language: '' },
  search_providers: [
    { id: 'duckduckgo', name: 'DuckDuckGo', needs_key: false, needs_url: false, key_url: '', key_stored: false },
    { id: 'wikipedia', name: 'Wikipedia', needs_key: false, needs_url: false, key_url: '', key_stored: false },
    { id: 'searxng', name: 'SearXNG', needs_key: false, needs_url: true, key_url: 'https://docs.searxng.org', key_stored: false },
    { id: 'brave', name: 'Brave Search', needs_key: true, needs_url: false, key_url: 'https://brave.com/search/api/', key_stored: true },
    { id: 'tavily', name: 'Tavily', needs_key: true, needs_url: false, key_url: 'https://tavily.com', key_stored: false },
  ],
  search_ready: true, search_problem: '',
  lead: { model: '', base_url: '', api_key_set: false, tool_call_mode: '', context_window: 0, temperature: null, top_p: null, max_tokens: 0 },
  sub_agents: { model: 'qwen3:4b', base_url: '', api_key_set: false, tool_call_mode: '', context_window: 0, temperature: 0.3, top_p: null, max_tokens: 0 },
};

let root: Root | null = null;
const host = document.createElement('div');
document.body.appendChild(host);
const makeService = () => ({
    Get: vi.fn(() => Promise.resolve(stored)),
    Save: vi.fn((input: Loose) => Promise.resolve({ ...stored, ...input })),
    ModelContext: vi.fn((m: string) => Promise.resolve({ model: m, context_window: 0, effective_context_window: 32768, compact_at_percent: 80 })),
    Presets: vi.fn(() =>
      Promise.resolve([
        { name: 'OpenAI', base_url: 'https://api.openai.com/v1', example_model: 'gpt-4.1-mini', needs_key: true },
        { name: 'DeepSeek', base_url: 'https://api.deepseek.com/v1', example_model: 'deepseek-chat', needs_key: true },
        { name: 'Ollama', base_url: 'http://localhost:11434/v1', example_model: 'qwen3:8b', needs_key: false },
      ]),
    ),
    ListModels: vi.fn(() => Promise.resolve([{ id: 'llama3.1:8b', owned_by: 'library' }, { id: 'qwen3:8b', owned_by: 'library' }])),
    TestConnection: vi.fn((_b: string, _k: string, model: string) => Promise.resolve({ ok: true, latency_ms: 840, error: '', endpoint: 'x', model })),
    TestSearch: vi.fn((provider: string) => Promise.resolve({ ok: true, provider, results: 2, latency_ms: 420 })),
    FindLocalServers: vi.fn(() => Promise.resolve([] as Loose[])),
});
let svc: ReturnType<typeof makeService>;

beforeEach(() => {
  svc = makeService();
  win.go = { app: { SettingsService: svc } };
});

afterEach(() => {
  act(() => root?.unmount());
  root = null;
  delete win.go;
});

const wait = (ms: number) => act(() => new Promise((r) => setTimeout(r, ms)));

async function open() {
  await act(async () => {
    root ??= createRoot(host);
    root.render(<SettingsDialog onClose={() => undefined} onSaved={() => undefined} />);
    await Promise.resolve();
  });
  await wait(0);
}

/** The control whose aria-label or wrapping label text starts with `name`. */
function control(name: string): HTMLElement {
  for (const el of host.querySelectorAll<HTMLElement>('input, select')) {
    const label = el.getAttribute('aria-label') ?? el.closest('label')?.textContent ?? '';
    if (label.startsWith(name)) return el;
  }
  throw new Error(`no field ${name}`);
}

/** The text field named `name` (see control). */
function field(name: string): HTMLInputElement {
  const el = control(name);
  if (!(el instanceof HTMLInputElement)) throw new Error(`${name} is not an input`);
  return el;
}

/** The select named `name` (see control). */
function select(name: string): HTMLSelectElement {
  const el = control(name);
  if (!(el instanceof HTMLSelectElement)) throw new Error(`${name} is not a select`);
  return el;
}

function type(el: HTMLInputElement | HTMLSelectElement, value: string) {
  act(() => {
    const p = el instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
    Object.getOwnPropertyDescriptor(p, 'value')?.set?.call(el, value);
    el.dispatchEvent(new Event(el instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }));
  });
}

function click(el: Element) {
  act(() => {
    el.dispatchEvent(new MouseEvent('click', { bubbles: true }));
  });
}

const button = (text: string) => {
  const b = [...host.querySelectorAll('button')].find((x) => x.textContent.trim() === text);
  if (!b) throw new Error(`no button ${text}`);
  return b;
};

async function save() {
  const form = host.querySelector('form');
  if (!form) throw new Error('no form');
  await act(async () => {
    form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    await Promise.resolve();
  });
  await wait(0);
}

describe('settings dialog', () => {
  it('fills the base URL from a preset and offers the endpoint’s models', async () => {
    await open();
    const preset = select('Endpoint preset');
    expect(preset.value).toBe('Ollama');
    await wait(MODEL_LIST_DELAY_MS + 50);
    expect(svc.ListModels).toHaveBeenCalledWith('http://localhost:11434/v1', '', false);
    const options = [...host.querySelectorAll('datalist#endpoint-models option')].map((o) => o.getAttribute('value'));
    expect(options).toEqual(['llama3.1:8b', 'qwen3:8b']);
    expect(field('Model').getAttribute('list')).toBe('endpoint-models');
    type(preset, 'DeepSeek');
    expect(field('Base URL').value).toBe('https://api.deepseek.com/v1');
    type(field('API key'), 'sk-typed');
    await wait(MODEL_LIST_DELAY_MS + 50);
    expect(svc.ListModels).toHaveBeenLastCalledWith('https://api.deepseek.com/v1', 'sk-typed', false);
  });

  it('sends no stored key while "Remove the stored key" is ticked (review S2)', async () => {
    svc.Get.mockResolvedValue({ ...stored, base_url: 'https://api.openai.com/v1', api_key_set: true, model: 'gpt-4.1-mini' });
    await open();
    await wait(MODEL_LIST_DELAY_MS + 50);
    expect(svc.ListModels).toHaveBeenLastCalledWith('https://api.openai.com/v1', '', false);
    const clear = [...host.querySelectorAll<HTMLInputElement>('input[type=checkbox]')].find((c) => c.closest('label')?.textContent.includes('Remove the stored key'));
    if (!clear) throw new Error('no "Remove the stored key" box');
    click(clear);
    expect(clear.checked).toBe(true);
    await wait(MODEL_LIST_DELAY_MS + 50);
    expect(svc.ListModels).toHaveBeenLastCalledWith('https://api.openai.com/v1', '', true);
    click(button('Test connection'));
    await wait(0);
    expect(svc.TestConnection).toHaveBeenLastCalledWith('https://api.openai.com/v1', '', 'gpt-4.1-mini', true);
    // A key typed is what would be saved: it is sent, still with the stored one barred.
    type(field('API key'), 'sk-new');
    await wait(MODEL_LIST_DELAY_MS + 50);
    expect(svc.ListModels).toHaveBeenLastCalledWith('https://api.openai.com/v1', 'sk-new', true);
  });

  it('tests the connection with what is typed and shows the latency inline', async () => {
    await open();
    type(field('Model'), 'llama3.1:8b');
    click(button('Test connection'));
    await wait(0);
    expect(svc.TestConnection).toHaveBeenCalledWith('http://localhost:11434/v1', '', 'llama3.1:8b', false);
    expect(host.querySelector('.test-result.ok')?.textContent).toBe('llama3.1:8b answered in 840 ms');
    svc.TestConnection.mockResolvedValueOnce({ ok: false, latency_ms: 0, error: 'llm: POST http://x/v1/chat/completions: 401 Unauthorized: Incorrect API key provided', endpoint: 'x', model: 'm' });
    click(button('Test connection'));
    await wait(0);
    expect(host.querySelector('.test-result.err')?.textContent).toContain('401 Unauthorized: Incorrect API key provided');
  });

  it('says why Test connection cannot run, beside it and in its tooltip', async () => {
    await open();
    const test = button('Test connection');
    const why = () => test.parentElement?.querySelector('.test-result')?.textContent;
    expect(test.disabled).toBe(false);
    expect(why()).toBe('');
    type(field('Model'), '');
    expect(test.disabled).toBe(true);
    expect(why()).toBe('Type a model name to test the connection.');
    expect(test.title).toBe('Type a model name to test the connection.');
    type(field('Model'), 'qwen3:8b');
    type(field('Base URL'), '');
    expect(test.disabled).toBe(true);
    expect(why()).toBe('Type the base URL to test the connection.');
    type(field('Base URL'), 'http://localhost:11434/v1');
    expect(test.disabled).toBe(false);
    expect(test.title).toBe('');
  });

  it('lists its sections in a side list, and marks the one holding an invalid field', async () => {
    svc.Save.mockRejectedValueOnce(
      new Error(JSON.stringify({ code: 'invalid_settings', message: 'invalid settings: sub_agents.top_p: 1.5 is outside 0–1', fields: { 'sub_agents.top_p': '1.5 is outside 0–1' } })),
    );
    await open();
    const nav = host.querySelector('nav[aria-label="Settings sections"]');
    const entries = () => [...(nav?.querySelectorAll('button') ?? [])];
    const names = entries().map((b) => b.textContent.trim());
    for (const want of ['Language', 'Model', 'Lead agent', 'Web search', 'Files', 'Tools']) expect(names).toContain(want);
    expect(names.indexOf('Language')).toBeLessThan(names.indexOf('Model'));
    expect(entries().filter((b) => b.getAttribute('aria-current') === 'true')).toHaveLength(1);
    // One stop of the Tab order, after the form's fields; the arrow keys move through it.
    const form = host.querySelector('form');
    expect(form && nav && form.compareDocumentPosition(nav) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    const stops = () => entries().filter((b) => b.tabIndex === 0);
    expect(stops()).toHaveLength(1);
    const key = (k: string) =>
      act(() => {
        const at = stops()[0];
        at?.focus();
        at?.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true }));
      });
    key('Home');
    expect(document.activeElement?.textContent.trim()).toBe('Language');
    key('ArrowDown');
    expect(document.activeElement?.textContent.trim()).toBe('Model');
    expect(stops().map((b) => b.textContent.trim())).toEqual(['Model']);
    await save();
    const flagged = entries().filter((b) => b.querySelector('.settings-nav-dot') !== null);
    expect(flagged.map((b) => b.getAttribute('aria-label'))).toEqual(['Sub-agents (search and crawl): a field needs attention']);
  });

  it('chooses a search provider, keeps its stored key and tests it', async () => {
    await open();
    const provider = select('Search provider');
    expect([...provider.options].map((o) => o.textContent)).toContain('DuckDuckGo — no key needed');
    expect(host.textContent).not.toContain('Brave Search API key');
    type(provider, 'brave');
    const key = field('Brave Search API key');
    expect(key.type).toBe('password');
    expect(key.placeholder).toContain('Stored');
    click(button('Test Brave Search'));
    await wait(0);
    expect(svc.TestSearch).toHaveBeenCalledWith('brave', '', '');
    expect(host.querySelector('.test-result.ok')?.textContent).toBe('2 results in 420 ms');
    type(provider, 'searxng');
    type(field('SearXNG URL'), 'http://localhost:8888');
    click(button('Test SearXNG'));
    await wait(0);
    expect(svc.TestSearch).toHaveBeenLastCalledWith('searxng', '', 'http://localhost:8888');
    type(provider, 'tavily');
    type(field('Tavily API key'), 'tvly-typed');
    await save();
    const input = svc.Save.mock.calls.at(-1)?.[0] as Loose;
    expect(input.search).toMatchObject({ provider: 'tavily', keys: { tavily: 'tvly-typed' }, clear_keys: [] });
    expect(input.searxng_url).toBe('http://localhost:8888');
  });

  it('sends back the revision it shows, and the one of its last save after that', async () => {
    // The backend writes only the fields changed since the version the dialog was opened on.
    svc.Save.mockImplementation((input: Loose) => Promise.resolve({ ...stored, ...input, revision: 'core-1.2' }));
    await open();
    type(field('Model'), 'llama3.1:8b');
    await save();
    expect(svc.Save.mock.calls.at(-1)?.[0]).toMatchObject({ revision: 'core-1.1', model: 'llama3.1:8b' });
    await save();
    expect(svc.Save.mock.calls.at(-1)?.[0]).toMatchObject({ revision: 'core-1.2' });
  });

  it('saves the per-agent models, and refuses out-of-range values next to their field', async () => {
    await open();
    expect(field('Sub-agents: model').value).toBe('qwen3:4b');
    expect(field('Sub-agents: temperature').value).toBe('0.3');
    expect(field('Lead agent: model').placeholder).toBe('same as above (qwen3:8b)');
    type(field('Lead agent: model'), 'qwen3:32b');
    type(field('Lead agent: temperature'), '3');
    await save();
    expect(svc.Save).not.toHaveBeenCalled();
    const temp = field('Lead agent: temperature');
    expect(temp.getAttribute('aria-invalid')).toBe('true');
    expect(host.querySelector(`#${temp.getAttribute('aria-describedby') ?? 'none'}`)?.textContent).toContain('0 to 2');
    type(temp, '0');
    type(select('Lead agent: tool calls'), 'xml');
    await save();
    const input = svc.Save.mock.calls.at(-1)?.[0] as Loose;
    expect(input.lead).toMatchObject({ model: 'qwen3:32b', tool_call_mode: 'xml', temperature: 0, top_p: null, max_tokens: 0 });
    expect(input.sub_agents).toMatchObject({ model: 'qwen3:4b', temperature: 0.3 });
  });

  it('shows the backend’s error next to the field it names', async () => {
    // As the window rejects: an Error whose message is the AppError's JSON; the field comes from its fields.
    svc.Save.mockRejectedValueOnce(
      new Error(
        JSON.stringify({
          code: 'invalid_settings',
          message: 'invalid settings: sub_agents.top_p: 1.5 is outside 0–1',
          fields: { 'sub_agents.top_p': '1.5 is outside 0–1' },
        }),
      ),
    );
    await open();
    await save();
    const topP = field('Sub-agents: top p');
    expect(topP.getAttribute('aria-invalid')).toBe('true');
    expect(host.querySelector('.form-error')).toBeNull();
    expect(host.querySelector(`#${topP.getAttribute('aria-describedby') ?? 'none'}`)?.textContent).toBe('1.5 is outside 0–1');
  });

  it('looks for local servers by itself at first launch, and one click fills the base URL and model', async () => {
    svc.Get.mockResolvedValue({ ...stored, base_url: 'https://api.openai.com/v1', model: '' });
    svc.FindLocalServers.mockResolvedValue([
      { name: 'Ollama', base_url: 'http://127.0.0.1:11434/v1', models: ['llama3.2:3b', 'qwen3:8b'] },
      { name: 'LM Studio', base_url: 'http://127.0.0.1:1234/v1', models: [] },
    ]);
    await open();
    await wait(0);
    expect(svc.FindLocalServers).toHaveBeenCalledTimes(1);
    const servers = [...host.querySelectorAll('[data-local-server]')].map((li) => li.getAttribute('data-local-server'));
    expect(servers).toEqual(['Ollama', 'LM Studio']);
    const use = host.querySelector<HTMLButtonElement>('button[aria-label="Use qwen3:8b on Ollama"]');
    if (!use) throw new Error('no button for qwen3:8b');
    click(use);
    expect(field('Base URL').value).toBe('http://127.0.0.1:11434/v1');
    expect(field('Model').value).toBe('qwen3:8b');
    // A server listing no model fills the base URL alone.
    click(button('Use'));
    expect(field('Base URL').value).toBe('http://127.0.0.1:1234/v1');
    expect(field('Model').value).toBe('qwen3:8b');
    await save();
    expect(svc.Save.mock.calls.at(-1)?.[0]).toMatchObject({ base_url: 'http://127.0.0.1:1234/v1', model: 'qwen3:8b' });
  });

  it('looks for local servers only when asked once a model is set, and says when none answered', async () => {
    await open();
    await wait(0);
    expect(svc.FindLocalServers).not.toHaveBeenCalled();
    click(button('Find local servers'));
    await wait(0);
    expect(svc.FindLocalServers).toHaveBeenCalledTimes(1);
    expect(host.textContent).toContain('No local model server answered on 127.0.0.1');
  });

  it('saves an agent’s own base URL and key, and never shows a stored one', async () => {
    const view = { ...stored, lead: { ...stored.lead, base_url: 'https://api.deepseek.com/v1', api_key_set: true } };
    svc.Get.mockResolvedValue(view);
    svc.Save.mockResolvedValue(view);
    await open();
    const leadKey = field('Lead agent: API key');
    expect(leadKey.type).toBe('password');
    expect(leadKey.value).toBe('');
    expect(leadKey.placeholder).toContain('Stored');
    expect(field('Lead agent: base URL').value).toBe('https://api.deepseek.com/v1');
    expect(field('Sub-agents: API key').placeholder).toBe('the key above (same server only)');
    type(field('Sub-agents: base URL'), ' http://127.0.0.1:11434/v1 ');
    type(field('Sub-agents: API key'), 'ollama-key');
    await save();
    let input = svc.Save.mock.calls.at(-1)?.[0] as Loose;
    expect(input.sub_agents).toMatchObject({ base_url: 'http://127.0.0.1:11434/v1', api_key: 'ollama-key' });
    expect(input.lead).toMatchObject({ base_url: 'https://api.deepseek.com/v1' });
    expect((input.lead as Loose).api_key).toBeUndefined(); // not sent: the stored key stays
    expect((input.lead as Loose).clear_api_key).toBeUndefined();
    // The lead's stored key removed (the view after the save still has one stored).
    const clear = [...host.querySelectorAll<HTMLInputElement>('fieldset.agent-model input[type=checkbox]')].find((c) => c.closest('label')?.textContent.includes('Remove the stored key'));
    if (!clear) throw new Error('no "Remove the stored key" box for the lead');
    click(clear);
    await save();
    input = svc.Save.mock.calls.at(-1)?.[0] as Loose;
    expect(input.lead).toMatchObject({ clear_api_key: true });
  });

  it('hints and checks the upload limit the backend accepts, as Save does', async () => {
    await open();
    const limit = field('Upload limit');
    expect(limit.closest('label')?.textContent).toContain('(1–256 MB)');
    type(limit, '500');
    await save();
    expect(svc.Save).not.toHaveBeenCalled();
    expect(host.querySelector('#err-max_upload_mb')?.textContent).toBe('enter a whole number of MB from 1 to 256');
    // The limit is the backend's, not a number of the page's own.
    svc.Get.mockResolvedValue({ ...stored, max_upload_mb_limit: 1024 });
    act(() => root?.unmount());
    root = null;
    await open();
    expect(field('Upload limit').closest('label')?.textContent).toContain('(1–1024 MB)');
    type(field('Upload limit'), '500');
    await save();
    expect(svc.Save).toHaveBeenCalledWith(expect.objectContaining({ max_upload_mb: 500 }));
  });

  it('shows the proxy in effect, checks a typed proxy and saves it', async () => {
    svc.Get.mockResolvedValue({ ...stored, proxy: '', proxy_source: 'environment', proxy_in_effect: 'http://127.0.0.1:7890' });
    await open();
    const proxy = field('Proxy');
    expect(proxy.value).toBe('');
    expect(proxy.placeholder).toBe('System proxy');
    expect(host.querySelector('[data-testid=proxy-now]')?.textContent).toBe('Now: http://127.0.0.1:7890, from the proxy environment variables.');
    type(proxy, '127.0.0.1:7890');
    await save();
    expect(svc.Save).not.toHaveBeenCalled();
    expect(host.querySelector('#err-proxy')?.textContent).toContain('http://127.0.0.1:7890');
    type(proxy, 'socks5://127.0.0.1:1080');
    await save();
    expect(svc.Save).toHaveBeenLastCalledWith(expect.objectContaining({ proxy: 'socks5://127.0.0.1:1080' }));
    type(field('Proxy'), ' None ');
    await save();
    expect(svc.Save).toHaveBeenLastCalledWith(expect.objectContaining({ proxy: 'direct' }));
  });
});

describe('the model list’s error', () => {
  it('says a refused key and a stopped local server in the UI’s language, not the backend’s English', async () => {
    const { i18n } = await import('../i18n/i18n');
    await i18n.changeLanguage('zh-CN');
    try {
      svc.ListModels.mockRejectedValue(
        new Error(
          JSON.stringify({
            code: 'model_unreachable',
            message: 'The model endpoint could not be reached: check the base URL in Settings, or retry.',
            detail: 'llm: GET http://localhost:11434/v1/models: network error: dial tcp 127.0.0.1:11434: connect: connection refused',
            fields: { reason: 'refused', host: 'http://localhost:11434', server: 'Ollama' },
            retryable: true,
          }),
        ),
      );
      await open();
      await wait(MODEL_LIST_DELAY_MS + 50);
      const hint = field('模型').closest('label')?.querySelector('.hint');
      expect(hint?.textContent).toBe('无法列出接口的模型：Ollama 未在 http://localhost:11434 运行。请用“ollama serve”启动它（或打开 Ollama 应用），再重新测试。');
      expect(hint?.getAttribute('title')).toContain('connection refused');
      expect(host.textContent).not.toContain('check the base URL in Settings');
      // A code without a kind still reads in Chinese.
      svc.ListModels.mockRejectedValue(new Error(JSON.stringify({ code: 'model_rejected', message: 'The model endpoint refused the request: check the model name and endpoint in Settings.', detail: 'llm: GET x: 404 Not Found' })));
      type(field('基础 URL'), 'http://localhost:11435/v1');
      await wait(MODEL_LIST_DELAY_MS + 50);
      expect(field('模型').closest('label')?.querySelector('.hint')?.textContent).toBe('无法列出接口的模型：' + i18n.t('errors:code.model_rejected'));
    } finally {
      await i18n.changeLanguage('en');
    }
  });
});
