// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ApiError,
  copyText,
  exportArtifact,
  getSettings,
  getVersion,
  isBrowserMode,
  listVersions,
  onDesktopFileDrop,
  restoreVersion,
  saveArtifact,
  uploadFiles,
  uploadPaths,
} from './api';

type Loose = Record<string, unknown>;
const win = window as unknown as Loose;
const bind = (services: Record<string, Record<string, (...args: unknown[]) => unknown>>) => {
  win.go = { app: services };
};

afterEach(() => {
  delete win.go;
  delete win.runtime;
});

describe('artifact versions', () => {
  it('normalizes the version list (Go nil slice, missing fields)', async () => {
    bind({ ArtifactService: { Versions: () => Promise.resolve(null) } });
    await expect(listVersions('c1', 'r')).resolves.toEqual([]);
    bind({
      ArtifactService: {
        Versions: () =>
          Promise.resolve([
            { version: 1, update_type: 'create', source: 'agent', size: 10, message_id: 'm1', message: 'Why?', created_at: '2025-01-01T00:00:00Z' },
            { version: 3, update_type: 'user_edit', source: 'user' },
          ]),
      },
    });
    await expect(listVersions('c1', 'r')).resolves.toEqual([
      { version: 1, update_type: 'create', source: 'agent', size: 10, message_id: 'm1', message: 'Why?', created_at: '2025-01-01T00:00:00Z' },
      { version: 3, update_type: 'user_edit', source: 'user', size: 0, message_id: '', message: '', created_at: '' },
    ]);
  });

  it('reads one version with its content (VersionContent embeds VersionView)', async () => {
    const fn = vi.fn(() => Promise.resolve({ version: 2, update_type: 'update', source: 'agent', size: 5, message_id: 'm', created_at: 't', content: 'hello' }));
    bind({ ArtifactService: { Version: fn } });
    await expect(getVersion('c1', 'r', 2)).resolves.toMatchObject({ version: 2, content: 'hello', message: '' });
    expect(fn).toHaveBeenCalledWith('c1', 'r', 2);
  });

  it('turns a conflict into ApiError code "conflict" with the explanation', async () => {
    const msg = 'conflict: "r" is now at version 3, but your edit started from version 2; reload it and apply your change again';
    // Wails rejects with the Go error's text, a plain string.
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    bind({ ArtifactService: { Save: () => Promise.reject(msg), Restore: () => Promise.reject(msg) } });
    const e = await saveArtifact('c1', 'r', 2, 'x').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ code: 'conflict', message: '"r" is now at version 3, but your edit started from version 2; reload it and apply your change again' });
    await expect(restoreVersion('c1', 'r', 1, 2)).rejects.toMatchObject({ code: 'conflict' });
  });

  it('returns the saved artifact with its new version', async () => {
    const save = vi.fn(() => Promise.resolve({ id: 'r', version: 4, content: 'new', source: 'user', unsaved: false }));
    bind({ ArtifactService: { Save: save } });
    await expect(saveArtifact('c1', 'r', 3, 'new')).resolves.toMatchObject({ id: 'r', version: 4, content: 'new' });
    expect(save).toHaveBeenCalledWith('c1', 'r', 3, 'new');
  });
});

describe('export', () => {
  it('keeps base64 data (browser mode) and saved_path (window)', async () => {
    bind({ ArtifactService: { Export: () => Promise.resolve({ filename: 'R.md', mime: 'text/markdown', data: 'IyBS' }) } });
    await expect(exportArtifact('c1', 'r', 0, 'markdown')).resolves.toEqual({ filename: 'R.md', mime: 'text/markdown', data: 'IyBS', saved_path: '' });
    bind({ ArtifactService: { Export: () => Promise.resolve({ filename: 'R.docx', mime: 'x', saved_path: '/home/u/R.docx' }) } });
    await expect(exportArtifact('c1', 'r', 2, 'docx')).resolves.toEqual({ filename: 'R.docx', mime: 'x', data: '', saved_path: '/home/u/R.docx' });
    // A cancelled dialog: neither.
    bind({ ArtifactService: { Export: () => Promise.resolve({ filename: 'R.html' }) } });
    await expect(exportArtifact('c1', 'r', 0, 'html')).resolves.toMatchObject({ data: '', saved_path: '' });
  });

  it('accepts bytes as a number array too', async () => {
    bind({ ArtifactService: { Export: () => Promise.resolve({ filename: 'a', mime: 'b', data: [35, 32, 82] }) } });
    await expect(exportArtifact('c1', 'r', 0, 'markdown')).resolves.toMatchObject({ data: 'IyBS' });
  });
});

describe('uploads', () => {
  it('sends {name, data: base64} and normalizes per-file results', async () => {
    const upload = vi.fn((..._args: unknown[]) =>
      Promise.resolve([
        { name: 'a.md', conversation_id: 'c9', artifact_id: 'a.md', title: 'a.md', content_type: 'markdown', size: 3, readable: true },
        { name: 'big.pdf', conversation_id: 'c9', size: 99, readable: false, error: 'file too large' },
      ]),
    );
    bind({ ArtifactService: { Upload: upload } });
    const res = await uploadFiles('', [{ name: 'a.md', data: 'IyBS' }]);
    expect(JSON.parse(JSON.stringify(upload.mock.calls[0]))).toEqual(['', [{ name: 'a.md', data: 'IyBS' }]]);
    expect(res).toEqual([
      { name: 'a.md', conversation_id: 'c9', artifact_id: 'a.md', title: 'a.md', content_type: 'markdown', size: 3, readable: true, note: '', error: '' },
      { name: 'big.pdf', conversation_id: 'c9', artifact_id: '', title: '', content_type: '', size: 99, readable: false, note: '', error: 'file too large' },
    ]);
  });

  it('uploads paths and tolerates a nil result', async () => {
    const fn = vi.fn(() => Promise.resolve(null));
    bind({ ArtifactService: { UploadPaths: fn } });
    await expect(uploadPaths('c1', ['/tmp/a.md'])).resolves.toEqual([]);
    expect(fn).toHaveBeenCalledWith('c1', ['/tmp/a.md']);
  });

  it('reads the upload limit from the settings, defaulting to 20 MB', async () => {
    bind({ SettingsService: { Get: () => Promise.resolve({ max_upload_mb: 50 }) } });
    await expect(getSettings()).resolves.toMatchObject({ max_upload_mb: 50 });
    bind({ SettingsService: { Get: () => Promise.resolve({}) } });
    await expect(getSettings()).resolves.toMatchObject({ max_upload_mb: 20 });
  });
});

describe('browser mode versus the desktop window', () => {
  it('tells the modes apart by the shim marker', () => {
    expect(isBrowserMode()).toBe(true); // no runtime at all
    win.runtime = { EventsOnMultiple: () => () => undefined };
    expect(isBrowserMode()).toBe(false);
    win.runtime = { __browserMode: true };
    expect(isBrowserMode()).toBe(true);
  });

  it('listens to OnFileDrop only in the window, for any drop, and stops on cleanup', () => {
    const onDrop = vi.fn();
    const off = vi.fn();
    win.runtime = { OnFileDrop: onDrop, OnFileDropOff: off };
    const handler = vi.fn();
    const stop = onDesktopFileDrop(handler);
    expect(onDrop).toHaveBeenCalledTimes(1);
    expect(onDrop.mock.calls[0]?.[1]).toBe(false); // not limited to drop targets
    const cb = onDrop.mock.calls[0]?.[0] as (x: number, y: number, paths: unknown) => void;
    cb(10, 20, ['/home/u/a.md', '', 7]);
    cb(1, 1, []);
    expect(handler.mock.calls).toEqual([[['/home/u/a.md']]]);
    stop();
    expect(off).toHaveBeenCalledTimes(1);

    win.runtime = { __browserMode: true, OnFileDrop: onDrop, OnFileDropOff: off };
    onDesktopFileDrop(handler)();
    expect(onDrop).toHaveBeenCalledTimes(1);
    expect(off).toHaveBeenCalledTimes(1);
  });

  it('copies through the runtime in the window and navigator.clipboard in a browser', async () => {
    const set = vi.fn(() => Promise.resolve(true));
    win.runtime = { ClipboardSetText: set };
    await expect(copyText('hi')).resolves.toBe(true);
    expect(set).toHaveBeenCalledWith('hi');
    win.runtime = { __browserMode: true };
    const write = vi.fn(() => Promise.reject(new Error('denied')));
    Object.defineProperty(navigator, 'clipboard', { value: { writeText: write }, configurable: true });
    await expect(copyText('hi')).resolves.toBe(false);
  });
});
