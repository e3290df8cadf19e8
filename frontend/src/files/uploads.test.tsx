// @vitest-environment jsdom
import { act, useEffect } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useUploads, type UploadedBatch, type Uploads } from './Uploads';
import { MIB } from './files';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

type Loose = Record<string, unknown>;
const win = window as unknown as Loose;

let root: Root;
let host: HTMLDivElement;
let hook: Uploads;
let batches: UploadedBatch[];

function Harness({ conversationId, maxUploadMb }: { conversationId: string | null; maxUploadMb: number }) {
  const u = useUploads({ conversationId, maxUploadMb, onUploaded: (b) => batches.push(b) });
  useEffect(() => {
    hook = u;
  });
  return null;
}

async function mount(conversationId: string | null, maxUploadMb = 1) {
  host = document.createElement('div');
  document.body.appendChild(host);
  root = createRoot(host);
  await act(async () => {
    root.render(<Harness conversationId={conversationId} maxUploadMb={maxUploadMb} />);
    await Promise.resolve();
  });
}

/** Fires a drag event on the window with a DataTransfer-like object holding `files`. */
function drag(type: string, files: File[]) {
  const ev = new Event(type, { bubbles: true, cancelable: true });
  Object.defineProperty(ev, 'dataTransfer', {
    value: { types: ['Files'], items: files.map((f) => ({ kind: 'file', getAsFile: () => f })), files, dropEffect: 'none' },
  });
  window.dispatchEvent(ev);
  return ev;
}

/**
 * Fires a drag event as WebKitGTK does for a file manager's drag: only "text/uri-list" and
 * "text/html" types, string items, no File objects (seen under Xvfb).
 */
function dragURIs(type: string) {
  const ev = new Event(type, { bubbles: true, cancelable: true });
  Object.defineProperty(ev, 'dataTransfer', {
    value: {
      types: ['text/uri-list', 'text/html'],
      items: [{ kind: 'string', type: 'text/uri-list', getAsFile: () => null }],
      files: [],
      dropEffect: 'none',
      getData: () => '',
    },
  });
  window.dispatchEvent(ev);
  return ev;
}

const settle = () =>
  act(async () => {
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 0));
  });

beforeEach(() => {
  batches = [];
});

afterEach(() => {
  act(() => root.unmount());
  host.remove();
  delete win.go;
  delete win.runtime;
});

describe('useUploads in browser mode', () => {
  it('shows the overlay while dragging, uploads each file alone, refuses oversized ones unread', async () => {
    const upload = vi.fn((_c: unknown, files: { name: string }[]) =>
      Promise.resolve(files.map((f) => ({ name: f.name, conversation_id: 'c1', artifact_id: f.name, readable: f.name !== 'x.bin', note: f.name === 'x.bin' ? 'its text could not be read' : '' }))),
    );
    win.runtime = { __browserMode: true };
    win.go = { app: { ArtifactService: { Upload: upload } } };
    await mount('c1', 1);
    const big = new File([new Uint8Array(MIB + 1)], 'big.pdf');
    const readSpy = vi.spyOn(big, 'arrayBuffer');
    act(() => {
      drag('dragenter', [big]);
    });
    expect(hook.dragging).toBe(true);
    let ev: Event | undefined;
    act(() => {
      ev = drag('drop', [new File(['# A'], 'a.md'), big, new File([new Uint8Array([0, 1])], 'x.bin')]);
    });
    expect(ev?.defaultPrevented).toBe(true);
    expect(hook.dragging).toBe(false);
    await settle();
    expect(readSpy).not.toHaveBeenCalled();
    expect(upload.mock.calls.map((c) => [c[0], c[1].map((f) => f.name)])).toEqual([
      ['c1', ['a.md']],
      ['c1', ['x.bin']],
    ]);
    expect((upload.mock.calls[0]?.[1][0] as unknown as { data: string }).data).toBe('IyBB');
    expect(hook.items.map((i) => [i.name, i.status, i.readable])).toEqual([
      ['a.md', 'done', true],
      ['big.pdf', 'failed', true],
      ['x.bin', 'done', false],
    ]);
    expect(hook.items[1]?.error).toContain('over the 1 MB upload limit');
    expect(batches).toEqual([{ conversationId: 'c1', artifactIds: ['a.md', 'x.bin'], created: false }]);
    act(() => hook.clearFinished());
    expect(hook.items).toEqual([]);
  });

  it('creates a conversation for a drop with none open, and puts the rest of the batch in it', async () => {
    const upload = vi.fn((conv: unknown, files: { name: string }[]) =>
      Promise.resolve(files.map((f) => ({ name: f.name, conversation_id: conv === '' ? 'c-new' : conv, artifact_id: f.name, readable: true }))),
    );
    win.runtime = { __browserMode: true };
    win.go = { app: { ArtifactService: { Upload: upload } } };
    await mount(null);
    act(() => {
      drag('drop', [new File(['1'], 'one.md'), new File(['2'], 'two.md')]);
    });
    await settle();
    expect(upload.mock.calls.map((c) => c[0])).toEqual(['', 'c-new']);
    expect(batches).toEqual([{ conversationId: 'c-new', artifactIds: ['one.md', 'two.md'], created: true }]);
  });

  it('reports a failed call on the file, not the batch', async () => {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    const upload = vi.fn(() => Promise.reject('conversation not found'));
    win.runtime = { __browserMode: true };
    win.go = { app: { ArtifactService: { Upload: upload } } };
    await mount('gone');
    act(() => hook.addFiles([new File(['1'], 'one.md')]));
    await settle();
    expect(hook.items.map((i) => [i.status, i.error])).toEqual([['failed', 'conversation not found']]);
    expect(batches).toEqual([]);
  });
});

describe('useUploads in the desktop window', () => {
  it('uploads dropped paths once, through UploadPaths, and ignores HTML5 drops', async () => {
    let fileDrop: ((x: number, y: number, paths: string[]) => void) | null = null;
    win.runtime = {
      OnFileDrop: (cb: typeof fileDrop) => {
        fileDrop = cb;
      },
      OnFileDropOff: () => {
        fileDrop = null;
      },
    };
    const upload = vi.fn();
    const paths = vi.fn((_c: unknown, ps: string[]) =>
      Promise.resolve([
        { name: 'b.pdf', conversation_id: 'c1', error: 'b.pdf is 30.0 MB, over the 20 MB upload limit' },
        { name: 'a.md', conversation_id: 'c1', artifact_id: 'a.md', readable: true, size: ps.length },
      ]),
    );
    win.go = { app: { ArtifactService: { Upload: upload, UploadPaths: paths } } };
    await mount('c1', 20);
    expect(fileDrop).not.toBeNull();
    // WebKit may also fire an HTML5 drop: it must not upload anything.
    act(() => {
      drag('drop', [new File(['x'], 'a.md')]);
    });
    act(() => fileDrop?.(5, 5, ['/home/u/a.md', '/home/u/b.pdf']));
    await settle();
    expect(upload).not.toHaveBeenCalled();
    expect(paths.mock.calls).toEqual([['c1', ['/home/u/a.md', '/home/u/b.pdf']]]);
    expect(hook.items.map((i) => [i.name, i.status, i.error])).toEqual([
      ['a.md', 'done', ''],
      ['b.pdf', 'failed', 'b.pdf is 30.0 MB, over the 20 MB upload limit'],
    ]);
    expect(batches).toEqual([{ conversationId: 'c1', artifactIds: ['a.md'], created: false }]);
  });

  it("cancels WebKitGTK's uri-list drag so the window never opens the dropped file", async () => {
    win.runtime = { OnFileDrop: () => undefined, OnFileDropOff: () => undefined };
    const upload = vi.fn();
    win.go = { app: { ArtifactService: { Upload: upload, UploadPaths: vi.fn() } } };
    await mount('c1', 20);
    let over: Event | null = null;
    act(() => {
      expect(dragURIs('dragenter').defaultPrevented).toBe(true);
      over = dragURIs('dragover');
    });
    expect(over!.defaultPrevented).toBe(true);
    expect(hook.dragging).toBe(true);
    let drop: Event | null = null;
    act(() => {
      drop = dragURIs('drop');
    });
    expect(drop!.defaultPrevented).toBe(true);
    expect(hook.dragging).toBe(false);
    await settle();
    expect(upload).not.toHaveBeenCalled(); // the paths come through OnFileDrop
  });
});

describe('useUploads in the desktop window, a link dragged inside the page', () => {
  it('is left alone: no overlay, default kept, so it can be dropped in the composer', async () => {
    win.runtime = { OnFileDrop: () => undefined, OnFileDropOff: () => undefined };
    win.go = { app: { ArtifactService: { Upload: vi.fn(), UploadPaths: vi.fn() } } };
    await mount('c1', 20);
    let over: Event | null = null;
    let drop: Event | null = null;
    act(() => {
      window.dispatchEvent(new Event('dragstart'));
      over = dragURIs('dragover');
      drop = dragURIs('drop');
      window.dispatchEvent(new Event('dragend'));
    });
    expect(over!.defaultPrevented).toBe(false);
    expect(drop!.defaultPrevented).toBe(false);
    expect(hook.dragging).toBe(false);
    // The next drag from outside is a file drag again.
    act(() => {
      over = dragURIs('dragover');
    });
    expect(over!.defaultPrevented).toBe(true);
  });
});

describe('useUploads in browser mode, a drag that carries no files', () => {
  it('leaves a link dragged from another page to the browser', async () => {
    win.runtime = { __browserMode: true };
    win.go = { app: { ArtifactService: { Upload: vi.fn() } } };
    await mount('c1', 20);
    let over: Event | null = null;
    act(() => {
      over = dragURIs('dragover');
    });
    expect(over!.defaultPrevented).toBe(false);
    expect(hook.dragging).toBe(false);
  });
});
