// @vitest-environment jsdom
// The language switch: Settings' Language select switches the UI at once, remembers the
// choice locally and in the backend; on start the backend's choice wins.
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LanguageSettings } from '../settings/LanguageSettings';
import { RunError } from '../chat/RunError';
import { i18n, LANGUAGE_STORAGE_KEY, languagePreference } from './i18n';
import { preferenceOf, syncLanguageFromBackend } from './language';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

type Loose = Record<string, unknown>;
const win = window as unknown as Loose;
let host: HTMLDivElement;
let root: Root;

beforeEach(() => {
  localStorage.clear();
  host = document.createElement('div');
  document.body.append(host);
  root = createRoot(host);
});
afterEach(async () => {
  act(() => root.unmount());
  host.remove();
  delete win.go;
  localStorage.clear();
  await i18n.changeLanguage('en');
});

function backend(language: unknown) {
  const svc = {
    Get: vi.fn(() => Promise.resolve({ model: 'm', language })),
    SetLanguage: vi.fn((lang: string) => Promise.resolve({ model: 'm', language: lang })),
  };
  win.go = { app: { SettingsService: svc } };
  return svc;
}

describe('the Language select', () => {
  it('switches every mounted component at once and stores the choice in both places', async () => {
    const svc = backend('');
    act(() =>
      root.render(
        <>
          <LanguageSettings />
          <RunError code="model_auth" message="401" onOpenSettings={() => {}} />
        </>,
      ),
    );
    const select = host.querySelector<HTMLSelectElement>('select')!;
    expect([...select.options].map((o) => o.textContent)).toEqual(['System (English)', 'English', '中文（简体）']);
    expect(host.querySelector('strong')?.textContent).toBe('The model refused the API key');
    await act(async () => {
      select.value = 'zh-CN';
      select.dispatchEvent(new Event('change', { bubbles: true }));
      await Promise.resolve();
    });
    expect(i18n.language).toBe('zh-CN');
    expect(document.documentElement.lang).toBe('zh-CN');
    expect(host.querySelector('legend')?.textContent).toBe('语言');
    expect(host.querySelector('strong')?.textContent).toBe('模型拒绝了 API 密钥');
    expect(localStorage.getItem(LANGUAGE_STORAGE_KEY)).toBe('zh-CN');
    expect(svc.SetLanguage).toHaveBeenCalledWith('zh-CN');
  });

  it('shows the backend refusing the choice, the UI switched all the same', async () => {
    const svc = backend('');
    svc.SetLanguage.mockImplementation(() => Promise.reject(new Error('{"code":"invalid_settings","message":"invalid settings: language: bad","fields":{"language":"bad"}}')));
    act(() => root.render(<LanguageSettings />));
    const select = host.querySelector<HTMLSelectElement>('select')!;
    await act(async () => {
      select.value = 'en';
      select.dispatchEvent(new Event('change', { bubbles: true }));
      await new Promise((r) => setTimeout(r, 0));
    });
    expect(host.querySelector('[role=alert]')?.textContent).toContain('invalid settings');
    expect(languagePreference()).toBe('en');
  });
});

describe('syncLanguageFromBackend', () => {
  it('applies the backend language when it differs from the local one', async () => {
    localStorage.setItem(LANGUAGE_STORAGE_KEY, 'en');
    backend('zh-CN');
    await expect(syncLanguageFromBackend()).resolves.toBe('zh-CN');
    expect(i18n.language).toBe('zh-CN');
    expect(languagePreference()).toBe('zh-CN');
  });

  it('keeps the local choice without a backend or with an older one that has no language', async () => {
    localStorage.setItem(LANGUAGE_STORAGE_KEY, 'zh-CN');
    await i18n.changeLanguage('zh-CN');
    await expect(syncLanguageFromBackend()).resolves.toBe('zh-CN');
    backend(undefined);
    await expect(syncLanguageFromBackend()).resolves.toBe('zh-CN');
    expect(i18n.language).toBe('zh-CN');
  });

  it.each([
    ['', ''],
    ['en', 'en'],
    ['zh-CN', 'zh-CN'],
    ['fr', null],
    [undefined, null],
  ])('reads %j as %j', (v, want) => {
    expect(preferenceOf(v)).toBe(want);
  });
});
