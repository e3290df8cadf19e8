// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from './call';
import { getConversation, listConversations, listSources, messageEvents, normalizeSource } from './conversations';

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
const bindSources = (sources: (...args: unknown[]) => unknown) => bind({ ConversationService: { Sources: sources } });

describe('ConversationService', () => {
  it('rejects with code "unavailable" when no backend is attached', async () => {
    await expect(listConversations()).rejects.toMatchObject({ code: 'unavailable' });
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
      conversation: { id: 'c1', title: 'T', created_at: '', updated_at: '', running: false, last_status: '', pinned: false, archived: false },
      messages: [],
    });
    const events = await messageEvents('c1', 'm1');
    expect(events.map((e) => [e.type, e.seq])).toEqual([['metadata', 1]]);
  });
});

describe('listSources', () => {
  it('asks for the conversation and returns normalized sources in number order', async () => {
    const fn = vi.fn(() =>
      Promise.resolve([
        { n: 2, kind: 'file', location: 'notes/a.md', page: 3, fetched: true },
        { n: 1, kind: 'web', location: 'https://example.com/a', title: 'A', site: 'example.com', published: null },
        { n: 0, kind: 'web', location: 'https://bad.example/' },
      ]),
    );
    bindSources(fn);
    const got = await listSources('c1');
    expect(fn).toHaveBeenCalledWith('c1');
    expect(got.map((s) => s.n)).toEqual([1, 2]);
    expect(got[0]).toMatchObject({ title: 'A', site: 'example.com', published: '', fetched: false, page: 0 });
    expect(got[1]).toMatchObject({ kind: 'file', location: 'notes/a.md', page: 3, fetched: true, title: '' });
  });

  it('gives an empty list for null', async () => {
    bindSources(() => Promise.resolve(null));
    await expect(listSources('c1')).resolves.toEqual([]);
  });

  it('turns a Go error into an ApiError with its code', async () => {
    bindSources(() => Promise.reject(new Error('not_found: no such conversation')));
    const err: unknown = await listSources('c1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('not_found');
  });

  it('rejects as unsupported on a backend without Sources, unavailable with none', async () => {
    win.go = { app: { ConversationService: {} } };
    expect(((await listSources('c').catch((e: unknown) => e)) as ApiError).code).toBe('unsupported');
    delete win.go;
    expect(((await listSources('c').catch((e: unknown) => e)) as ApiError).code).toBe('unavailable');
  });
});

describe('normalizeSource', () => {
  it('refuses entries without a number or location', () => {
    expect(normalizeSource({ n: 1 })).toBeNull();
    expect(normalizeSource({ location: 'x' })).toBeNull();
    expect(normalizeSource('x')).toBeNull();
    expect(normalizeSource({ n: 1.5, location: 'x' })).toBeNull();
  });
});

