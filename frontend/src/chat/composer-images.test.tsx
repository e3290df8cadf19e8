// @vitest-environment jsdom
import { act, createRef, useEffect, useState } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Composer } from './Composer';
import { clearPictureCache, QuestionPictures } from './Pictures';
import { listenForDrops } from '../files/Uploads';
import { useComposerImages, type ComposerImages } from './useComposerImages';
import { useSend } from './useSend';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

type Loose = Record<string, unknown>;
const win = window as unknown as Loose;
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let root: Root;
let host: HTMLDivElement;
let pics: ComposerImages;
let upload: ReturnType<typeof vi.fn>;
let send: ReturnType<typeof vi.fn>;

/** The composer as the window has it: its pictures, its draft, Send. */
function Harness({ conversationId }: { conversationId: string | null }) {
  const pictures = useComposerImages(conversationId, 20, () => undefined);
  const chat = useSend({ selectedId: conversationId, running: false, newestKey: undefined, onMoved: () => undefined, onListChanged: () => undefined, onNeedsSetup: () => undefined, pictures });
  const [ref] = useState(() => createRef<HTMLTextAreaElement>());
  useEffect(() => {
    pics = pictures;
  });
  return <Composer value={chat.draft} onChange={chat.setDraft} onSend={chat.send} onStop={() => undefined} running={false} sending={chat.sending} textareaRef={ref} pictures={pictures} />;
}

async function mount(conversationId: string | null) {
  host = document.createElement('div');
  document.body.appendChild(host);
  root = createRoot(host);
  await act(async () => {
    root.render(<Harness conversationId={conversationId} />);
    await Promise.resolve();
  });
}

const settle = () =>
  act(async () => {
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 0));
  });

/** A paste or drop's DataTransfer holding `files` (and text when given). */
function transfer(files: File[], text = '') {
  const items = [...files.map((f) => ({ kind: 'file', type: f.type, getAsFile: () => f })), ...(text ? [{ kind: 'string', type: 'text/plain', getAsFile: () => null }] : [])];
  return { types: [...(files.length ? ['Files'] : []), ...(text ? ['text/plain'] : [])], items, files, dropEffect: 'none', getData: () => text };
}

function paste(files: File[], text = ''): Event {
  const ev = new Event('paste', { bubbles: true, cancelable: true });
  Object.defineProperty(ev, 'clipboardData', { value: transfer(files, text) });
  const box = host.querySelector('textarea');
  if (!box) throw new Error('no composer');
  act(() => {
    box.dispatchEvent(ev);
  });
  return ev;
}

function setDraft(text: string) {
  const box = host.querySelector('textarea');
  if (!box) throw new Error('no composer');
  act(() => {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- the native setter, so that React sees the input
    const set = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')?.set;
    set?.call(box, text);
    box.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

beforeEach(() => {
  upload = vi.fn((conv: unknown, files: { name: string }[]) =>
    Promise.resolve(files.map((f) => ({ name: f.name, conversation_id: conv === '' ? 'c-new' : conv, artifact_id: f.name, content_type: 'image', readable: true }))),
  );
  send = vi.fn((req: { conversation_id: string }) => Promise.resolve({ conversation_id: req.conversation_id || 'c-new', message_id: 'm1' }));
  win.runtime = { __browserMode: true };
  win.go = { app: { ArtifactService: { Upload: upload }, ChatService: { Send: send } } };
});

afterEach(() => {
  act(() => root.unmount());
  host.remove();
  delete win.go;
  delete win.runtime;
  clearPictureCache();
});

describe('pictures in the composer', () => {
  it('takes a pasted screenshot as a chip, uploads it, and sends its id with the question', async () => {
    await mount('c1');
    const ev = paste([new File([PNG], 'image.png', { type: 'image/png' })]);
    expect(ev.defaultPrevented).toBe(true);
    await settle();
    expect(upload).toHaveBeenCalledTimes(1);
    const [conv, files] = upload.mock.calls[0] as [string, { name: string; data: string }[]];
    expect(conv).toBe('c1');
    expect(files[0]?.name).toMatch(/^pasted-\d{8}-\d{6}\.png$/);
    expect(files[0]?.data).toBe('iVBORw0KGgo=');
    const chip = host.querySelector('[data-testid="composer-picture"]');
    expect(chip?.querySelector('img')?.getAttribute('src')).toBe('data:image/png;base64,iVBORw0KGgo=');
    expect(pics.ids).toEqual([files[0]?.name]);

    setDraft('What does this chart show?');
    const sendButton = host.querySelector<HTMLButtonElement>('button[type="submit"]');
    expect(sendButton?.disabled).toBe(false);
    act(() => sendButton?.click());
    await settle();
    expect(send).toHaveBeenCalledTimes(1);
    const req = send.mock.calls[0]?.[0] as { conversation_id: string; content: string; images: string[] };
    expect(req).toMatchObject({ conversation_id: 'c1', content: 'What does this chart show?', images: [files[0]?.name] });
    expect(host.querySelectorAll('[data-testid="composer-picture"]')).toHaveLength(0); // sent: the chips are gone
  });

  it('leaves a text paste to the box', async () => {
    await mount('c1');
    const ev = paste([], 'plain words');
    expect(ev.defaultPrevented).toBe(false);
    await settle();
    expect(upload).not.toHaveBeenCalled();
  });

  it('removes a chip with its button or the Delete key, each reachable with Tab', async () => {
    await mount('c1');
    paste([new File([PNG], 'a.png', { type: 'image/png' }), new File([PNG], 'b.png', { type: 'image/png' })]);
    await settle();
    const remove = host.querySelectorAll<HTMLButtonElement>('.picture-remove');
    expect(remove).toHaveLength(2);
    expect(remove[0]?.getAttribute('aria-label')).toContain('a.png');
    expect(remove[0]?.tabIndex).toBe(0);
    act(() => remove[0]?.click());
    expect(pics.items.map((p) => p.name)).toEqual(['b.png']);
    const chip = host.querySelector('[data-testid="composer-picture"]');
    act(() => {
      chip?.querySelector('button')?.dispatchEvent(new KeyboardEvent('keydown', { key: 'Delete', bubbles: true }));
    });
    expect(pics.items).toEqual([]);
  });

  it('puts the question in the conversation the first picture created when none was open', async () => {
    await mount(null);
    paste([new File([PNG], 'shot.png', { type: 'image/png' })]);
    await settle();
    expect(upload.mock.calls[0]?.[0]).toBe('');
    setDraft('Explain');
    act(() => host.querySelector<HTMLButtonElement>('button[type="submit"]')?.click());
    await settle();
    expect(send.mock.calls[0]?.[0]).toMatchObject({ conversation_id: 'c-new', images: ['shot.png'] });
  });

  it('refuses a picture over the upload limit on its chip, unread and unsent', async () => {
    await mount('c1');
    const big = new File([new Uint8Array(21 * 1024 * 1024)], 'huge.png', { type: 'image/png' });
    paste([big]);
    await settle();
    expect(upload).not.toHaveBeenCalled();
    expect(pics.items[0]?.status).toBe('failed');
    expect(pics.items[0]?.error).toContain('huge.png');
    expect(pics.ids).toEqual([]);
  });
});

describe('dropping onto the composer', () => {
  it('sends dropped pictures to the question and other files to Links & files', async () => {
    await mount('c1');
    const addFiles = vi.fn();
    // jsdom lays nothing out: the composer's box is the point (0, 0).
    const stop = listenForDrops(true, () => undefined, addFiles, () => undefined);
    try {
      const drop = (x: number, files: File[]) => {
        const ev = new Event('drop', { bubbles: true, cancelable: true });
        Object.defineProperty(ev, 'dataTransfer', { value: transfer(files) });
        Object.defineProperty(ev, 'clientX', { value: x });
        Object.defineProperty(ev, 'clientY', { value: 0 });
        act(() => {
          window.dispatchEvent(ev);
        });
      };
      drop(0, [new File([PNG], 'photo.png', { type: 'image/png' }), new File(['# n'], 'notes.md', { type: 'text/markdown' })]);
      await settle();
      expect(pics.items.map((p) => [p.name, p.status])).toEqual([['photo.png', 'ready']]);
      expect(addFiles).toHaveBeenCalledTimes(1);
      expect((addFiles.mock.calls[0]?.[0] as File[]).map((f) => f.name)).toEqual(['notes.md']);
      // Away from the composer, a picture is an ordinary upload.
      drop(500, [new File([PNG], 'other.png', { type: 'image/png' })]);
      await settle();
      expect(pics.items).toHaveLength(1);
      expect((addFiles.mock.calls[1]?.[0] as File[]).map((f) => f.name)).toEqual(['other.png']);
    } finally {
      stop();
    }
  });
});

describe('QuestionPictures', () => {
  it('shows each picture of a sent question from its upload, and opens it on click', async () => {
    const image = vi.fn(() => Promise.resolve({ name: 'chart.png', mime: 'image/png', width: 3, height: 2, data: 'iVBORw0KGgo=' }));
    win.go = { app: { ArtifactService: { Image: image } } };
    const opened: string[] = [];
    host = document.createElement('div');
    document.body.appendChild(host);
    root = createRoot(host);
    const ref = { artifact_id: 'chart.png', name: 'chart.png', mime: 'image/png', sha256: 'ab', size: 8, width: 3, height: 2 };
    await act(async () => {
      root.render(<QuestionPictures conversationId="c1" images={[ref]} onOpen={(id) => opened.push(id)} />);
      await Promise.resolve();
    });
    await settle();
    expect(image).toHaveBeenCalledWith('c1', 'chart.png');
    const img = host.querySelector('img');
    expect(img?.getAttribute('src')).toBe('data:image/png;base64,iVBORw0KGgo=');
    expect(img?.getAttribute('alt')).toBe('chart.png');
    act(() => host.querySelector<HTMLButtonElement>('button')?.click());
    expect(opened).toEqual(['chart.png']);
  });
});
