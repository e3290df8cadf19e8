// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from './api';
import { getConversationSettings, getModelContext } from './api-conversation';

type Loose = Record<string, unknown>;
const win = window as unknown as Loose;
const bind = (services: Record<string, Record<string, (...args: unknown[]) => unknown>>) => {
  win.go = { app: services };
};

afterEach(() => {
  delete win.go;
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
