// @vitest-environment jsdom
// Settings → Data: the data folder, "Back up now…" (window and browser mode, cancelled and
// failed), and how to restore, in English and Chinese.
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DataSettings, RESTORE_COMMAND } from './DataSettings';
import { i18n } from '../i18n/i18n';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

type Loose = Record<string, unknown>;
const win = window as unknown as Loose;

let host: HTMLDivElement;
let root: Root;

beforeEach(() => {
  host = document.createElement('div');
  document.body.append(host);
  root = createRoot(host);
});

afterEach(async () => {
  act(() => root.unmount());
  host.remove();
  delete win.go;
  delete win.runtime;
  await i18n.changeLanguage('en');
});

const settle = () =>
  act(async () => {
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 0));
  });

async function mount(dataDir = '/home/u/.config/ArtifactFlow') {
  await act(async () => {
    root.render(<DataSettings dataDir={dataDir} />);
    await Promise.resolve();
  });
}

const q = (sel: string) => host.querySelector<HTMLElement>(sel);
const button = (label: string) => [...host.querySelectorAll<HTMLButtonElement>('button')].find((b) => b.textContent.includes(label)) ?? null;
const click = (el: HTMLElement | null) => act(() => el?.click());
const saved = { saved_path: '/home/u/Documents/artifactflow-backup-20261129-153000.zip', size: 3 * 1024 * 1024, conversations: 12, uploads: 4, files: 2 };

describe('Settings → Data', () => {
  it('shows the data folder and how to restore, with the command to copy', async () => {
    win.runtime = { OnFileDrop: () => undefined };
    await mount();
    expect(q('legend')?.textContent).toBe('Data');
    expect(host.textContent).toContain('Data folder: /home/u/.config/ArtifactFlow');
    expect(q('.data-command')?.textContent).toBe(RESTORE_COMMAND);
    expect(RESTORE_COMMAND).toBe('artifactflow restore FILE');
    expect(host.textContent).toContain('Restoring replaces this data with a backup, so it is done with ArtifactFlow closed.');
    expect(host.textContent).toContain('API keys are left out');
    expect(button('Copy command') ?? q('[aria-label="Copy command"]')).not.toBeNull();
  });

  it('backs up through the save dialog in the window and offers Show in folder', async () => {
    win.runtime = { OnFileDrop: () => undefined };
    let finish: (v: typeof saved) => void = () => undefined;
    const backup = vi
      .fn()
      .mockResolvedValueOnce({ ...saved, saved_path: '' }) // cancelled
      .mockImplementationOnce(() => new Promise((r) => (finish = r)));
    const reveal = vi.fn(() => Promise.resolve());
    win.go = { app: { SettingsService: { Backup: backup }, ArtifactService: { RevealExport: reveal } } };
    await mount();
    click(button('Back up now…'));
    await settle();
    expect(q('[role=status]')).toBeNull();
    click(button('Back up now…'));
    expect(button('Backing up…')?.disabled).toBe(true);
    await act(async () => {
      finish(saved);
      await Promise.resolve();
    });
    await settle();
    expect(q('[role=status]')?.textContent).toContain(`Backup saved to ${saved.saved_path} (3.0 MB, 12 conversations)`);
    click(button('Show in folder'));
    await settle();
    expect(reveal).toHaveBeenCalledWith(saved.saved_path);
    expect(backup).toHaveBeenCalledTimes(2);
  });

  it('says where browser mode wrote the backup (no Show in folder) and shows a failure', async () => {
    win.runtime = { __browserMode: true };
    const backup = vi.fn().mockResolvedValueOnce(saved).mockRejectedValueOnce(new Error(JSON.stringify({ code: 'internal', message: 'disk full' })));
    win.go = { app: { SettingsService: { Backup: backup } } };
    await mount();
    click(button('Back up now…'));
    await settle();
    expect(q('[role=status]')?.textContent).toContain(saved.saved_path);
    expect(button('Show in folder')).toBeNull();
    click(button('Back up now…'));
    await settle();
    expect(q('[role=status]')).toBeNull();
    expect(q('[role=alert]')?.textContent).toBe('Could not back up: disk full');
  });

  it('is in Chinese when the UI is', async () => {
    win.runtime = { OnFileDrop: () => undefined };
    win.go = { app: { SettingsService: { Backup: () => Promise.resolve(saved) } } };
    await i18n.changeLanguage('zh-CN');
    await mount();
    expect(q('legend')?.textContent).toBe('数据');
    expect(host.textContent).toContain('数据文件夹： /home/u/.config/ArtifactFlow');
    click(button('立即备份…'));
    await settle();
    expect(q('[role=status]')?.textContent).toContain('备份已保存到');
    expect(q('[role=status]')?.textContent).toContain('12 个对话');
  });
});
