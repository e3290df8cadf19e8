// @vitest-environment jsdom
import { act, useEffect } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { firstPaintDone } from '../shared/first-paint';
import { applyDeclaredChange, artifactChange, declaredArtifact, type DeclaredArtifact } from '../api/artifacts';
import { ArtifactPanel, type ArtifactRow } from '../artifacts/ArtifactPanel';
import { DeclaredList } from './DeclaredList';
import { useDeclared, type DeclaredState } from './useDeclared';

// The panel is rendered alone here: no first frame of the window's to wait for.
firstPaintDone();

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

type Loose = Record<string, unknown>;
type Fn = (...args: unknown[]) => unknown;
const win = window as unknown as Loose;

// jsdom has no modal dialogs: open and close them as plain attributes.
const proto = HTMLDialogElement.prototype as unknown as Loose;
proto.showModal ??= function (this: HTMLDialogElement) {
  this.setAttribute('open', '');
};
proto.close ??= function (this: HTMLDialogElement) {
  this.removeAttribute('open');
};

let root: Root | null = null;
const host = document.createElement('div');
document.body.appendChild(host);

// The artifact viewer is a chunk loaded on demand (LazyArtifactViewer): render waits for it.
const render = (node: React.ReactNode) =>
  act(async () => {
    root ??= createRoot(host);
    root.render(node);
    await import('../artifacts/ArtifactViewer');
    await new Promise((r) => setTimeout(r, 0));
  });
const settle = () => act(() => new Promise((r) => setTimeout(r, 0)));

/** The run-event listeners the page registered through window.runtime (see wailsjs runtime). */
let listeners: Map<string, ((payload: unknown) => void)[]>;
const runtime = {
  BrowserOpenURL: vi.fn(),
  ClipboardSetText: vi.fn(() => Promise.resolve(true)),
  EventsOnMultiple: (name: string, cb: (payload: unknown) => void) => {
    listeners.set(name, [...(listeners.get(name) ?? []), cb]);
    return () => listeners.set(name, (listeners.get(name) ?? []).filter((x) => x !== cb));
  },
};
const emit = (data: Loose, conversationId = 'c1', messageId = '') =>
  act(async () => {
    for (const cb of listeners.get('run:event') ?? []) {
      cb({ type: 'artifact_changed', conversation_id: conversationId, message_id: messageId, seq: 1, created_at: '2025-01-01T00:00:00Z', data });
    }
    await Promise.resolve();
  });
const bind = (methods: Record<string, Fn>) => {
  win.go = { app: { ArtifactService: methods } };
};

beforeEach(() => {
  listeners = new Map();
  runtime.BrowserOpenURL.mockClear();
  runtime.ClipboardSetText.mockClear();
  win.runtime = runtime;
});
afterEach(() => {
  act(() => root?.unmount());
  root = null;
  delete win.go;
  delete win.runtime;
  vi.restoreAllMocks();
});

const art = (over: Partial<DeclaredArtifact> & { id: string }): DeclaredArtifact => {
  const a = declaredArtifact({ kind: 'link', storage: 'external_url', title: 'T', status: 'available', source: 'tool', ...over });
  if (a === null) throw new Error('no id');
  return a;
};
const LINK = art({ id: 'a1', title: 'User profile resource', url: 'https://platform.example.com/resources/user-profile', source: 'tool' });
const FILE = art({ id: 'a2', kind: 'html', storage: 'workspace', title: 'Lineage report', workspacePath: 'reports/lineage.html', source: 'hook', sizeBytes: 2048 });
const GONE = art({
  id: 'a3',
  kind: 'pdf',
  storage: 'workspace',
  title: 'Old summary',
  workspacePath: 'out/summary.pdf',
  source: 'client',
  status: 'missing',
  missingReason: 'the file does not exist',
});

const rows = () => Array.from(host.querySelectorAll<HTMLLIElement>('.declared-item'));
const rowButton = (i: number) => rows()[i]!.querySelector<HTMLButtonElement>('.declared-row')!;
const menuItems = () => Array.from(host.querySelectorAll<HTMLButtonElement>('[role="menuitem"]'));
const key = (el: Element, k: string, shiftKey = false) =>
  act(async () => {
    el.dispatchEvent(new KeyboardEvent('keydown', { key: k, shiftKey, bubbles: true }));
    await Promise.resolve();
  });
const click = (el: Element) =>
  act(async () => {
    (el as HTMLElement).click();
    await Promise.resolve();
  });

describe('Links & files list', () => {
  it('shows kind icon, title, host or path, source badge, and missing ones greyed with their reason', async () => {
    await render(<DeclaredList conversationId="c1" items={[LINK, FILE, GONE]} onRemoved={() => undefined} />);
    const [link, file, gone] = rows();
    expect(rows()).toHaveLength(3);

    expect(link!.querySelector('[role="img"]')?.getAttribute('aria-label')).toBe('Link');
    expect(link!.querySelector('.declared-icon svg')).not.toBeNull();
    expect(link!.querySelector('.declared-title')?.textContent).toBe('User profile resource');
    expect(link!.querySelector('.declared-where')?.textContent).toBe('platform.example.com');
    expect(link!.querySelector('.declared-source')?.textContent).toBe('tool');
    expect(link!.classList.contains('missing')).toBe(false);

    expect(file!.querySelector('[role="img"]')?.getAttribute('aria-label')).toBe('HTML page');
    expect(file!.querySelector('.declared-where')?.textContent).toBe('reports/lineage.html');
    expect(file!.querySelector('.declared-source')?.textContent).toBe('hook');
    expect(file!.textContent).toContain('2.0 KB');

    expect(gone!.classList.contains('missing')).toBe(true);
    expect(gone!.querySelector('[role="img"]')?.getAttribute('aria-label')).toBe('PDF');
    expect(gone!.querySelector('.declared-reason')?.textContent).toBe('Missing: the file does not exist');
    expect(gone!.querySelector('.declared-row')?.getAttribute('title')).toContain('the file does not exist');
    expect(gone!.querySelector('.declared-source')?.textContent).toBe('client');
    expect(gone!.querySelector('.declared-where')?.textContent).toBe('out/summary.pdf');
  });

  it('renders markup in titles and descriptions as text', async () => {
    const evil = '<img src=x onerror="window.__pwned=1"><b>bold</b>';
    const a = art({ id: 'x', title: evil, description: '<script>alert(1)</script> **not markdown**', url: 'https://evil.example/' });
    await render(<DeclaredList conversationId="c1" items={[a]} onRemoved={() => undefined} />);
    expect(host.querySelector('.declared-title')?.textContent).toBe(evil);
    expect(host.querySelector('.declared-row')?.getAttribute('title')).toContain('<script>alert(1)</script> **not markdown**');
    expect(host.querySelectorAll('img, b, script, strong')).toHaveLength(0);
    expect(win.__pwned).toBeUndefined();
  });

  it('opens a link in the system browser and never loads it into the page', async () => {
    const spy = vi.spyOn(document, 'createElement');
    const added: string[] = [];
    const observer = new MutationObserver((records) => {
      for (const n of records.flatMap((r) => Array.from(r.addedNodes))) {
        if (n instanceof Element) added.push(n.tagName.toLowerCase(), ...Array.from(n.querySelectorAll('*'), (e) => e.tagName.toLowerCase()));
      }
    });
    observer.observe(document, { childList: true, subtree: true });
    // An image link: still icon, title and host only (no remote preview).
    const image = art({ id: 'img', kind: 'image', title: 'Chart', url: 'https://cdn.example.org/chart.png' });
    await render(<DeclaredList conversationId="c1" items={[image, LINK]} onRemoved={() => undefined} />);
    await click(rowButton(0));
    await click(rowButton(1));
    expect(runtime.BrowserOpenURL.mock.calls).toEqual([['https://cdn.example.org/chart.png'], ['https://platform.example.com/resources/user-profile']]);
    await settle();
    observer.disconnect();
    const created = spy.mock.calls.map((c) => c[0].toLowerCase());
    for (const tag of ['img', 'iframe', 'video', 'audio', 'object', 'embed', 'link', 'source']) {
      expect(created).not.toContain(tag);
      expect(added).not.toContain(tag);
    }
    expect(document.querySelectorAll('img, iframe, video, audio, object, embed')).toHaveLength(0);
  });

  it('never opens a link that is not http(s)', async () => {
    const js = art({ id: 'js', title: 'Bad', url: 'javascript:alert(1)' });
    await render(<DeclaredList conversationId="c1" items={[js]} onRemoved={() => undefined} />);
    await click(rowButton(0));
    expect(runtime.BrowserOpenURL).not.toHaveBeenCalled();
    expect(host.querySelector('[role="alert"]')?.textContent).toContain('Only web links');
  });

  it('opens a workspace file through the backend and shows its refusal', async () => {
    // Wails rejects with the Go error's text, a plain string.
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    const open = vi.fn(() => Promise.reject('desktop_only: browser mode does not open files on this computer'));
    bind({ OpenDeclared: open });
    await render(<DeclaredList conversationId="c1" items={[FILE]} onRemoved={() => undefined} />);
    await click(rowButton(0));
    await settle();
    expect(open).toHaveBeenCalledWith('c1', 'a2');
    expect(runtime.BrowserOpenURL).not.toHaveBeenCalled();
    expect(host.querySelector('[role="alert"]')?.textContent).toContain('browser mode does not open files on this computer');
  });

  it('does not ask browser mode to open files or folders, and says why', async () => {
    const open = vi.fn(() => Promise.resolve(null));
    const reveal = vi.fn(() => Promise.resolve(null));
    bind({ OpenDeclared: open, RevealDeclared: reveal });
    win.runtime = { ...runtime, __browserMode: true };
    await render(<DeclaredList conversationId="c1" items={[FILE, LINK]} onRemoved={() => undefined} />);
    await click(rowButton(0));
    expect(host.querySelector('[role="alert"]')?.textContent).toContain('browser mode does not open files');
    await key(rowButton(0), 'F10', true);
    await click(menuItems().find((b) => b.textContent.includes('Reveal'))!);
    expect(host.querySelector('[role="alert"]')?.textContent).toContain('browser mode does not open folders');
    expect(open).not.toHaveBeenCalled();
    expect(reveal).not.toHaveBeenCalled();
    // Links still open, through the page.
    await click(rowButton(1));
    expect(runtime.BrowserOpenURL).toHaveBeenCalledWith('https://platform.example.com/resources/user-profile');
  });

  it('is driven by keyboard: native buttons in the tab order, the Menu key and Shift+F10 open the menu, Escape returns', async () => {
    const reveal = vi.fn(() => Promise.resolve(null));
    bind({ RevealDeclared: reveal });
    await render(<DeclaredList conversationId="c1" items={[LINK, FILE]} onRemoved={() => undefined} />);
    // Native buttons, in the tab order.
    expect(rowButton(0).tagName).toBe('BUTTON');
    expect(rowButton(0).tabIndex).toBe(0);

    await key(rowButton(0), 'F10', true);
    expect(menuItems().map((b) => b.textContent.trim())).toEqual(['Open', 'Copy link', 'Remove…']);
    expect(document.activeElement).toBe(menuItems()[0]);
    await key(menuItems()[0]!, 'Escape');
    expect(menuItems()).toHaveLength(0);
    expect(document.activeElement).toBe(rowButton(0));

    await key(rowButton(1), 'ContextMenu');
    expect(menuItems().map((b) => b.textContent.trim())).toEqual(['Open', 'Copy path', 'Reveal in folder', 'Remove…']);
    await click(menuItems().find((b) => b.textContent.includes('Reveal'))!);
    expect(reveal).toHaveBeenCalledWith('c1', 'a2');

    // Right-click opens the same menu; Copy link copies the URL.
    await act(async () => {
      rowButton(0).dispatchEvent(new MouseEvent('contextmenu', { bubbles: true, cancelable: true }));
      await Promise.resolve();
    });
    await click(menuItems().find((b) => b.textContent.trim() === 'Copy link')!);
    await settle();
    expect(runtime.ClipboardSetText).toHaveBeenCalledWith('https://platform.example.com/resources/user-profile');
  });

  it('removes an artifact only after confirmation', async () => {
    const remove = vi.fn(() => Promise.resolve(null));
    const onRemoved = vi.fn();
    bind({ RemoveDeclared: remove });
    await render(<DeclaredList conversationId="c1" items={[LINK]} onRemoved={onRemoved} />);
    await click(host.querySelector('.declared-more')!);
    await click(menuItems().find((b) => b.textContent.includes('Remove'))!);
    const dialog = document.querySelector('dialog[open]')!;
    expect(dialog.textContent).toContain('User profile resource');
    expect(remove).not.toHaveBeenCalled();
    await click(Array.from(dialog.querySelectorAll('button')).find((b) => b.textContent === 'Remove')!);
    await settle();
    expect(remove).toHaveBeenCalledWith('c1', 'a1');
    expect(onRemoved).toHaveBeenCalledWith('a1');
    expect(document.querySelector('dialog[open]')).toBeNull();
  });
});

describe('artifact_changed for the panel', () => {
  it('reads declared changes and document removals', () => {
    expect(artifactChange('artifact_changed', { action: 'removed', artifactId: 'a1', reason: 'eviction', declared: { id: 'a1' } })).toEqual({
      kind: 'declared',
      action: 'removed',
      artifactId: 'a1',
      reason: 'eviction',
    });
    expect(artifactChange('artifact_changed', { action: 'removed', reason: 'explicit', artifact: { id: 'report' } })).toEqual({
      kind: 'document-removed',
      artifactId: 'report',
      reason: 'explicit',
    });
    // A run's document snapshot is events.ts's business.
    expect(artifactChange('artifact_changed', { artifact: { id: 'report', content: 'x' } })).toBeNull();
    expect(artifactChange('tool_complete', { action: 'removed', artifact: { id: 'x' } })).toBeNull();
  });

  it('applies the same change twice to the same result', () => {
    const ch = artifactChange('artifact_changed', { action: 'updated', artifactId: 'a1', declared: { ...LINK, title: 'New title' } })!;
    const once = applyDeclaredChange([LINK, FILE], ch);
    expect(once.map((a) => a.title)).toEqual(['New title', 'Lineage report']);
    expect(applyDeclaredChange(once, ch)).toEqual(once);
  });
});

describe('useDeclared', () => {
  let state: DeclaredState;
  function Harness({ conversationId, reloadKey }: { conversationId: string | null; reloadKey: number }) {
    const s = useDeclared(conversationId, reloadKey);
    useEffect(() => {
      state = s;
    });
    return null;
  }

  it('applies created, updated and removed events by id, for the open conversation only', async () => {
    bind({ ListDeclared: () => Promise.resolve([LINK, FILE]) });
    await render(<Harness conversationId="c1" reloadKey={0} />);
    await settle();
    expect(state.items.map((a) => a.id)).toEqual(['a1', 'a2']);

    await emit({ action: 'removed', artifactId: 'a1', reason: 'explicit', declared: LINK });
    expect(state.items.map((a) => a.id)).toEqual(['a2']);
    await emit({ action: 'created', artifactId: 'a3', declared: GONE });
    await emit({ action: 'updated', artifactId: 'a2', declared: { ...FILE, status: 'missing', missingReason: 'the file does not exist' } });
    expect(state.items.map((a) => `${a.id}:${a.status}`)).toEqual(['a2:missing', 'a3:missing']);
    await emit({ action: 'created', artifactId: 'zz', declared: { ...LINK, id: 'zz' } }, 'other-conversation');
    expect(state.items.map((a) => a.id)).toEqual(['a2', 'a3']);
    // A run's own copy of its change arrives after the store's, maybe after a removal made
    // meanwhile through the local API: it must not bring the removed artifact back.
    await emit({ action: 'created', artifactId: 'a1', declared: LINK }, 'c1', 'run-message');
    expect(state.items.map((a) => a.id)).toEqual(['a2', 'a3']);
  });

  it('resyncs to the snapshot after a reconnect and keeps changes heard while it loaded', async () => {
    let resolve: (v: unknown) => void = () => undefined;
    const list = vi.fn(() => Promise.resolve<unknown>([LINK, FILE]));
    bind({ ListDeclared: list });
    await render(<Harness conversationId="c1" reloadKey={0} />);
    await settle();
    expect(state.items.map((a) => a.id)).toEqual(['a1', 'a2']);

    // The snapshot replaces the list (a1 was removed while the stream was down).
    list.mockImplementationOnce(() => new Promise((r) => (resolve = r)));
    await render(<Harness conversationId="c1" reloadKey={1} />);
    // Heard while the snapshot loads: applied again on top of it.
    await emit({ action: 'created', artifactId: 'a3', declared: GONE });
    await act(async () => {
      resolve([FILE]);
      await Promise.resolve();
    });
    await settle();
    expect(list).toHaveBeenCalledTimes(2);
    expect(state.items.map((a) => a.id)).toEqual(['a2', 'a3']);

    // A backend without the method: nothing to show, no error.
    bind({});
    await render(<Harness conversationId="c2" reloadKey={1} />);
    await settle();
    expect(state.items).toEqual([]);
  });

  it('resyncs when the window regains focus', async () => {
    const list = vi.fn(() => Promise.resolve<unknown>([LINK]));
    bind({ ListDeclared: list });
    await render(<Harness conversationId="c1" reloadKey={0} />);
    await settle();
    list.mockImplementation(() => Promise.resolve([FILE]));
    await act(async () => {
      window.dispatchEvent(new Event('focus'));
      await Promise.resolve();
    });
    await settle();
    expect(state.items.map((a) => a.id)).toEqual(['a2']);
  });
});

describe('deleting documents', () => {
  const row = (id: string, over: Partial<ArtifactRow> = {}): ArtifactRow => ({
    id,
    title: id === 'task_plan' ? 'Task plan' : 'Research report',
    contentType: 'markdown',
    version: 2,
    source: 'agent',
    size: 10,
    unsaved: false,
    content: '# Report',
    ...over,
  });

  it('asks first, then deletes; the task plan too', async () => {
    const del = vi.fn(() => Promise.resolve(null));
    const onDeleted = vi.fn();
    bind({ DeleteArtifact: del, Versions: () => Promise.resolve([]), ListDeclared: () => Promise.resolve([]) });
    const rows = [row('task_plan', { content: '- [ ] a' }), row('research_report')];
    await render(
      <ArtifactPanel
        conversationId="c1"
        rows={rows}
        selectedId="research_report"
        onSelect={() => undefined}
        running={false}
        onChanged={() => undefined}
        onAddFiles={() => undefined}
        declared={[LINK]}
        onDeleted={onDeleted}
      />,
    );
    // The Links & files section sits with the documents.
    expect(host.querySelector('section.declared')?.getAttribute('aria-label')).toBe('Links & files');
    expect(host.querySelector('section.declared .declared-title')?.textContent).toBe('User profile resource');

    await click(host.querySelector('.viewer-delete')!);
    let dialog = document.querySelector('dialog[open]')!;
    expect(dialog.getAttribute('aria-label')).toBe('Delete this artifact?');
    expect(dialog.textContent).toContain('Research report');
    expect(dialog.textContent).toContain('all its versions');
    // Cancel deletes nothing.
    await click(Array.from(dialog.querySelectorAll('button')).find((b) => b.textContent === 'Cancel')!);
    expect(del).not.toHaveBeenCalled();

    await click(host.querySelector('.viewer-delete')!);
    dialog = document.querySelector('dialog[open]')!;
    await click(Array.from(dialog.querySelectorAll('button')).find((b) => b.textContent === 'Delete')!);
    await settle();
    expect(del).toHaveBeenCalledWith('c1', 'research_report');
    expect(onDeleted).toHaveBeenCalledWith('research_report');

    await click(host.querySelector('button[aria-label="Delete the task plan"]')!);
    dialog = document.querySelector('dialog[open]')!;
    expect(dialog.getAttribute('aria-label')).toBe('Delete the task plan?');
    expect(dialog.textContent).toContain("lead agent's checklist");
    await click(Array.from(dialog.querySelectorAll('button')).find((b) => b.textContent === 'Delete')!);
    await settle();
    expect(del).toHaveBeenLastCalledWith('c1', 'task_plan');
  });

  it('shows why a delete was refused and keeps the dialog open', async () => {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    const del = vi.fn(() => Promise.reject('conflict: the research run is changing "research_report" right now; wait for it to finish or stop it, then delete it'));
    const onDeleted = vi.fn();
    bind({ DeleteArtifact: del, Versions: () => Promise.resolve([]) });
    await render(
      <ArtifactPanel
        conversationId="c1"
        rows={[row('research_report')]}
        selectedId="research_report"
        onSelect={() => undefined}
        running
        onChanged={() => undefined}
        onAddFiles={() => undefined}
        onDeleted={onDeleted}
      />,
    );
    await click(host.querySelector('.viewer-delete')!);
    const dialog = document.querySelector('dialog[open]')!;
    await click(Array.from(dialog.querySelectorAll('button')).find((b) => b.textContent === 'Delete')!);
    await settle();
    expect(dialog.querySelector('[role="alert"]')?.textContent).toContain('wait for it to finish');
    expect(onDeleted).not.toHaveBeenCalled();
  });
});
