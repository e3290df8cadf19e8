// @vitest-environment jsdom
// Thumbs up or down under an answer: labelled toggle buttons, the note field a click opens
// (Enter saves, Escape closes without saving), changing and clearing a rating, a failed
// save, a rating arriving from the backend, and both languages. The bound call is
// window.go.app.ConversationService.SetFeedback, as in the window.
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Feedback } from '../api/conversations';
import { applyEvents, emptyRunsState, type RunEvent } from '../run/events';
import { firstShownIndex } from '../run/history';
import { i18n } from '../i18n/i18n';
import { RunFeedback } from './RunFeedback';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

type Loose = Record<string, unknown>;
const win = window as unknown as Loose;
let root: Root | null = null;
const host = document.createElement('div');
document.body.appendChild(host);

/** The bound SetFeedback: answers as the backend does, or fails when `fail` is set. */
let fail = false;
const setFeedback = vi.fn((_c: string, _m: string, rating: string, note: string) =>
  fail ? Promise.reject(new Error('{"code":"internal","message":"disk full"}')) : Promise.resolve(rating === '' ? { rating: '', note: '', at: '' } : { rating, note: note.trim(), at: '2026-11-29T12:00:00Z' }),
);

beforeEach(() => {
  fail = false;
  setFeedback.mockClear();
  win.go = { app: { ConversationService: { SetFeedback: setFeedback } } };
});
afterEach(async () => {
  act(() => root?.unmount());
  root = null;
  delete win.go;
  await act(() => i18n.changeLanguage('en'));
});

const render = (feedback: Feedback | undefined, disabled = false) =>
  act(async () => {
    root ??= createRoot(host);
    root.render(<RunFeedback conversationId="c1" messageId="m1" feedback={feedback} disabled={disabled} />);
    await Promise.resolve();
  });
const flush = () => act(() => new Promise((r) => setTimeout(r, 0)));
const thumb = (label: string) => {
  const b = host.querySelector<HTMLButtonElement>(`button[aria-label="${label}"]`);
  if (!b) throw new Error(`no button ${label}: ${host.innerHTML}`);
  return b;
};
const click = async (el: HTMLElement) => {
  await act(async () => {
    el.click();
    await Promise.resolve();
  });
  await flush();
};
const noteInput = () => host.querySelector<HTMLInputElement>('input.feedback-note-input');
const type = (text: string) =>
  act(async () => {
    const input = noteInput();
    if (!input) throw new Error('no note field');
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set?.call(input, text);
    input.dispatchEvent(new Event('input', { bubbles: true }));
    await Promise.resolve();
  });
const key = async (k: string) => {
  await act(async () => {
    noteInput()?.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true }));
    await Promise.resolve();
  });
  await flush();
};

describe('rating a run', () => {
  it('rates with a click, opens the note field, saves the note with Enter', async () => {
    await render(undefined);
    const up = thumb('Good answer');
    expect(up.getAttribute('aria-pressed')).toBe('false');
    expect(thumb('Poor answer').getAttribute('aria-pressed')).toBe('false');
    expect(host.querySelector('[role="group"]')?.getAttribute('aria-label')).toBe('Rate this answer');
    expect(noteInput()).toBeNull();

    await click(up);
    expect(setFeedback).toHaveBeenLastCalledWith('c1', 'm1', 'up', '');
    expect(thumb('Good answer').getAttribute('aria-pressed')).toBe('true');
    expect(thumb('Good answer').classList.contains('pressed')).toBe(true);
    expect(document.activeElement).toBe(noteInput());
    expect(noteInput()?.getAttribute('aria-label')).toBe('Note on your rating (optional)');

    await type('  Well sourced ');
    await key('Enter');
    expect(setFeedback).toHaveBeenLastCalledWith('c1', 'm1', 'up', '  Well sourced ');
    expect(noteInput()).toBeNull();
    expect(host.querySelector('.feedback-note')?.textContent).toBe('Well sourced');
    expect(document.activeElement).toBe(thumb('Good answer'));
  });

  it('closes the note field with Escape without saving, and keeps the note on a change of thumb', async () => {
    await render({ rating: 'up', note: 'Well sourced', at: '2026-11-29T11:00:00Z' });
    expect(thumb('Good answer').getAttribute('aria-pressed')).toBe('true');
    await click(host.querySelector<HTMLButtonElement>('.feedback-note')!);
    expect(noteInput()?.value).toBe('Well sourced');
    await type('something else');
    await key('Escape');
    expect(setFeedback).not.toHaveBeenCalled();
    expect(noteInput()).toBeNull();
    expect(host.querySelector('.feedback-note')?.textContent).toBe('Well sourced');

    await click(thumb('Poor answer'));
    expect(setFeedback).toHaveBeenLastCalledWith('c1', 'm1', 'down', 'Well sourced');
    expect(thumb('Poor answer').getAttribute('aria-pressed')).toBe('true');
    expect(thumb('Good answer').getAttribute('aria-pressed')).toBe('false');
    expect(noteInput()?.value).toBe('Well sourced');
  });

  it('clears the rating when the pressed thumb is clicked', async () => {
    await render({ rating: 'down', note: '', at: '2026-11-29T11:00:00Z' });
    const down = thumb('Poor answer');
    expect(down.title).toBe('Remove your rating');
    await click(down);
    expect(setFeedback).toHaveBeenLastCalledWith('c1', 'm1', '', '');
    expect(thumb('Poor answer').getAttribute('aria-pressed')).toBe('false');
    expect(noteInput()).toBeNull();
  });

  it('shows a failed save and keeps the rating as it was', async () => {
    await render(undefined);
    fail = true;
    await click(thumb('Good answer'));
    expect(host.querySelector('[role="alert"]')?.textContent).toContain('Could not save your rating');
    expect(thumb('Good answer').getAttribute('aria-pressed')).toBe('false');
    expect(noteInput()).toBeNull();
  });

  it('is disabled while a run is going, and shows a rating the backend sends later', async () => {
    await render(undefined, true);
    expect(thumb('Good answer').disabled).toBe(true);
    expect(thumb('Good answer').title).toBe('Wait for the research to finish');
    await render({ rating: 'down', note: 'From the other window', at: '2026-11-29T12:30:00Z' }, false);
    expect(thumb('Poor answer').getAttribute('aria-pressed')).toBe('true');
    expect(host.querySelector('.feedback-note')?.textContent).toBe('From the other window');
  });

  it('speaks Chinese', async () => {
    await act(() => i18n.changeLanguage('zh-CN'));
    await render(undefined);
    await click(thumb('回答不错'));
    expect(host.querySelector('[role="group"]')?.getAttribute('aria-label')).toBe('评价这个回答');
    expect(noteInput()?.placeholder).toContain('回车保存');
    expect(thumb('回答不好').getAttribute('aria-pressed')).toBe('false');
  });
});

describe('feedback events in the history', () => {
  const ev = (type: RunEvent['type'], message: string, seq: number, data: Record<string, unknown> = {}): RunEvent => ({
    type,
    conversation_id: 'c',
    message_id: message,
    seq,
    created_at: '2026-11-29T12:00:00Z',
    data,
  });

  it('neither rebuilds a run nor moves the seq', () => {
    const state = applyEvents(emptyRunsState(), [ev('metadata', 'm2', 10, { content: 'Q2' }), ev('feedback', 'm1', 11, { rating: 'up' }), ev('agent_start', 'm2', 11, { round: 0 })]);
    const conv = state.conversations.c;
    expect(Object.keys(conv?.runs ?? {})).toEqual(['m2']);
    expect(conv?.lastSeq).toBe(11);
  });

  it('does not make an old run look loaded', () => {
    expect(firstShownIndex(['m1', 'm2', 'm3'], [ev('feedback', 'm1', 500), ev('metadata', 'm3', 480)], true)).toBe(2);
  });
});
