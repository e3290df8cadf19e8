// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { act, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { batchRunEvents, onRunEvent, RUN_EVENT_NAME } from './runtime';
import type { RunEvent } from '../run/event-types';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = false;

// The Wails runtime as the window has it: EventsEmit from the host calls each listener.
const listeners = new Map<string, ((payload: unknown) => void)[]>();
const g = window as unknown as Record<string, unknown>;
g.runtime = {
  EventsOnMultiple: (name: string, cb: (payload: unknown) => void) => {
    listeners.set(name, [...(listeners.get(name) ?? []), cb]);
    return () => listeners.set(name, (listeners.get(name) ?? []).filter((x) => x !== cb));
  },
};
const emit = (seq: number) => {
  const ev = { type: 'llm_chunk', conversation_id: 'c1', message_id: 'm1', seq, data: { content: 'x' } };
  for (const cb of listeners.get(RUN_EVENT_NAME) ?? []) cb(ev);
};
const nextTask = () => new Promise<void>((r) => setTimeout(r, 0));

describe('run events in the window', () => {
  afterEach(() => listeners.clear());

  it('reach every subscriber in order, batched into the next task, and render once per batch, past a subscriber that throws', async () => {
    batchRunEvents();
    let renders = 0;
    const other: number[] = [];
    function Seqs() {
      const [seqs, setSeqs] = useState<number[]>([]);
      renders++;
      useState(() => onRunEvent((ev: RunEvent) => setSeqs((s) => [...s, ev.seq])));
      return <p>{seqs.join(',')}</p>;
    }
    const offBroken = onRunEvent(() => {
      throw new Error('a broken subscriber');
    });
    const errors: unknown[] = [];
    const consoleError = console.error;
    console.error = (...a: unknown[]) => errors.push(a);
    const off = onRunEvent((ev) => other.push(ev.seq));
    const host = document.createElement('div');
    document.body.append(host);
    act(() => createRoot(host).render(<Seqs />));
    const before = renders;
    // Three events, each its own script evaluated by the host: microtasks run between them.
    emit(1);
    await Promise.resolve();
    emit(2);
    await Promise.resolve();
    emit(3);
    await Promise.resolve();
    expect(other).toEqual([]); // nothing handed on before the next task
    await nextTask();
    await nextTask();
    expect(other).toEqual([1, 2, 3]);
    expect(host.textContent).toBe('1,2,3');
    expect(renders - before).toBe(1);
    expect(errors).toHaveLength(3); // one per event, and the other subscribers still had theirs
    console.error = consoleError;
    offBroken();
    off();
    host.remove();
  });
});
