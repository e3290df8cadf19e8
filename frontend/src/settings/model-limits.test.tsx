// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildSettingsInput, extraFormOf, isSettingsField, parseSettingsErrors } from './SettingsDialog';
import { SettingsDialog } from './SettingsDialog';
import { modelLimitTexts, parseModelLimits } from './settings-form';
import type { Settings, SettingsInput } from '../api/settings';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

type Loose = Record<string, unknown>;
const win = window as unknown as Loose;
const proto = HTMLDialogElement.prototype as unknown as Loose;
proto.showModal ??= function (this: HTMLDialogElement) {
  this.open = true;
};
proto.close ??= function (this: HTMLDialogElement) {
  this.open = false;
};

const stored = {
  base_url: 'http://localhost:11434/v1', api_key_set: false, model: 'qwen3:8b', tool_call_mode: 'native', searxng_url: '',
  allow_private_network: false, max_upload_mb: 20, max_upload_mb_limit: 256, proxy: '', proxy_source: 'direct', proxy_in_effect: '', data_dir: '/d', context_window: 0, effective_context_window: 32768,
  compact_at_percent: 80, tool_permissions: {}, permission_timeout_seconds: 120,
  search: { provider: 'duckduckgo', keys_stored: [], language: '' },
  search_providers: [{ id: 'duckduckgo', name: 'DuckDuckGo', needs_key: false, needs_url: false, key_url: '', key_stored: false }],
  search_ready: true, search_problem: '',
  lead: { model: '', tool_call_mode: '', context_window: 0, temperature: null, top_p: null, max_tokens: 0 },
  sub_agents: { model: '', tool_call_mode: '', context_window: 0, temperature: null, top_p: null, max_tokens: 0 },
  set_by: {}, load_remote_images: 'ask', language: '',
  model_idle_timeout_seconds: 300, max_answer_mb: 8,
};

describe('model call limits, parsed', () => {
  it('keeps empty fields as the defaults (0) and whole numbers in range', () => {
    expect(parseModelLimits({ idle: '', answer: '' })).toEqual({ value: { model_idle_timeout_seconds: 0, max_answer_mb: 0, max_parallel_tool_calls: 0 }, errors: {} });
    expect(parseModelLimits({ idle: ' 1,200 ', answer: '64', parallel: '16' })).toEqual({
      value: { model_idle_timeout_seconds: 1200, max_answer_mb: 64, max_parallel_tool_calls: 16 },
      errors: {},
    });
    expect(parseModelLimits({ idle: '', answer: '', parallel: '1' }).value.max_parallel_tool_calls).toBe(1);
  });
  it.each(['0', '17', 'two'])('refuses %j tool calls at once under max_parallel_tool_calls', (parallel) => {
    const p = parseModelLimits({ idle: '', answer: '', parallel });
    expect(Object.keys(p.errors)).toEqual(['max_parallel_tool_calls']);
    expect(p.errors.max_parallel_tool_calls).toBe('enter a whole number of calls from 1 to 16, or leave it empty');
  });
  it.each([
    ['4', '', 'model_idle_timeout_seconds'],
    ['3601', '', 'model_idle_timeout_seconds'],
    ['2.5', '', 'model_idle_timeout_seconds'],
    ['', '0', 'max_answer_mb'],
    ['', '65', 'max_answer_mb'],
    ['', 'lots', 'max_answer_mb'],
  ])('refuses idle %j, answer %j under %s', (idle, answer, field) => {
    const p = parseModelLimits({ idle, answer });
    expect(Object.keys(p.errors)).toEqual([field]);
    expect(p.errors[field]).toMatch(/^enter a whole number of (seconds|MB) from \d+ to [\d,]+, or leave it empty$/);
  });
  it('shows stored defaults (and an older backend without the fields) as empty fields', () => {
    expect(modelLimitTexts({ model_idle_timeout_seconds: 300, max_answer_mb: 4, max_parallel_tool_calls: 4 })).toEqual({ idle: '', answer: '', parallel: '' });
    expect(modelLimitTexts({})).toEqual({ idle: '', answer: '', parallel: '' });
    expect(modelLimitTexts({ model_idle_timeout_seconds: 45, max_answer_mb: 8, max_parallel_tool_calls: 1 })).toEqual({ idle: '45', answer: '8', parallel: '1' });
  });
  it('goes into what Save sends, or stops it naming the field; the backend’s errors land on the fields', () => {
    const base: SettingsInput = { base_url: '', api_key: '', clear_api_key: false, model: 'm', tool_call_mode: 'native', searxng_url: '', allow_private_network: false, max_upload_mb: 20 };
    const extra = extraFormOf(stored as unknown as Settings);
    expect(buildSettingsInput(base, '20', extra).input).toMatchObject({ model_idle_timeout_seconds: 0, max_answer_mb: 8 });
    const bad = buildSettingsInput(base, '20', { ...extra, limits: { idle: '1', answer: '8' } });
    expect(bad.input).toBeNull();
    expect(Object.keys(bad.errors ?? {})).toEqual(['model_idle_timeout_seconds']);
    expect(isSettingsField('model_idle_timeout_seconds') && isSettingsField('max_answer_mb') && isSettingsField('max_parallel_tool_calls')).toBe(true);
    const e = new Error('{"code":"invalid_settings","message":"invalid settings: max_answer_mb: 65 is outside 1–64","fields":{"max_answer_mb":"65 is outside 1–64"}}');
    expect(parseSettingsErrors(e)).toEqual({ fields: { max_answer_mb: '65 is outside 1–64' }, general: '' });
  });
});

let root: Root | null = null;
const host = document.createElement('div');
document.body.appendChild(host);
let save: ReturnType<typeof vi.fn>;

beforeEach(() => {
  save = vi.fn((input: Loose) => Promise.resolve({ ...stored, ...input }));
  win.go = {
    app: {
      SettingsService: {
        Get: vi.fn(() => Promise.resolve(stored)),
        Save: save,
        ModelContext: vi.fn((m: string) => Promise.resolve({ model: m, context_window: 0, effective_context_window: 32768, compact_at_percent: 80 })),
        Presets: vi.fn(() => Promise.resolve([])),
        ListModels: vi.fn(() => Promise.resolve([])),
      },
    },
  };
});

afterEach(() => {
  act(() => root?.unmount());
  root = null;
  delete win.go;
});

const wait = (ms: number) => act(() => new Promise((r) => setTimeout(r, ms)));

function field(label: string): HTMLInputElement {
  const el = [...host.querySelectorAll<HTMLInputElement>('input')].find((x) => x.getAttribute('aria-label') === label);
  if (!el) throw new Error(`no field ${label}`);
  return el;
}

function type(el: HTMLInputElement, value: string) {
  act(() => {
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set?.call(el, value);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

async function submit() {
  await act(async () => {
    host.querySelector('form')?.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    await Promise.resolve();
  });
  await wait(0);
}

describe('settings dialog: model call limits', () => {
  it('shows the stored limits, refuses a bad one under its field, and saves good ones', async () => {
    await act(async () => {
      root ??= createRoot(host);
      root.render(<SettingsDialog onClose={() => undefined} onSaved={() => undefined} />);
      await Promise.resolve();
    });
    await wait(0);
    const idle = field('Idle timeout');
    const answer = field('Largest answer');
    expect(idle.value).toBe('');
    expect(idle.placeholder).toBe('300');
    expect(answer.value).toBe('8');

    type(idle, '2');
    await submit();
    expect(save).not.toHaveBeenCalled();
    expect(idle.getAttribute('aria-invalid')).toBe('true');
    expect(host.querySelector('#err-model_idle_timeout_seconds')?.textContent).toBe('enter a whole number of seconds from 5 to 3,600, or leave it empty');

    type(idle, '45');
    expect(host.querySelector('#err-model_idle_timeout_seconds')).toBeNull();
    const parallel = field('Tool calls at once');
    expect(parallel.value).toBe('');
    expect(parallel.placeholder).toBe('4');
    type(parallel, '2');
    await submit();
    expect(save).toHaveBeenCalledTimes(1);
    expect(save.mock.calls[0]?.[0]).toMatchObject({ model_idle_timeout_seconds: 45, max_answer_mb: 8, max_parallel_tool_calls: 2 });
  });
});
