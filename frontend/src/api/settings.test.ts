// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from './call';
import { getConversationSettings, getModelContext, getSettings, saveSettings, setLanguage } from './settings';

type Loose = Record<string, unknown>;
const win = window as unknown as Loose;
/** Installs a fake window.go.app with the given services. */
const bind = (services: Record<string, Record<string, (...args: unknown[]) => unknown>>) => {
  win.go = { app: services };
};

afterEach(() => {
  delete win.go;
  delete win.runtime;
});

describe('SettingsService', () => {
  it('sends the SettingsInput shape the Go struct expects and normalizes the view', async () => {
    const save = vi.fn((..._args: unknown[]) => Promise.resolve({ base_url: 'http://x', api_key_set: true }));
    bind({ SettingsService: { Save: save } });
    const input = { base_url: 'http://x', api_key: '', clear_api_key: false, model: 'm', tool_call_mode: 'xml', searxng_url: '', allow_private_network: true, max_upload_mb: 50 };
    // A view without max_upload_mb (older backend) shows the default limit.
    await expect(saveSettings(input)).resolves.toMatchObject({ base_url: 'http://x', api_key_set: true, tool_call_mode: 'native', max_upload_mb: 20 });
    expect(JSON.parse(JSON.stringify(save.mock.calls[0]?.[0]))).toEqual(input);
  });

  it('reads the upload limit from the settings, defaulting to 20 MB', async () => {
    bind({ SettingsService: { Get: () => Promise.resolve({ max_upload_mb: 50 }) } });
    await expect(getSettings()).resolves.toMatchObject({ max_upload_mb: 50 });
    bind({ SettingsService: { Get: () => Promise.resolve({}) } });
    await expect(getSettings()).resolves.toMatchObject({ max_upload_mb: 20 });
  });
});

describe('context settings per model', () => {
  it('reads the chosen model with its window and threshold', async () => {
    bind({ SettingsService: { Get: () => Promise.resolve({ model: 'qwen3:8b', context_window: 40960, effective_context_window: 40960, compact_at_percent: 70 }) } });
    await expect(getConversationSettings()).resolves.toMatchObject({ model: 'qwen3:8b', context_window: 40960, compact_at_percent: 70 });
  });

  it("asks for another model's context by name and fills the default threshold", async () => {
    const fn = vi.fn(() => Promise.resolve({ model: 'llama3.1:8b', context_window: 0, effective_context_window: 32768 }));
    bind({ SettingsService: { ModelContext: fn } });
    await expect(getModelContext('llama3.1:8b')).resolves.toEqual({
      model: 'llama3.1:8b',
      context_window: 0,
      effective_context_window: 32768,
      compact_at_percent: 80,
      vision: false,
      vision_by_name: false,
    });
    expect(fn).toHaveBeenCalledWith('llama3.1:8b');
  });

  it('rejects as unsupported on a backend without per-model settings', async () => {
    bind({ SettingsService: { Get: () => Promise.resolve({}) } });
    const err: unknown = await getModelContext('m').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('unsupported');
  });
});


describe('UI language', () => {
  it('stores it through SettingsService.SetLanguage and returns the settings', async () => {
    const set = vi.fn((..._args: unknown[]) => Promise.resolve({ model: 'm' }));
    bind({ SettingsService: { SetLanguage: set } });
    await expect(setLanguage('zh-CN')).resolves.toMatchObject({ model: 'm', max_upload_mb: 20 });
    expect(set).toHaveBeenCalledWith('zh-CN');
    bind({ SettingsService: {} });
    await expect(setLanguage('en')).rejects.toMatchObject({ code: 'unsupported' });
  });
});
