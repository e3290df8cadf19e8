// @vitest-environment jsdom
import { act, useEffect } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MODEL_CONTEXT_DELAY_MS, useConversationSettingsForm, type ConversationSettingsForm } from './ConversationSettings';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

type Loose = Record<string, unknown>;
const win = window as unknown as Loose;
let root: Root | null = null;
let form: ConversationSettingsForm;

function Harness({ model }: { model: string }) {
  const f = useConversationSettingsForm(false, model);
  useEffect(() => {
    form = f;
  });
  return <div>{f.sections}</div>;
}

const host = document.createElement('div');
document.body.appendChild(host);
const render = (model: string) =>
  act(async () => {
    root ??= createRoot(host);
    root.render(<Harness model={model} />);
    await Promise.resolve();
  });
const wait = (ms: number) => act(() => new Promise((r) => setTimeout(r, ms)));
const stored = { model: 'qwen3:8b', context_window: 40960, effective_context_window: 40960, compact_at_percent: 70, tool_permissions: {}, permission_timeout_seconds: 120 };

afterEach(() => {
  act(() => root?.unmount());
  root = null;
  delete win.go;
});

describe('model context in the settings form', () => {
  it("shows the typed model's context and holds Save until it arrives", async () => {
    const modelContext = vi.fn((m: string) => Promise.resolve({ model: m, context_window: 0, effective_context_window: 32768, compact_at_percent: 80 }));
    win.go = { app: { SettingsService: { Get: () => Promise.resolve(stored), ModelContext: modelContext } } };
    await render('qwen3:8b');
    await wait(0);
    expect(form.input).toMatchObject({ context_window: 40960, compact_at_percent: 70 });
    await render('llama3.1:8b');
    expect(form.pending).toBe(true);
    await wait(MODEL_CONTEXT_DELAY_MS + 50);
    expect(modelContext).toHaveBeenCalledWith('llama3.1:8b');
    expect(form.pending).toBe(false);
    expect(form.input).toMatchObject({ context_window: 0, compact_at_percent: 80 });
  });

  it('does not hold Save when the backend cannot tell another model\'s context', async () => {
    win.go = { app: { SettingsService: { Get: () => Promise.resolve(stored), ModelContext: () => Promise.reject(new Error('no such method')) } } };
    await render('qwen3:8b');
    await wait(0);
    await render('llama3.1:8b');
    await wait(MODEL_CONTEXT_DELAY_MS + 50);
    expect(form.pending).toBe(false);
    expect(form.input).toMatchObject({ context_window: 0, compact_at_percent: 80 });
  });

  it('keeps a window the user typed when the model name changes', async () => {
    win.go = {
      app: {
        SettingsService: {
          Get: () => Promise.resolve(stored),
          ModelContext: (m: string) => Promise.resolve({ model: m, context_window: 0, effective_context_window: 32768, compact_at_percent: 80 }),
        },
      },
    };
    await render('qwen3:8b');
    await wait(0);
    const box = host.querySelector<HTMLInputElement>('input[aria-describedby="hint-context-window"]');
    expect(box).not.toBeNull();
    act(() => {
      // React tracks the value through the prototype's setter (a plain assignment is ignored).
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set?.call(box, '65536');
      box?.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await render('llama3.1:8b');
    await wait(MODEL_CONTEXT_DELAY_MS + 50);
    expect(form.input).toMatchObject({ context_window: 65536, compact_at_percent: 80 });
  });
});
