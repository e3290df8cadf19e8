// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from './call';
import { sendMessage } from './chat';

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

describe('ChatService', () => {
  it('rejects with an ApiError carrying the parsed code when the backend rejects with a string', async () => {
    // Wails rejects with the Go error's text, not an Error.
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    bind({ ChatService: { Send: () => Promise.reject('busy: a run is going') } });
    const err = await sendMessage('c1', 'q').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'busy', message: 'a run is going' });
  });

  it('rejects with code "unavailable" when no backend is attached', async () => {
    await expect(sendMessage('c1', 'q')).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('sends the SendRequest shape the Go struct expects', async () => {
    const send = vi.fn((..._args: unknown[]) => Promise.resolve({ conversation_id: 'c9', message_id: 'm9' }));
    bind({ ChatService: { Send: send } });
    await expect(sendMessage('', 'hello')).resolves.toEqual({ conversation_id: 'c9', message_id: 'm9' });
    expect(JSON.parse(JSON.stringify(send.mock.calls[0]?.[0]))).toEqual({ conversation_id: '', content: 'hello', images: [] });
  });
});
