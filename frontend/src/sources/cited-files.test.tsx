// @vitest-environment jsdom
// Citations of local files: a chip of an uploaded file shows the upload in the artifact
// panel, one of a workspace file opens it through ArtifactService.OpenSourceFile; the card
// names an upload "uploaded file", not a file of the workspace folder.
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Source } from '../api/conversations';
import { useCitedFiles } from './useCitedFiles';
import { CitationProvider } from './Citations';
import { Markdown } from '../markdown/Markdown';
import { i18n } from '../i18n/i18n';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

type Loose = Record<string, unknown>;
const win = window as unknown as Loose;
let root: Root | null = null;
const host = document.createElement('div');
document.body.appendChild(host);

const source = (n: number, location: string, line: number): Source => ({
  n, kind: 'file', location, title: location.split('/').pop() ?? location, site: '', excerpt: 'Range measured at 21 °C.',
  published: '', page: 0, line, fetched: true, message_id: 'm1', added_at: '2026-01-01T00:00:00Z',
});
const UPLOAD = source(6, '@uploads/notes.md', 3);
const WORKSPACE = source(7, 'field/notes.md', 12);

const OpenSourceFile = vi.fn((_c: string, _p: string) => Promise.resolve());
beforeEach(() => {
  OpenSourceFile.mockClear();
  win.go = { app: { ArtifactService: { OpenSourceFile } } };
  win.runtime = { BrowserOpenURL: vi.fn(), EventsOnMultiple: () => () => undefined };
});
afterEach(async () => {
  act(() => root?.unmount());
  root = null;
  delete win.go;
  delete win.runtime;
  document.body.querySelectorAll('.cite-card').forEach((el) => el.remove());
  await i18n.changeLanguage('en');
});

/** The window's wiring of CitationProvider to useCitedFiles (as App does). */
function Harness({ select, toggle, collapsed }: { select: (id: string) => void; toggle: () => void; collapsed: boolean }) {
  const cited = useCitedFiles('c1', select, { layout: { panelCollapsed: collapsed }, toggle });
  return (
    <CitationProvider sources={[UPLOAD, WORKSPACE]} onOpenFile={cited.open}>
      <Markdown source={'Measured at 21 °C [6], as the field log says [7].'} cite />
      <p className="notice">{cited.notice}</p>
    </CitationProvider>
  );
}

const render = (node: React.ReactNode) =>
  act(async () => {
    root ??= createRoot(host);
    root.render(node);
    await Promise.resolve();
  });
const chip = (n: number) => host.querySelector<HTMLButtonElement>(`button.cite[data-cite="${String(n)}"]`)!;
const card = () => document.body.querySelector<HTMLElement>('.cite-card');
const click = (el: HTMLElement) =>
  act(async () => {
    el.click();
    await Promise.resolve();
  });

describe('citations of local files', () => {
  it('show an upload in the panel, opening the panel when it is collapsed', async () => {
    const select = vi.fn();
    const toggle = vi.fn();
    await render(<Harness select={select} toggle={toggle} collapsed />);
    await click(chip(6));
    expect(select).toHaveBeenCalledWith('notes.md');
    expect(toggle).toHaveBeenCalledWith('panel');
    expect(OpenSourceFile).not.toHaveBeenCalled();
  });

  it('open a workspace file with the system’s application, and say why when it cannot', async () => {
    const select = vi.fn();
    await render(<Harness select={select} toggle={vi.fn()} collapsed={false} />);
    await click(chip(7));
    expect(OpenSourceFile).toHaveBeenCalledWith('c1', 'field/notes.md');
    expect(select).not.toHaveBeenCalled();
    OpenSourceFile.mockRejectedValueOnce(new Error(JSON.stringify({ code: 'file_unavailable', message: 'field/notes.md: no such file' })));
    await click(chip(7));
    await act(() => new Promise((r) => setTimeout(r, 0)));
    expect(host.querySelector('.notice')?.textContent).toContain('field/notes.md could not be opened');
  });

  it('call an upload an uploaded file on the card, in English and Chinese', async () => {
    await render(<Harness select={vi.fn()} toggle={vi.fn()} collapsed={false} />);
    await act(async () => {
      chip(6).dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
      chip(6).dispatchEvent(new MouseEvent('mouseenter')); // as a pointer does, after mouseover
      await Promise.resolve();
    });
    expect(card()?.textContent).toContain('uploaded file notes.md · line 3');
    expect(card()?.textContent).toContain('A file you uploaded to this research');
    expect(card()?.textContent).not.toContain('workspace folder');
    await act(async () => {
      await i18n.changeLanguage('zh-CN');
    });
    await act(async () => {
      chip(6).dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
      chip(6).dispatchEvent(new MouseEvent('mouseenter')); // as a pointer does, after mouseover
      await Promise.resolve();
    });
    expect(card()?.textContent).toContain('上传的文件 notes.md · 第 3 行');
    expect(card()?.textContent).toContain('你上传到本研究的文件');
    expect(card()?.textContent).not.toContain('工作区文件夹');
  });
});
