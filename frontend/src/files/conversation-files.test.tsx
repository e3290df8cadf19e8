// @vitest-environment jsdom
// Export and import of whole conversations from the sidebar: the window's dialogs (the
// backend opens them) and browser mode's download and file chooser, the notices, and the
// strings in both languages.
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Conversation } from '../api/conversations';
import { FileNoticeBar, useConversationFiles } from './ConversationFiles';
import { Sidebar } from '../sidebar/Sidebar';
import { i18n } from '../i18n/i18n';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

type Loose = Record<string, unknown>;
const win = window as unknown as Loose;

const conv = (id: string, title: string): Conversation => ({
  id,
  title,
  created_at: '2026-11-26T11:00:00Z',
  updated_at: '2026-11-26T11:00:00Z',
  running: false,
  last_status: 'complete',
});

let host: HTMLDivElement;
let root: Root;
let imported: string[];

function Harness() {
  const files = useConversationFiles({ onImported: (id) => imported.push(id) });
  return (
    <Sidebar
      conversations={[conv('a', 'Solar'), conv('b', 'Wind')]}
      selectedId="a"
      runningIds={new Set()}
      loading={false}
      error=""
      now={Date.parse('2026-11-26T12:00:00Z')}
      onSelect={() => {}}
      onNew={() => {}}
      onSettings={() => {}}
      onRename={() => Promise.resolve()}
      onDelete={() => Promise.resolve()}
      onExport={files.exportConversation}
      onImport={files.importConversation}
      importing={files.importing}
      notice={
        <>
          {files.input}
          {files.notice ? <FileNoticeBar notice={files.notice} onReveal={files.showInFolder} onDismiss={files.dismiss} /> : null}
        </>
      }
    />
  );
}

const settle = () =>
  act(async () => {
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 0));
  });

async function mount() {
  await act(async () => {
    root.render(<Harness />);
    await Promise.resolve();
  });
}

const q = (sel: string) => host.querySelector<HTMLElement>(sel);
const click = (el: Element | null) => act(() => (el as HTMLElement).click());
const menuItems = () => [...host.querySelectorAll('[role=menuitem]')].map((e) => e.textContent.trim());
const notice = () => q('.file-notice');

/** Opens the menu of the first conversation (unless open) and clicks its Export… item. */
async function exportFirst() {
  if (!q('[role=menu]')) click(q('.conv-menu-btn'));
  const item = [...host.querySelectorAll<HTMLButtonElement>('[role=menuitem]')].find((b) => b.textContent.includes('Export'));
  click(item ?? null);
  await settle();
}

const appError = (code: string, message: string) => new Error(JSON.stringify({ code, message }));

beforeEach(() => {
  host = document.createElement('div');
  document.body.append(host);
  root = createRoot(host);
  imported = [];
});

afterEach(async () => {
  act(() => root.unmount());
  host.remove();
  delete win.go;
  delete win.runtime;
  vi.restoreAllMocks();
  await i18n.changeLanguage('en');
});

describe('conversation files in the window', () => {
  beforeEach(() => {
    win.runtime = { OnFileDrop: () => undefined }; // the desktop window: not browser mode
  });

  it('exports through the save dialog and shows where, with Show in folder', async () => {
    const exp = vi.fn(() => Promise.resolve({ filename: 'Solar.artifactflow.zip', mime: 'application/zip', saved_path: '/home/u/Documents/Solar.artifactflow.zip' }));
    const reveal = vi.fn(() => Promise.resolve());
    win.go = { app: { ConversationService: { Export: exp }, ArtifactService: { RevealExport: reveal } } };
    await mount();
    click(q('.conv-menu-btn'));
    expect(menuItems()).toEqual(['Rename', 'Export…', 'Delete…']);
    await exportFirst();
    expect(exp).toHaveBeenCalledWith('a');
    expect(q('[role=menu]')).toBeNull();
    expect(notice()?.getAttribute('role')).toBe('status');
    expect(notice()?.textContent).toContain('Saved to /home/u/Documents/Solar.artifactflow.zip');
    click([...host.querySelectorAll('.file-notice button')].find((b) => b.textContent === 'Show in folder') ?? null);
    await settle();
    expect(reveal).toHaveBeenCalledWith('/home/u/Documents/Solar.artifactflow.zip');
    click(q('.file-notice .icon-btn'));
    expect(notice()).toBeNull();
  });

  it('says nothing when the save dialog is cancelled, and the error when the export fails', async () => {
    const exp = vi
      .fn()
      .mockResolvedValueOnce({ filename: 'Solar.artifactflow.zip', mime: '', saved_path: '' })
      .mockRejectedValueOnce(appError('not_found', 'Not found: it may have been deleted.'));
    win.go = { app: { ConversationService: { Export: exp } } };
    await mount();
    await exportFirst();
    expect(notice()).toBeNull();
    await exportFirst();
    expect(notice()?.getAttribute('role')).toBe('alert');
    expect(notice()?.textContent).toContain('Could not export the conversation: Not found: it may have been deleted.');
  });

  it('imports through the open dialog, opens the new conversation, and shows a bad file’s problem', async () => {
    const importFile = vi
      .fn()
      .mockResolvedValueOnce({ conversation_id: '', title: '', messages: 0, artifacts: 0, uploads: 0, files: 0 })
      .mockResolvedValueOnce({ conversation_id: 'new-1', title: 'Moon', messages: 2, artifacts: 3, uploads: 1, files: 1 })
      .mockRejectedValueOnce(
        new Error(
          JSON.stringify({
            code: 'invalid_request',
            message: 'The file is not a valid ArtifactFlow conversation file, or it is damaged: it has no manifest.json',
            detail: 'it has no manifest.json',
            fields: { reason: 'invalid_file' },
          }),
        ),
      )
      .mockRejectedValueOnce(appError('internal', 'disk full'));
    const imp = vi.fn();
    win.go = { app: { ConversationService: { ImportFile: importFile, Import: imp } } };
    await mount();
    const button = q('.sidebar-import') as HTMLButtonElement | null;
    expect(button?.textContent).toBe('Import…');
    click(button);
    await settle();
    expect(imported).toEqual([]); // cancelled
    expect(notice()).toBeNull();
    click(button);
    await settle();
    expect(imported).toEqual(['new-1']);
    expect(notice()?.textContent).toContain('Imported “Moon”: 2 messages, 3 artifacts');
    click(button);
    await settle();
    expect(notice()?.getAttribute('role')).toBe('alert');
    expect(notice()?.textContent).toContain('Could not import the file: the file is not a valid ArtifactFlow conversation file, or it is damaged (it has no manifest.json)');
    click(button);
    await settle();
    expect(notice()?.textContent).toContain('Could not import the file: disk full');
    expect(imported).toEqual(['new-1']);
    expect(imp).not.toHaveBeenCalled();
  });
});

describe('conversation files in browser mode', () => {
  beforeEach(() => {
    win.runtime = { __browserMode: true };
  });

  it('downloads the export', async () => {
    const exp = vi.fn(() => Promise.resolve({ filename: 'Solar.artifactflow.zip', mime: 'application/zip', data: 'UEsDBA==' }));
    win.go = { app: { ConversationService: { Export: exp } } };
    const urls = vi.fn((_b: Blob) => 'blob:x');
    Object.assign(URL, { createObjectURL: urls, revokeObjectURL: vi.fn() });
    const downloads: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      downloads.push(this.download);
    });
    await mount();
    await exportFirst();
    expect(downloads).toEqual(['Solar.artifactflow.zip']);
    expect(urls.mock.calls[0]?.[0].size).toBe(4);
    expect(notice()?.textContent).toContain('Downloaded Solar.artifactflow.zip');
    expect(notice()?.textContent).not.toContain('Show in folder');
  });

  it('imports the file picked in the page, never through a dialog', async () => {
    const imp = vi.fn((f: { name: string; data: string }) => Promise.resolve({ conversation_id: 'new-2', title: f.name, messages: 1, artifacts: 0, uploads: 0, files: 0 }));
    const importFile = vi.fn();
    win.go = { app: { ConversationService: { Import: imp, ImportFile: importFile } } };
    await mount();
    const input = q('[data-testid=conversation-import-input]') as HTMLInputElement | null;
    const picked = vi.spyOn(input as HTMLInputElement, 'click').mockImplementation(() => undefined);
    click(q('.sidebar-import'));
    expect(picked).toHaveBeenCalledTimes(1);
    const file = new File(['PK'], 'moon.artifactflow.zip', { type: 'application/zip' });
    Object.defineProperty(input, 'files', { value: [file], configurable: true });
    await act(async () => {
      input?.dispatchEvent(new Event('change', { bubbles: true }));
      await Promise.resolve();
    });
    await settle();
    expect(imp).toHaveBeenCalledWith({ name: 'moon.artifactflow.zip', data: 'UEs=' });
    expect(importFile).not.toHaveBeenCalled();
    expect(imported).toEqual(['new-2']);
    expect(input?.getAttribute('accept')).toContain('.zip');
  });
});

describe('conversation files in Chinese', () => {
  it('names the menu item, the button and the notices in Chinese', async () => {
    win.runtime = { OnFileDrop: () => undefined };
    win.go = {
      app: {
        ConversationService: {
          Export: () => Promise.resolve({ filename: 'x.zip', mime: '', saved_path: '/home/u/文档/x.zip' }),
          ImportFile: vi
            .fn()
            .mockResolvedValueOnce({ conversation_id: 'n', title: '月球', messages: 2, artifacts: 1, uploads: 0, files: 0 })
            .mockRejectedValueOnce(
              new Error(JSON.stringify({ code: 'invalid_request', message: 'A newer version…', detail: 'file version 9, this one reads up to 1', fields: { reason: 'too_new' } })),
            ),
        },
      },
    };
    await i18n.changeLanguage('zh-CN');
    await mount();
    expect(q('.sidebar-import')?.textContent).toBe('导入…');
    click(q('.conv-menu-btn'));
    expect(menuItems()).toEqual(['重命名', '导出…', '删除…']);
    click([...host.querySelectorAll('[role=menuitem]')].find((b) => b.textContent === '导出…') ?? null);
    await settle();
    expect(notice()?.textContent).toContain('已保存到 /home/u/文档/x.zip');
    expect(notice()?.textContent).toContain('在文件夹中显示');
    click(q('.sidebar-import'));
    await settle();
    expect(notice()?.textContent).toContain('已导入“月球”：2 条消息，1 个产物');
    click(q('.sidebar-import'));
    await settle();
    expect(notice()?.textContent).toBe('无法导入该文件：它由更新版本的 ArtifactFlow 写入，请先更新 ArtifactFlow（file version 9, this one reads up to 1）');
  });
});
