// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ApiError,
  getConversation,
  isSettingsError,
  listConversations,
  messageEvents,
  onRunEvent,
  openExternal,
  saveSettings,
  sendMessage,
  toApiError,
} from './api';

type Loose = Record<string, unknown>;
const win = window as unknown as Loose;

/** Installs a fake window.go.app with the given services. */
function bind(services: Record<string, Record<string, (...args: unknown[]) => unknown>>) {
  win.go = { app: services };
}

afterEach(() => {
  delete win.go;
  delete win.runtime;
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

describe('bound calls', () => {
  it('rejects with an ApiError carrying the parsed code when the backend rejects with a string', async () => {
    // Wails rejects with the Go error's text, not an Error.
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    bind({ ChatService: { Send: () => Promise.reject('busy: a run is going') } });
    const err = await sendMessage('c1', 'q').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'busy', message: 'a run is going' });
  });

  it('rejects with code "unavailable" when no backend is attached', async () => {
    await expect(listConversations()).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('sends the request shapes the Go structs expect', async () => {
    const send = vi.fn((..._args: unknown[]) => Promise.resolve({ conversation_id: 'c9', message_id: 'm9' }));
    const save = vi.fn((..._args: unknown[]) => Promise.resolve({ base_url: 'http://x', api_key_set: true }));
    bind({ ChatService: { Send: send }, SettingsService: { Save: save } });
    await expect(sendMessage('', 'hello')).resolves.toEqual({ conversation_id: 'c9', message_id: 'm9' });
    expect(JSON.parse(JSON.stringify(send.mock.calls[0]?.[0]))).toEqual({ conversation_id: '', content: 'hello' });
    const input = { base_url: 'http://x', api_key: '', clear_api_key: false, model: 'm', tool_call_mode: 'xml', searxng_url: '', allow_private_network: true, max_upload_mb: 50 };
    // A view without max_upload_mb (older backend) shows the default limit.
    await expect(saveSettings(input)).resolves.toMatchObject({ base_url: 'http://x', api_key_set: true, tool_call_mode: 'native', max_upload_mb: 20 });
    expect(JSON.parse(JSON.stringify(save.mock.calls[0]?.[0]))).toEqual(input);
  });

  it('normalizes Go nil slices and missing fields', async () => {
    bind({
      ConversationService: {
        List: () => Promise.resolve(null),
        Get: () => Promise.resolve({ conversation: { id: 'c1', title: 'T' }, messages: null }),
        Events: () => Promise.resolve([{ type: 'metadata', conversation_id: 'c1', message_id: 'm1', seq: 1, data: {} }, 'junk']),
      },
    });
    await expect(listConversations()).resolves.toEqual([]);
    await expect(getConversation('c1')).resolves.toEqual({
      conversation: { id: 'c1', title: 'T', created_at: '', updated_at: '', running: false, last_status: '' },
      messages: [],
    });
    const events = await messageEvents('c1', 'm1');
    expect(events.map((e) => [e.type, e.seq])).toEqual([['metadata', 1]]);
  });
});

describe('runtime', () => {
  it('delivers parsed run events and drops malformed payloads', () => {
    const handlers: ((p: unknown) => void)[] = [];
    win.runtime = {
      EventsOnMultiple: (name: string, cb: (p: unknown) => void) => {
        expect(name).toBe('run:event');
        handlers.push(cb);
        return () => undefined;
      },
    };
    const got: unknown[] = [];
    onRunEvent((e) => got.push(e.seq));
    handlers[0]?.({ type: 'complete', conversation_id: 'c', message_id: 'm', seq: 7, data: {} });
    handlers[0]?.('garbage');
    expect(got).toEqual([7]);
  });

  it('opens only external links, through BrowserOpenURL', () => {
    const open = vi.fn();
    win.runtime = { BrowserOpenURL: open };
    expect(openExternal('https://example.org/a?b=1')).toBe(true);
    expect(openExternal('mailto:someone@example.org')).toBe(true);
    expect(openExternal('javascript:alert(1)')).toBe(false);
    expect(openExternal('/relative')).toBe(false);
    expect(openExternal('file:///etc/passwd')).toBe(false);
    expect(open.mock.calls).toEqual([['https://example.org/a?b=1'], ['mailto:someone@example.org']]);
  });
});
