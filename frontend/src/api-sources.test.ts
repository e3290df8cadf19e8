// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from './api';
import { listSources, normalizeSource } from './api-sources';

type Loose = Record<string, unknown>;
const win = window as unknown as Loose;
const bind = (sources: (...args: unknown[]) => unknown) => {
  win.go = { app: { ConversationService: { Sources: sources } } };
};

afterEach(() => {
  delete win.go;
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
    bind(fn);
    const got = await listSources('c1');
    expect(fn).toHaveBeenCalledWith('c1');
    expect(got.map((s) => s.n)).toEqual([1, 2]);
    expect(got[0]).toMatchObject({ title: 'A', site: 'example.com', published: '', fetched: false, page: 0 });
    expect(got[1]).toMatchObject({ kind: 'file', location: 'notes/a.md', page: 3, fetched: true, title: '' });
  });

  it('gives an empty list for null', async () => {
    bind(() => Promise.resolve(null));
    await expect(listSources('c1')).resolves.toEqual([]);
  });

  it('turns a Go error into an ApiError with its code', async () => {
    bind(() => Promise.reject(new Error('not_found: no such conversation')));
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
