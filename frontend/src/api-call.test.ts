// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from './api';
import { asBool, asList, asNumber, asObject, asString, callService } from './api-call';
import { getPresets } from './api-settings';
import { getWorkspaceStatus } from './api-workspace';

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
