// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, asBool, asList, asNumber, asObject, asString, callService, isSettingsError, toApiError } from './call';
import { getWorkspaceStatus } from './conversations';
import { getPresets } from './settings';

type Loose = Record<string, unknown>;
const win = window as unknown as Loose;

afterEach(() => {
  delete win.go;
});

const failure = (p: Promise<unknown>) => p.then(() => new Error('resolved'), (e: unknown) => e);

describe('callService', () => {
  it('says "unavailable" without a backend and "unsupported" for a method the backend does not bind', async () => {
    const fn = vi.fn(() => Promise.resolve(1));
    const none = await failure(callService('SettingsService', 'Presets', fn));
    expect(none).toBeInstanceOf(ApiError);
    expect(none).toMatchObject({ code: 'unavailable' });
    win.go = { app: { SettingsService: { Get: () => Promise.resolve({}) } } };
    expect(await failure(callService('SettingsService', 'Presets', fn))).toMatchObject({
      code: 'unsupported',
      message: 'This backend has no SettingsService.Presets.',
    });
    expect(await failure(callService('ChatService', 'Send', fn))).toMatchObject({ code: 'unsupported', message: 'This backend has no ChatService.Send.' });
    expect(fn).not.toHaveBeenCalled();
  });

  it('resolves with the call’s value and turns its rejection into an ApiError with the code', async () => {
    win.go = { app: { SettingsService: { Presets: () => undefined } } };
    await expect(callService('SettingsService', 'Presets', () => Promise.resolve([1]))).resolves.toEqual([1]);
    const err = await failure(callService('SettingsService', 'Presets', () => Promise.reject(new Error('invalid_settings: base_url: not a URL'))));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'invalid_settings', message: 'base_url: not a URL' });
  });

  it('is what the typed modules use: each names its own service', async () => {
    win.go = { app: { ConversationService: {} } };
    expect(await failure(getPresets())).toMatchObject({ code: 'unsupported', message: 'This backend has no SettingsService.Presets.' });
    expect(await failure(getWorkspaceStatus('c1'))).toMatchObject({ code: 'unsupported' });
  });
});

describe('normalizers', () => {
  it('keep values of the right type and replace anything else (Go’s null, a missing field)', () => {
    expect([asString('a'), asString(1), asString(null)]).toEqual(['a', '', '']);
    expect([asNumber(3), asNumber(Number.NaN), asNumber(Infinity), asNumber('3')]).toEqual([3, 0, 0, 0]);
    expect([asBool(true), asBool('true'), asBool(1)]).toEqual([true, false, false]);
    expect([asObject({ a: 1 }), asObject([1]), asObject(null)]).toEqual([{ a: 1 }, {}, {}]);
    expect([asList([1]), asList(null), asList({ 0: 1 })]).toEqual([[1], [], []]);
  });
});

describe('toApiError', () => {
  it.each([
    ['not_found: conversation c1 does not exist', 'not_found', 'conversation c1 does not exist'],
    ['invalid_settings: base_url: must be http(s)', 'invalid_settings', 'base_url: must be http(s)'],
    ['a run is already in progress in this conversation', 'error', 'a run is already in progress in this conversation'],
    // A Go error chain's first word is no code: only the backend's codes are read from a prefix.
    ['store: not found', 'error', 'store: not found'],
    ['lead_agent: llm: POST http://x: network error', 'error', 'lead_agent: llm: POST http://x: network error'],
    // A Go error chain with spaces before the first colon has no code.
    ['invalid settings: base_url: must be an absolute http(s) URL', 'error', 'invalid settings: base_url: must be an absolute http(s) URL'],
    ['no model configured: set the model in Settings', 'error', 'no model configured: set the model in Settings'],
    ['  ', 'error', 'Unknown error'],
  ])('string %j -> code %j', (input, code, message) => {
    const e = toApiError(input);
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toBeInstanceOf(Error);
    expect([e.code, e.message]).toEqual([code, message]);
  });

  it('decodes the AppError JSON the window and browser mode reject with', () => {
    const json = JSON.stringify({
      code: 'invalid_settings',
      message: 'invalid settings: base_url: bad',
      fields: { base_url: 'bad', n: 3 },
      retryable: false,
    });
    for (const rejected of [new Error(json), json]) {
      const e = toApiError(rejected);
      expect(e).toMatchObject({ code: 'invalid_settings', message: 'invalid settings: base_url: bad', detail: '', retryable: false });
      expect(e.fields).toEqual({ base_url: 'bad' });
    }
    const net = toApiError(
      new Error('{"code":"model_unreachable","message":"The model endpoint could not be reached","detail":"dial tcp: refused","retryable":true}'),
    );
    expect(net).toMatchObject({ code: 'model_unreachable', detail: 'dial tcp: refused', retryable: true });
    // Not an AppError: JSON without a code is text.
    expect(toApiError(new Error('{"message":"x"}'))).toMatchObject({ code: 'error', message: '{"message":"x"}' });
    expect(toApiError(new Error('{broken'))).toMatchObject({ code: 'error', message: '{broken' });
  });

  it('converts Error instances, {code, message} objects and other values', () => {
    expect(toApiError(new TypeError('busy: try later'))).toMatchObject({ code: 'busy', message: 'try later' });
    expect(toApiError({ code: 'E1', message: 'boom' })).toMatchObject({ code: 'E1', message: 'boom' });
    expect(toApiError({ error: 'title must be 1-200 characters' })).toMatchObject({ code: 'error', message: 'title must be 1-200 characters' });
    expect(toApiError(42)).toMatchObject({ code: 'error', message: '42' });
    const same = new ApiError('x', 'y');
    expect(toApiError(same)).toBe(same);
  });
});

describe('isSettingsError', () => {
  it.each([
    [new Error('{"code":"model_not_configured","message":"No model is configured"}'), true],
    [new Error('{"code":"invalid_settings","message":"invalid settings: base_url: bad","fields":{"base_url":"bad"}}'), true],
    ['model_not_configured: No model is configured', true],
    // The code decides, never the text.
    ['no model configured: set the model in Settings (or --model)', false],
    ['missing API key', false],
    [new Error('{"code":"busy","message":"no model configured"}'), false],
    ['a run is already in progress in this conversation', false],
  ])('%j -> %j', (err, want) => {
    expect(isSettingsError(err)).toBe(want);
  });
});
