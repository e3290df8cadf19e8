// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RunError } from '../chat/RunError';
import { RunBadge } from '../sidebar/Sidebar';
import { describeError, ERROR_CODES, errorMessage, fixesFor, isErrorCode, needsSetup, parseErrorPayload, runErrorTitle } from './errors';
import { i18n } from '../i18n/i18n';
import { replayRun, type RunEvent } from '../run/events';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe('parseErrorPayload', () => {
  it.each([
    ['{"code":"not_found","message":"Not found"}', { code: 'not_found', message: 'Not found', detail: '', fields: {}, retryable: false }],
    [
      ' {"code":"model_rate_limited","message":"m","detail":"d","retryable":true,"fields":{"a":"b","n":1}} ',
      { code: 'model_rate_limited', message: 'm', detail: 'd', fields: { a: 'b' }, retryable: true },
    ],
    ['not_found: Not found', null],
    ['{"message":"no code"}', null],
    ['{"code":"","message":"empty code"}', null],
    ['["code"]', null],
    ['{oops', null],
  ])('%j', (text, want) => {
    expect(parseErrorPayload(text)).toEqual(want);
  });
});

describe('fixesFor', () => {
  it.each([
    ['model_auth', {}, { openSettings: true, retry: false }],
    ['model_unreachable', {}, { openSettings: true, retry: true }],
    ['model_not_configured', {}, { openSettings: true, retry: false }],
    ['invalid_settings', { base_url: 'bad' }, { openSettings: true, retry: false }],
    ['model_rate_limited', {}, { openSettings: false, retry: true }],
    ['model_unavailable', {}, { openSettings: false, retry: true }],
    ['timeout', {}, { openSettings: false, retry: true }],
    ['search_failed', { reason: 'auth' }, { openSettings: true, retry: false }],
    ['search_failed', { reason: 'not_configured' }, { openSettings: true, retry: false }],
    ['search_failed', { reason: 'rate_limited' }, { openSettings: false, retry: true }],
    ['not_found', {}, { openSettings: false, retry: false }],
    ['', {}, { openSettings: false, retry: false }],
  ])('%s %j', (code, fields, want) => {
    expect(fixesFor(code, fields)).toEqual(want);
  });

  it('knows every code the backend sends and only those', () => {
    expect(ERROR_CODES).toContain('model_unreachable');
    expect(isErrorCode('store')).toBe(false);
    expect(needsSetup('model_not_configured') && needsSetup('invalid_settings') && !needsSetup('model_auth')).toBe(true);
    expect(runErrorTitle('model_unreachable')).not.toBe(runErrorTitle(''));
  });
});

describe('describeError', () => {
  it('words not_found by its code, whatever the backend wrote', () => {
    expect(describeError({ code: 'not_found', message: 'Not found: it may have been deleted.' })).toMatch(/no longer exists/);
    expect(describeError({ code: 'error', message: 'store: not found' })).toBe('store: not found');
    expect(describeError({ code: 'conflict', message: 'someone saved first' })).toBe('It was changed elsewhere in the meantime. (someone saved first)');
  });

  it('has a message for every code in both languages, and keeps the backend text as the detail', async () => {
    for (const code of ERROR_CODES) expect(errorMessage(code), code).not.toBe('');
    expect(errorMessage('store')).toBe('');
    await i18n.changeLanguage('zh-CN');
    try {
      for (const code of ERROR_CODES) expect(errorMessage(code), code).toMatch(/[\u4e00-\u9fff]/);
      expect(describeError({ code: 'not_found', message: 'store: not found' })).toBe('它已不存在：已被删除，可能是在另一个窗口中。');
      expect(describeError({ code: 'model_auth', message: '401 Unauthorized' })).toBe('模型拒绝了 API 密钥。（401 Unauthorized）');
      expect(runErrorTitle('model_unreachable')).toBe('无法连接到模型');
    } finally {
      await i18n.changeLanguage('en');
    }
  });
});

describe('the error event', () => {
  it('keeps the code of a failed run', () => {
    const ev = (type: string, seq: number, data: unknown): RunEvent =>
      ({ type, conversation_id: 'c', message_id: 'm', seq, created_at: '2026-01-01T00:00:00Z', data }) as RunEvent;
    const run = replayRun(
      [ev('metadata', 1, { content: 'q' }), ev('error', 2, { error: 'lead_agent: llm: POST http://x: network error', code: 'model_unreachable' })],
      'm',
    );
    expect([run?.status, run?.errorCode, run?.error]).toEqual(['error', 'model_unreachable', 'lead_agent: llm: POST http://x: network error']);
    const old = replayRun([ev('metadata', 1, { content: 'q' }), ev('error', 2, { error: 'boom' })], 'm');
    expect(old?.errorCode).toBe('');
  });
});

describe('RunError and RunBadge', () => {
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
  const buttons = () => [...host.querySelectorAll('button')].map((b) => b.textContent);

  it('offers Open settings and Retry for an unreachable model, by its code', () => {
    const open = vi.fn();
    const retry = vi.fn();
    act(() => root.render(<RunError code="model_unreachable" message="dial tcp: refused" onOpenSettings={open} onRetry={retry} />));
    expect(host.querySelector('strong')?.textContent).toBe('The model could not be reached');
    expect(host.textContent).toContain('dial tcp: refused');
    expect(buttons()).toEqual(['Open settings', 'Retry']);
    act(() => host.querySelectorAll('button')[0]?.click());
    act(() => host.querySelectorAll('button')[1]?.click());
    expect([open.mock.calls.length, retry.mock.calls.length]).toEqual([1, 1]);
  });

  it('offers only Retry for a rate limit and nothing for an unknown code, whatever the text says', () => {
    act(() => root.render(<RunError code="model_rate_limited" message="429" onOpenSettings={() => {}} onRetry={() => {}} />));
    expect(buttons()).toEqual(['Retry']);
    act(() => root.render(<RunError code="" message="401 Unauthorized: API key refused" onOpenSettings={() => {}} onRetry={() => {}} />));
    expect(buttons()).toEqual([]);
    expect(host.querySelector('strong')?.textContent).toBe('The research failed');
  });

  it('speaks Chinese when the UI does', async () => {
    await act(() => i18n.changeLanguage('zh-CN'));
    try {
      act(() => root.render(<RunError code="model_auth" message="401 Unauthorized" onOpenSettings={() => {}} onRetry={() => {}} />));
      expect(host.querySelector('strong')?.textContent).toBe('模型拒绝了 API 密钥');
      expect(host.textContent).toContain('请在设置中检查 API 密钥。');
      expect(host.textContent).toContain('401 Unauthorized');
      expect(buttons()).toEqual(['打开设置']);
    } finally {
      await act(() => i18n.changeLanguage('en'));
    }
  });

  it.each([
    ['error', 'Failed'],
    ['interrupted', 'Failed'],
    ['cancelled', 'Stopped'],
    ['complete', ''],
    ['running', ''],
    ['', ''],
  ] as const)('badge for last status %j is %j', (status, want) => {
    act(() => root.render(<RunBadge status={status} />));
    expect(host.textContent).toBe(want);
  });
});
