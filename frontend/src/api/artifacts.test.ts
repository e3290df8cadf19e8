// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from './call';
import { exportArtifact, getVersion, listVersions, restoreVersion, saveArtifact, uploadFiles, uploadPaths } from './artifacts';

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
        { name: 'big.pdf', conversation_id: 'c9', size: 99, readable: false, error: 'file too large', error_code: 'file_too_large', error_args: { size: '99', limit_mb: '1', bad: 3 } },
        { name: 'x.xyz', conversation_id: 'c9', artifact_id: 'x.xyz', size: 2, readable: false, note: 'n', note_parts: [{ code: 'unreadable', args: { ext: '.xyz' } }, { args: {} }] },
      ]),
    );
    bind({ ArtifactService: { Upload: upload } });
    const res = await uploadFiles('', [{ name: 'a.md', data: 'IyBS' }]);
    expect(JSON.parse(JSON.stringify(upload.mock.calls[0]))).toEqual(['', [{ name: 'a.md', data: 'IyBS' }]]);
    expect(res).toEqual([
      { name: 'a.md', conversation_id: 'c9', artifact_id: 'a.md', title: 'a.md', content_type: 'markdown', size: 3, readable: true, note: '', error: '', note_parts: [], error_code: '', error_args: {} },
      { name: 'big.pdf', conversation_id: 'c9', artifact_id: '', title: '', content_type: '', size: 99, readable: false, note: '', error: 'file too large',
        note_parts: [], error_code: 'file_too_large', error_args: { size: '99', limit_mb: '1' } },
      { name: 'x.xyz', conversation_id: 'c9', artifact_id: 'x.xyz', title: '', content_type: '', size: 2, readable: false, note: 'n', error: '',
        note_parts: [{ code: 'unreadable', args: { ext: '.xyz' } }], error_code: '', error_args: {} },
    ]);
  });

  it('uploads paths and tolerates a nil result', async () => {
    const fn = vi.fn(() => Promise.resolve(null));
    bind({ ArtifactService: { UploadPaths: fn } });
    await expect(uploadPaths('c1', ['/tmp/a.md'])).resolves.toEqual([]);
    expect(fn).toHaveBeenCalledWith('c1', ['/tmp/a.md']);
  });

});
