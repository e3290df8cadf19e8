import { describe, expect, it } from 'vitest';
import type { Settings, SettingsInput } from '../api/settings';
import { buildSettingsInput, extraFormOf, isSettingsField, parseSettingsErrors } from './SettingsDialog';
import { i18n } from '../i18n/i18n';
import {
  agentTexts,
  connectionText,
  EMPTY_AGENT_TEXTS,
  parseAgentTexts,
  parseDecimal,
  parseWholeNumber,
  presetOf,
  providerNeeds,
  searchInputOf,
  searchTestText,
  setByNote,
} from './settings-form';

describe('number fields', () => {
  it('parses decimals in range, empty as unset, anything else as invalid', () => {
    expect(parseDecimal('0.7', 0, 2)).toBe(0.7);
    expect(parseDecimal(' .5 ', 0, 1)).toBe(0.5);
    expect(parseDecimal('0,25', 0, 1)).toBe(0.25);
    expect(parseDecimal('0', 0, 2)).toBe(0);
    expect(parseDecimal('', 0, 2)).toBeUndefined();
    expect(parseDecimal('2.5', 0, 2)).toBeNull();
    expect(parseDecimal('-1', 0, 2)).toBeNull();
    expect(parseDecimal('1e1', 0, 20)).toBeNull();
    expect(parseDecimal('warm', 0, 2)).toBeNull();
  });

  it('parses whole numbers with separators', () => {
    expect(parseWholeNumber('128,000', 2048, 10_000_000)).toBe(128_000);
    expect(parseWholeNumber('4 096', 1, 10_000_000)).toBe(4096);
    expect(parseWholeNumber('', 1, 10)).toBeUndefined();
    expect(parseWholeNumber('1.5', 1, 10)).toBeNull();
    expect(parseWholeNumber('512', 2048, 10_000_000)).toBeNull();
  });
});

describe('agent sections', () => {
  it('turns empty fields into unset values', () => {
    expect(parseAgentTexts('lead', EMPTY_AGENT_TEXTS)).toEqual({
      value: { model: '', base_url: '', tool_call_mode: '', context_window: 0, temperature: null, top_p: null, max_tokens: 0 },
      errors: {},
    });
  });

  it('keeps a temperature of 0 as set, not as unset', () => {
    const p = parseAgentTexts('sub_agents', { ...EMPTY_AGENT_TEXTS, temperature: '0', top_p: '1', max_tokens: '4,000', window: '64000', model: ' qwen3:4b ', mode: 'xml' });
    expect(p.errors).toEqual({});
    expect(p.value).toEqual({ model: 'qwen3:4b', base_url: '', tool_call_mode: 'xml', context_window: 64000, temperature: 0, top_p: 1, max_tokens: 4000 });
  });

  it('names each bad field as the backend does', () => {
    const p = parseAgentTexts('lead', { ...EMPTY_AGENT_TEXTS, temperature: '3', top_p: 'x', max_tokens: '0', window: '100' });
    expect(Object.keys(p.errors).sort()).toEqual(['lead.context_window', 'lead.max_tokens', 'lead.temperature', 'lead.top_p']);
    expect(p.errors['lead.temperature']).toContain('0 to 2');
    expect(Object.keys(p.errors).every(isSettingsField)).toBe(true);
  });

  it('shows stored settings as the texts that parse back to them', () => {
    const stored = { model: 'deepseek-reasoner', base_url: 'https://api.deepseek.com/v1', tool_call_mode: 'native', context_window: 131072, temperature: 0, top_p: 0.95, max_tokens: 8000 };
    expect(parseAgentTexts('lead', agentTexts(stored)).value).toEqual(stored);
    expect(agentTexts({ model: '', tool_call_mode: '', context_window: 0, temperature: null, top_p: null, max_tokens: 0 })).toEqual(EMPTY_AGENT_TEXTS);
  });

  it('sends an agent’s own endpoint, a key only when typed, and its removal only when ticked', () => {
    const stored = { model: '', base_url: 'http://127.0.0.1:11434/v1', api_key_set: true, tool_call_mode: '', context_window: 0, temperature: null, top_p: null, max_tokens: 0 };
    const texts = agentTexts(stored);
    expect(texts.api_key).toBe('');
    expect(parseAgentTexts('sub_agents', texts).value).not.toHaveProperty('api_key');
    expect(parseAgentTexts('sub_agents', texts).value).not.toHaveProperty('clear_api_key');
    expect(parseAgentTexts('sub_agents', { ...texts, base_url: ' https://api.groq.com/openai/v1 ', api_key: ' gsk-1 ' }).value).toMatchObject({
      base_url: 'https://api.groq.com/openai/v1',
      api_key: 'gsk-1',
    });
    expect(parseAgentTexts('sub_agents', { ...texts, clear_key: true }).value).toMatchObject({ clear_api_key: true });
    // A key typed wins over the removal, as for the key above.
    expect(parseAgentTexts('sub_agents', { ...texts, clear_key: true, api_key: 'k' }).value).not.toHaveProperty('clear_api_key');
  });
});

describe('search input', () => {
  it('sends only keys typed, and removes stored keys not replaced', () => {
    expect(searchInputOf({ provider: 'brave', keys: { brave: ' BSA-1 ', tavily: '', exa: '  ' }, clear: ['brave', 'exa'], language: ' de ' })).toEqual({
      provider: 'brave',
      keys: { brave: 'BSA-1' },
      clear_keys: ['exa'],
      language: 'de',
    });
  });

  it('says what each provider needs', () => {
    const p = { id: 'x', name: 'X', needs_key: false, needs_url: false, key_url: '', key_stored: false };
    expect(providerNeeds(p)).toBe('no key needed');
    expect(providerNeeds({ ...p, needs_key: true })).toBe('needs an API key');
    expect(providerNeeds({ ...p, needs_key: true, key_stored: true })).toBe('API key stored');
    expect(providerNeeds({ ...p, needs_url: true })).toContain('URL');
  });
});

describe('presets and test results', () => {
  const presets = [
    { name: 'OpenAI', base_url: 'https://api.openai.com/v1', example_model: 'gpt-4.1-mini', needs_key: true },
    { name: 'Ollama', base_url: 'http://localhost:11434/v1', example_model: 'qwen3:8b', needs_key: false },
  ];

  it('finds the preset a base URL is, whatever its trailing slash or host case', () => {
    expect(presetOf('http://LOCALHOST:11434/v1/', presets)?.name).toBe('Ollama');
    expect(presetOf('http://localhost:11434/v2', presets)).toBeUndefined();
    expect(presetOf('', presets)).toBeUndefined();
  });

  it('words results for people', () => {
    expect(connectionText({ ok: true, latency_ms: 842, error: '', endpoint: 'e', model: 'qwen3:8b' })).toBe('qwen3:8b answered in 842 ms');
    expect(connectionText({ ok: false, latency_ms: 0, error: 'llm: POST x: 401 Unauthorized: bad key', endpoint: 'e', model: 'm' })).toBe(
      'llm: POST x: 401 Unauthorized: bad key',
    );
    expect(searchTestText({ ok: true, provider: 'brave', results: 1, latency_ms: 2400, error: '' })).toBe('1 result in 2.4 s');
    expect(searchTestText({ ok: false, provider: 'brave', results: 0, latency_ms: 0, error: 'brave search: API key refused' })).toBe('brave search: API key refused');
  });

  it('says what went wrong with a check, by kind, in English and Chinese', async () => {
    const offline = { ok: false, provider: 'duckduckgo', results: 0, latency_ms: 0, kind: 'offline', host: 'html.duckduckgo.com',
      error: 'duckduckgo search: cannot resolve html.duckduckgo.com (you may be offline, or the name is wrong)' };
    const unauthorized = { ok: false, latency_ms: 0, endpoint: 'e', model: 'gpt-4.1-mini', kind: 'auth', status: 401,
      error: 'llm: POST https://api.openai.com/v1/chat/completions: 401 Unauthorized: Incorrect API key provided' };
    const ollamaDown = { ok: false, latency_ms: 0, endpoint: 'e', model: 'qwen3:8b', kind: 'refused', host: 'http://127.0.0.1:11434', server: 'Ollama',
      error: 'llm: POST http://127.0.0.1:11434/v1/chat/completions: network error: dial tcp 127.0.0.1:11434: connect: connection refused' };
    expect(searchTestText(offline)).toBe('Cannot resolve html.duckduckgo.com: you seem to be offline, or the address is wrong.');
    expect(connectionText(unauthorized)).toBe('The endpoint refused the API key (HTTP 401): check the key (a local server needs none).');
    expect(connectionText(ollamaDown)).toBe('Ollama is not running at http://127.0.0.1:11434. Start it with “ollama serve” (or open the Ollama app), then test again.');
    expect(connectionText({ ...ollamaDown, server: 'LM Studio', host: 'http://127.0.0.1:1234' })).toBe('LM Studio is not running at http://127.0.0.1:1234. Start it, then test again.');
    expect(searchTestText({ ...offline, kind: 'auth' })).toBe('The search provider refused the API key: check it.');
    // No known kind: the error itself.
    expect(connectionText({ ...ollamaDown, kind: undefined })).toBe(ollamaDown.error);
    await i18n.changeLanguage('zh-CN');
    try {
      expect(searchTestText(offline)).toBe('无法解析 html.duckduckgo.com：你可能处于离线状态，或地址有误。');
      expect(connectionText(unauthorized)).toBe('接口拒绝了 API 密钥（HTTP 401）：请检查密钥（本地服务不需要密钥）。');
      expect(connectionText(ollamaDown)).toBe('Ollama 未在 http://127.0.0.1:11434 运行。请用“ollama serve”启动它（或打开 Ollama 应用），再重新测试。');
    } finally {
      await i18n.changeLanguage('en');
    }
  });
});

describe('parseSettingsErrors with the new fields', () => {
  it('puts agent and search errors under their fields', () => {
    const e = parseSettingsErrors({
      code: 'invalid_settings',
      message: 'invalid settings: …',
      fields: {
        'lead.temperature': '3 is outside 0–2',
        'sub_agents.top_p': '1.5 is outside 0–1',
        'search.provider': '"x" is not one of duckduckgo, wikipedia',
        'search.keys.brave': 'the key is empty',
        '': 'disk full',
      },
    });
    expect(e.fields).toEqual({
      'lead.temperature': '3 is outside 0–2',
      'sub_agents.top_p': '1.5 is outside 0–1',
      'search.provider': '"x" is not one of duckduckgo, wikipedia',
      'search.keys.brave': 'the key is empty',
    });
    expect(e.general).toBe('disk full');
  });

  it('leaves names it does not know in the general message', () => {
    expect(parseSettingsErrors({ code: 'invalid_settings', message: 'invalid settings: lead.colour: nope', fields: { 'lead.colour': 'nope' } })).toEqual({
      fields: {},
      general: 'invalid settings: lead.colour: nope',
    });
    expect(isSettingsField('models.qwen')).toBe(false);
  });
});

describe('buildSettingsInput', () => {
  const base: SettingsInput = {
    base_url: 'http://localhost:11434/v1', api_key: '', clear_api_key: false, model: 'qwen3:8b', tool_call_mode: 'native',
    searxng_url: '', allow_private_network: false, max_upload_mb: 20,
  };
  const stored: Settings = {
    ...base, revision: 'r1', api_key_set: false, data_dir: '/d', max_upload_mb_limit: 256, proxy: '', proxy_source: 'direct', proxy_in_effect: '',
    search: { provider: 'brave', keys_stored: ['brave'], language: '' },
    search_providers: [], search_ready: true, search_problem: '', language: '',
    lead: { model: 'qwen3:32b', base_url: '', tool_call_mode: '', context_window: 0, temperature: 0.2, top_p: null, max_tokens: 0 },
    sub_agents: { model: '', base_url: 'http://127.0.0.1:11434/v1', tool_call_mode: 'xml', context_window: 0, temperature: null, top_p: null, max_tokens: 512 },
    set_by: {}, load_remote_images: 'ask',
  };

  it('sends back what was loaded when nothing was changed', () => {
    const built = buildSettingsInput(base, '20', extraFormOf(stored));
    expect(built.errors).toBeNull();
    expect(built.input?.lead).toEqual(stored.lead);
    expect(built.input?.sub_agents).toEqual(stored.sub_agents);
    expect(built.input?.search).toEqual({ provider: 'brave', keys: {}, clear_keys: [], language: '' });
  });

  it('sends nothing while a field is invalid, and names it', () => {
    const extra = extraFormOf(stored);
    extra.lead = { ...extra.lead, temperature: '9' };
    const built = buildSettingsInput(base, 'lots', extra);
    expect(built.input).toBeNull();
    expect(Object.keys(built.errors ?? {}).sort()).toEqual(['lead.temperature', 'max_upload_mb']);
  });
});

describe('setByNote', () => {
  it('names the flag or the environment variable, and says nothing for a stored field', () => {
    const setBy = { model: '--model', api_key: 'OPENAI_API_KEY' };
    expect(setByNote(setBy, 'model')).toMatch(/^Set by --model for this session\./);
    expect(setByNote(setBy, 'api_key')).toMatch(/^Set by the OPENAI_API_KEY environment variable for this session\./);
    expect(setByNote(setBy, 'base_url')).toBe('');
  });
});
