// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { declaredArtifact, type DeclaredArtifact } from '../api/artifacts';
import { linkErrors } from './AddLinkForm';
import { DeclaredList } from './DeclaredList';
import { i18n } from '../i18n/i18n';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

type Loose = Record<string, unknown>;
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
const click = (el: Element) =>
  act(async () => {
    (el as HTMLElement).click();
    await Promise.resolve();
  });
const key = (el: Element, k: string) =>
  act(async () => {
    el.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true }));
    await Promise.resolve();
  });
const type = (el: HTMLInputElement, value: string) =>
  act(async () => {
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set?.call(el, value);
    el.dispatchEvent(new Event('input', { bubbles: true }));
    await Promise.resolve();
  });
/** Enter in a field submits its form, as a browser does. */
const enter = (el: HTMLInputElement) =>
  act(async () => {
    el.form!.requestSubmit();
    await Promise.resolve();
  });
const button = (text: string) => Array.from(host.querySelectorAll('button')).find((b) => b.textContent.includes(text));
/** The form's Title (0) or Address (1) field. */
const field = (label: 'Title' | 'Address') => host.querySelectorAll<HTMLInputElement>('form.declared-add input')[label === 'Title' ? 0 : 1]!;

const art = (over: Partial<DeclaredArtifact> & { id: string }): DeclaredArtifact => declaredArtifact({ kind: 'link', storage: 'external_url', status: 'available', ...over })!;

/** An AppError as the window rejects with it: its JSON text. */
const validation = (fields: Record<string, string>) =>
  new Error(JSON.stringify({ code: 'validation', message: Object.entries(fields).map(([k, v]) => `${k}: ${v}`).join('; '), fields }));

let addLink: ReturnType<typeof vi.fn>;
beforeEach(async () => {
  await i18n.changeLanguage('en');
  addLink = vi.fn();
  win.go = { app: { ArtifactService: { AddLink: addLink } } };
  win.runtime = { EventsOnMultiple: () => () => undefined };
});
afterEach(() => {
  act(() => root?.unmount());
  root = null;
  delete win.go;
  delete win.runtime;
});

describe('Add link', () => {
  it('adds by keyboard: Enter sends title and address, the link shows at once and the focus returns to Add link', async () => {
    const added: DeclaredArtifact[] = [];
    addLink.mockResolvedValue({ id: 'l1', kind: 'link', storage: 'external_url', title: 'Board', url: 'https://board.example.com/', source: 'client', status: 'available' });
    await render(<DeclaredList conversationId="c1" items={[]} onRemoved={() => undefined} onAdded={(a) => added.push(a)} />);
    expect(host.querySelector('.declared-list')?.hasAttribute('hidden')).toBe(true);
    await click(button('Add link')!);
    expect(host.querySelector('form.declared-add label')?.textContent).toBe('Title');
    expect(document.activeElement).toBe(field('Title'));
    await type(field('Title'), 'Board');
    await type(field('Address'), 'https://board.example.com/');
    await enter(field('Address'));
    await settle();
    expect(addLink).toHaveBeenCalledWith('c1', 'Board', 'https://board.example.com/');
    expect(added.map((a) => a.id)).toEqual(['l1']);
    expect(host.querySelector('form.declared-add')).toBeNull();
    expect(host.querySelector('.declared-status')?.textContent).toContain('Link added.');
    await act(() => new Promise((r) => requestAnimationFrame(() => r(undefined))));
    expect(document.activeElement).toBe(button('Add link'));
  });

  it('shows what the store refuses under its field, translated, and keeps what was typed', async () => {
    addLink.mockRejectedValue(validation({ url: 'must use http or https' }));
    await render(<DeclaredList conversationId="c1" items={[]} onRemoved={() => undefined} />);
    await click(button('Add link')!);
    await type(field('Title'), 'Run me');
    await type(field('Address'), 'javascript:alert(1)');
    await enter(field('Title'));
    await settle();
    expect(host.querySelector('#declared-add-url-error')?.textContent).toBe('Only http and https links can be added.');
    expect(field('Address').getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(field('Address'));
    expect(field('Address').value).toBe('javascript:alert(1)');
    expect(field('Title').value).toBe('Run me');

    await i18n.changeLanguage('zh-CN');
    addLink.mockRejectedValue(validation({ title: 'is required' }));
    await enter(field('Title'));
    await settle();
    expect(host.querySelector('#declared-add-title-error')?.textContent).toBe('请输入标题。');
  });

  it('Escape closes only the form, sending nothing', async () => {
    const outer = vi.fn();
    document.addEventListener('keydown', outer);
    await render(<DeclaredList conversationId="c1" items={[art({ id: 'a', title: 'Agent link', url: 'https://a.example/' })]} onRemoved={() => undefined} />);
    await click(button('Add link')!);
    await type(field('Title'), 'half typed');
    await key(field('Title'), 'Escape');
    expect(host.querySelector('form.declared-add')).toBeNull();
    expect(outer).not.toHaveBeenCalled();
    expect(addLink).not.toHaveBeenCalled();
    document.removeEventListener('keydown', outer);
  });

  it('translates every reason the store gives', () => {
    expect(linkErrors({ title: 'must be at most 200 characters', url: 'must be at most 8192 bytes' })).toEqual({
      title: 'Use at most 200 characters.',
      url: 'The address is too long (at most 8192 bytes).',
    });
    expect(linkErrors({ url: 'must be an absolute http or https URL' }).url).toContain('not a valid web address');
    expect(linkErrors({ url: 'must not contain control characters' }).url).toContain('control characters');
    expect(linkErrors({ url: 'one of workspacePath, managedId or url is required' }).url).toBe("Type the link's address.");
    expect(linkErrors({ title: 'must not contain HTML markup' }).title).toContain('plain text');
    expect(linkErrors({ url: 'something new' }).url).toBe('This is not valid: something new');
  });
});

describe('a published page in Links & files', () => {
  it('shows its file name and opens through the backend', async () => {
    const open = vi.fn(() => Promise.resolve());
    win.go = { app: { ArtifactService: { OpenDeclared: open } } };
    const page = art({ id: 'p1', kind: 'html', storage: 'published', title: 'Lineage map', url: 'file:///home/u/research/Lineage_map%20(3).html', source: 'client' });
    await render(<DeclaredList conversationId="c1" items={[page]} onRemoved={() => undefined} />);
    expect(host.querySelector('.declared-where')?.textContent).toBe('Lineage_map (3).html');
    await click(host.querySelector('.declared-row')!);
    await settle();
    expect(open).toHaveBeenCalledWith('c1', 'p1');
  });
});
