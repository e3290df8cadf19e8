// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { indexProgress, workspaceStatus } from '../api/conversations';
import { folderName, statusLine, WorkspaceBar } from './WorkspaceBar';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

type Loose = Record<string, unknown>;
type Fn = (...args: unknown[]) => unknown;
const win = window as unknown as Loose;

let root: Root | null = null;
const host = document.createElement('div');
document.body.appendChild(host);

const render = (node: React.ReactNode) =>
  act(async () => {
    root ??= createRoot(host);
    root.render(node);
    await Promise.resolve();
  });
const settle = () => act(() => new Promise((r) => setTimeout(r, 0)));

let listeners: Map<string, ((payload: unknown) => void)[]>;
const runtime: Loose = {
  EventsOnMultiple: (name: string, cb: (payload: unknown) => void) => {
    listeners.set(name, [...(listeners.get(name) ?? []), cb]);
    return () => listeners.set(name, (listeners.get(name) ?? []).filter((x) => x !== cb));
  },
};
/** Sends an index_progress event as the backend does (no message, seq 0). */
const progress = (data: Loose, conversationId = 'c1') =>
  act(async () => {
    for (const cb of listeners.get('run:event') ?? []) {
      cb({ type: 'index_progress', conversation_id: conversationId, message_id: '', seq: 0, created_at: '2025-01-01T00:00:00Z', data });
    }
    await Promise.resolve();
  });
const bind = (methods: Record<string, Fn>) => {
  win.go = { app: { ConversationService: methods } };
};

beforeEach(() => {
  listeners = new Map();
  delete runtime.__browserMode;
  win.runtime = runtime;
});
afterEach(() => {
  act(() => root?.unmount());
  root = null;
  delete win.go;
  delete win.runtime;
  vi.restoreAllMocks();
});

const status = (over: Loose = {}): Loose => ({
  conversation_id: 'c1',
  folder: '/home/me/research',
  chosen: true,
  exists: true,
  can_choose: true,
  indexing: false,
  files: 0,
  uploads: 0,
  skipped: 0,
  failed: 0,
  bytes: 0,
  by_ext: {},
  ...over,
});

const text = (id: string) => host.querySelector(`[data-testid="${id}"]`)?.textContent ?? '';
const button = (label: string) => {
  const b = Array.from(host.querySelectorAll<HTMLButtonElement>('button')).find((x) => x.getAttribute('aria-label') === label || x.textContent === label);
  if (b === undefined) throw new Error(`no button ${label}`);
  return b;
};
const click = (el: HTMLElement) =>
  act(async () => {
    el.click();
    await Promise.resolve();
  });

describe('WorkspaceBar', () => {
  it('shows the folder and its counts when indexed, and re-indexes on demand', async () => {
    const reindex = vi.fn(() => Promise.resolve(status({ files: 2000, bytes: 200 * 1024 * 1024, indexing: true })));
    bind({ WorkspaceStatus: vi.fn(() => Promise.resolve(status({ files: 2000, uploads: 3, bytes: 200 * 1024 * 1024 }))), Reindex: reindex });
    await render(<WorkspaceBar conversationId="c1" />);
    await settle();
    expect(text('ws-name')).toBe('research');
    expect(host.querySelector('[data-testid="ws-name"]')?.getAttribute('title')).toBe('/home/me/research');
    expect(text('ws-status')).toBe('2,000 files (3 uploaded) indexed · 200.0 MB');
    expect(host.querySelector('progress')).toBeNull();
    await click(button('Re-index'));
    await settle();
    expect(reindex).toHaveBeenCalledWith('c1');
  });

  it('follows index_progress events of its conversation and reloads the counts at the end', async () => {
    let files = 0;
    const get = vi.fn(() => Promise.resolve(status({ files, indexing: files === 0 })));
    bind({ WorkspaceStatus: get });
    await render(<WorkspaceBar conversationId="c1" />);
    await settle();
    expect(text('ws-status')).toBe('Indexing…');

    await progress({ phase: 'scanning', total: 0, done: 0 });
    expect(text('ws-status')).toBe('Scanning the folder…');
    await progress({ phase: 'indexing', total: 2000, done: 1234, changed: 2000 });
    expect(text('ws-status')).toBe('Indexing 1,234 / 2,000 files');
    const bar = host.querySelector<HTMLProgressElement>('progress');
    expect(bar?.max).toBe(2000);
    expect(bar?.value).toBe(1234);

    // Another conversation's pass changes nothing here.
    await progress({ phase: 'indexing', total: 10, done: 9 }, 'c2');
    expect(text('ws-status')).toBe('Indexing 1,234 / 2,000 files');

    files = 2000;
    await progress({ phase: 'done', total: 2000, done: 2000, changed: 2000, bytes: 1024 });
    await settle();
    expect(get).toHaveBeenCalledTimes(2);
    expect(text('ws-status')).toBe('2,000 files indexed · 0 B');
    expect(host.querySelector('progress')).toBeNull();
  });

  it('lists the files left out on demand, with their reasons', async () => {
    const failures = vi.fn(() =>
      Promise.resolve([
        { path: 'big.pdf', status: 'skipped', reason: 'larger than the 20 MB limit', size: 1 },
        { path: 'locked.md', status: 'failed', reason: 'could not open: permission denied', size: 2 },
      ]),
    );
    bind({ WorkspaceStatus: vi.fn(() => Promise.resolve(status({ files: 5, skipped: 1, failed: 1 }))), WorkspaceFailures: failures });
    await render(<WorkspaceBar conversationId="c1" />);
    await settle();
    expect(host.querySelector('.ws-failures')).toBeNull();
    const toggle = button('2 files not indexed');
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    await click(toggle);
    await settle();
    expect(failures).toHaveBeenCalledWith('c1');
    const items = Array.from(host.querySelectorAll('.ws-failures li')).map((li) => li.textContent);
    expect(items).toEqual(['big.pdf larger than the 20 MB limit', 'locked.md could not open: permission denied']);
  });

  it('chooses a folder in the desktop window, and opens the conversation a choice started', async () => {
    const choose = vi.fn((id: unknown) => Promise.resolve(status({ conversation_id: id === '' ? 'new' : 'c1', folder: '/data/papers' })));
    bind({ ChooseWorkspace: choose });
    const opened = vi.fn();
    await render(<WorkspaceBar conversationId={null} onConversation={opened} />);
    expect(text('ws-status')).toBe('Pick a folder of your files to research them');
    const b = button('Choose folder…');
    expect(b.disabled).toBe(false);
    await click(b);
    await settle();
    expect(choose).toHaveBeenCalledWith('');
    expect(opened).toHaveBeenCalledWith('new');
  });

  it('is desktop-only in browser mode: the button is disabled and says why', async () => {
    runtime.__browserMode = true;
    bind({ WorkspaceStatus: vi.fn(() => Promise.resolve(status({ chosen: false, exists: false, can_choose: false, folder: '/d/workspaces/c1' }))) });
    await render(<WorkspaceBar conversationId="c1" />);
    await settle();
    const b = button('Choose folder… (desktop app only)');
    expect(b.disabled).toBe(true);
    expect(b.title).toContain('desktop app');
    expect(text('ws-name')).toBe('Research folder');
    expect(text('ws-status')).toBe('No folder chosen: pick one so the agents can search your files');
    expect(host.querySelector('.ws-note')?.textContent).toContain('desktop app');
    expect(() => button('Re-index')).toThrow();
  });

  it('shows a refused choice as an error, and gives up a chosen folder', async () => {
    const reset = vi.fn(() => Promise.resolve(status({ chosen: false, exists: false, folder: '/d/workspaces/c1' })));
    bind({
      WorkspaceStatus: vi.fn(() => Promise.resolve(status({ files: 1 }))),
      ChooseWorkspace: vi.fn(() => Promise.reject(new Error('workspace folder: /x is not a folder'))),
      ResetWorkspace: reset,
    });
    await render(<WorkspaceBar conversationId="c1" />);
    await settle();
    await click(button('Choose folder…'));
    await settle();
    expect(host.querySelector('.ws-error')?.textContent).toBe('workspace folder: /x is not a folder');
    await click(button('Stop using this folder'));
    await settle();
    expect(reset).toHaveBeenCalledWith('c1');
    expect(text('ws-name')).toBe('Research folder');
  });
});

describe('workspace helpers', () => {
  it('normalizes what the backend sends', () => {
    expect(workspaceStatus({ conversation_id: 'c', by_ext: { md: 2, bad: 'x' }, progress: { phase: 'done', total_bytes: 9 } })).toMatchObject({
      conversationId: 'c',
      byExt: { md: 2, bad: 0 },
      progress: { phase: 'done', totalBytes: 9, error: '' },
      files: 0,
    });
    expect(workspaceStatus(null).progress).toBeNull();
    expect(indexProgress({ done: 'x', truncated: 1 })).toMatchObject({ done: 0, truncated: false });
  });

  it('names folders and words the status line', () => {
    expect(folderName('/home/me/research/')).toBe('research');
    expect(folderName('C:\\Users\\me\\Docs')).toBe('Docs');
    const st = workspaceStatus(status({ files: 1, bytes: 2048 }));
    expect(statusLine(st, null, false)).toBe('1 file indexed · 2.0 KB');
    expect(statusLine(workspaceStatus(status()), null, false)).toBe('No readable files here yet');
    expect(statusLine(workspaceStatus(status()), indexProgress({ phase: 'done', error: 'permission denied' }), false)).toBe(
      'Indexing stopped: permission denied',
    );
    expect(statusLine(null, null, false)).toBe('');
  });
});
