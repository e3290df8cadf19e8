// @vitest-environment jsdom
// Export ▾ → HTML with Mermaid diagrams: the page draws each ```mermaid block (Mermaid
// imported only then) and hands the SVGs to ArtifactService.ExportWithDiagrams; a block
// that does not parse is left out, other formats and text without diagrams use Export.
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import '../i18n/i18n';
import type { ExportFormat } from '../api/artifacts';
import { ExportMenu } from './ExportMenu';
import { useViewerActions } from './useViewerActions';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

// A stand-in for Mermaid (jsdom cannot lay out a real diagram): it records that it was
// imported, how it was set up and what it drew, draws a fixed SVG with the source's first
// node as a <text> label, fails like Mermaid on "%%bad", and waits for `gate` when set.
const mock = vi.hoisted(() => ({ imported: 0, config: [] as unknown[], rendered: [] as string[], gate: null as Promise<void> | null }));
vi.mock('mermaid', () => {
  mock.imported++;
  return {
    default: {
      initialize: (c: unknown) => mock.config.push(c),
      render: async (id: string, src: string) => {
        mock.rendered.push(src);
        if (mock.gate) await mock.gate;
        if (src.includes('%%bad')) throw new Error('Parse error on line 2');
        const label = /\[(\w+)\]/.exec(src)?.[1] ?? '?';
        return { svg: `<svg id="${id}" onload="alert(1)"><g class="node"><text>${label}</text></g><script>alert(2)</script></svg>` };
      },
    },
  };
});

const downloads = vi.hoisted(() => [] as string[]);
vi.mock('../files/files', () => ({
  downloadBase64: (filename: string) => {
    downloads.push(filename);
  },
}));

type Loose = Record<string, unknown>;
const win = window as unknown as Loose;
const result = { filename: 'Flow.html', mime: 'text/html', data: 'PGgxPg==' };

function Harness({ markdown }: { markdown: string }) {
  const a = useViewerActions({ conversationId: 'c1', artifactId: 'flow', version: 3, onRestored: () => undefined, onChanged: () => undefined });
  return (
    <>
      <ExportMenu busy={a.busy === 'export'} title="Export" onExport={(f: ExportFormat) => a.doExport('current', f, markdown)} />
      {a.status ? <p className="status">{a.status.text}</p> : null}
    </>
  );
}

let host: HTMLDivElement;
let root: Root;
let exportFn: ReturnType<typeof vi.fn>;
let withDiagrams: ReturnType<typeof vi.fn>;

beforeEach(() => {
  host = document.createElement('div');
  document.body.append(host);
  root = createRoot(host);
  exportFn = vi.fn(() => Promise.resolve(result));
  withDiagrams = vi.fn(() => Promise.resolve(result));
  win.go = { app: { ArtifactService: { Export: exportFn, ExportWithDiagrams: withDiagrams } } };
  downloads.length = 0;
  mock.rendered.length = 0;
  mock.gate = null;
});

afterEach(() => {
  act(() => root.unmount());
  host.remove();
  delete win.go;
});

/** Mounts the harness for markdown, opens Export ▾ and picks `label`, then lets the export settle. */
async function exportAs(markdown: string, label: string, settle = true): Promise<void> {
  await act(async () => {
    root.render(<Harness markdown={markdown} />);
    await Promise.resolve();
  });
  const button = host.querySelector<HTMLButtonElement>('button[aria-haspopup="menu"]');
  act(() => button?.click());
  const item = [...host.querySelectorAll<HTMLButtonElement>('[role="menuitem"]')].find((b) => b.textContent.startsWith(label));
  expect(item, `menu item ${label}`).toBeDefined();
  act(() => item?.click());
  if (settle) for (let i = 0; i < 20; i++) await act(async () => Promise.resolve());
}

const doc = '# Flow\n\n```mermaid\ngraph TD\n  A[Start] --> B[End]\n```\n\n- item\n\n  ```Mermaid\n  graph LR\n    X[Inner] --> Y\n  ```\n\n```mermaid\ngraph TD\n  %%bad A--\n```\n';

describe('export menu with Mermaid diagrams', () => {
  it('exports text without a diagram with Export and never imports Mermaid', async () => {
    await exportAs('# Plain\n\n```js\nlet mermaid = 1;\n```\n', 'HTML');
    expect(exportFn).toHaveBeenCalledWith('c1', 'flow', 0, 'html');
    expect(withDiagrams).not.toHaveBeenCalled();
    expect(mock.imported).toBe(0);
    expect(downloads).toEqual(['Flow.html']);
  });

  it('draws each block for HTML and passes the diagrams, leaving out one that does not parse', async () => {
    await exportAs(doc, 'HTML');
    expect(mock.imported).toBe(1);
    expect(mock.config).toContainEqual(expect.objectContaining({ securityLevel: 'strict', theme: 'default', htmlLabels: false, flowchart: { htmlLabels: false } }));
    expect(exportFn).not.toHaveBeenCalled();
    expect(withDiagrams).toHaveBeenCalledTimes(1);
    const [conv, id, version, format, diagrams] = withDiagrams.mock.calls[0] as [string, string, number, string, Record<string, string>];
    expect([conv, id, version, format]).toEqual(['c1', 'flow', 0, 'html']);
    expect(Object.keys(diagrams)).toEqual(['graph TD\n  A[Start] --> B[End]', 'graph LR\n  X[Inner] --> Y']);
    const svg = document.createElement('div');
    svg.innerHTML = diagrams['graph TD\n  A[Start] --> B[End]'] ?? '';
    expect(svg.querySelector('svg text')?.textContent).toBe('Start');
    // The page's own sanitizer ran too (the backend cleans the SVG again).
    expect(svg.querySelector('script')).toBeNull();
    expect(svg.querySelector('svg')?.hasAttribute('onload')).toBe(false);
    expect(downloads).toEqual(['Flow.html']);
  });

  it('shows the export under way while the diagrams are drawn', async () => {
    let open = (): void => undefined;
    mock.gate = new Promise<void>((r) => (open = r));
    await exportAs('```mermaid\ngraph TD\n  Q[Wait] --> R\n```\n', 'HTML', false);
    for (let i = 0; i < 5; i++) await act(async () => Promise.resolve());
    const button = host.querySelector<HTMLButtonElement>('button[aria-haspopup="menu"]');
    expect(button?.disabled).toBe(true);
    expect(withDiagrams).not.toHaveBeenCalled();
    open();
    for (let i = 0; i < 20; i++) await act(async () => Promise.resolve());
    expect(withDiagrams).toHaveBeenCalledTimes(1);
    expect(button?.disabled).toBe(false);
  });

  it('exports with Export when no diagram draws, and keeps Markdown and Word as they were', async () => {
    await exportAs('```mermaid\ngraph TD\n  %%bad A--\n```\n', 'HTML');
    expect(exportFn).toHaveBeenCalledWith('c1', 'flow', 0, 'html');
    expect(withDiagrams).not.toHaveBeenCalled();
    mock.rendered.length = 0;
    await exportAs(doc, 'Markdown');
    await exportAs(doc, 'Word');
    expect(exportFn).toHaveBeenCalledWith('c1', 'flow', 0, 'markdown');
    expect(exportFn).toHaveBeenCalledWith('c1', 'flow', 0, 'docx');
    expect(withDiagrams).not.toHaveBeenCalled();
    expect(mock.rendered).toEqual([]);
  });

  it('shows the error of a failed export as before', async () => {
    // Wails rejects with the Go error's text, a plain string.
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    withDiagrams.mockImplementation(() => Promise.reject('export: render html page: boom'));
    await exportAs(doc, 'HTML');
    expect(host.querySelector('.status')?.textContent).toContain('boom');
  });
});
