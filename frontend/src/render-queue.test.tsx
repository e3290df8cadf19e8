// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { useState } from 'react';
import { createRoot } from 'react-dom/client';
import { options } from 'preact';
import { installRenderQueue } from './render-queue';

const nextTask = () => new Promise<void>((r) => setTimeout(r, 0));

describe('the render queue', () => {
  afterEach(() => {
    options.debounceRendering = undefined; // Preact's own queue again
  });

  it('renders the updates of several separate scripts once, in the next task', async () => {
    installRenderQueue();
    let renders = 0;
    let set: (n: number) => void = () => {};
    function Counter() {
      const [n, setN] = useState(0);
      set = setN;
      renders++;
      return <p>{n}</p>;
    }
    const host = document.createElement('div');
    document.body.append(host);
    createRoot(host).render(<Counter />);
    await nextTask();
    const first = renders;
    // Three run events, each its own script: a microtask runs between them.
    set(1);
    await Promise.resolve();
    set(2);
    await Promise.resolve();
    set(3);
    await Promise.resolve();
    expect(host.textContent).toBe('0'); // nothing rendered before the next task
    await nextTask();
    expect(host.textContent).toBe('3');
    expect(renders - first).toBe(1);
    host.remove();
  });
});
