// @vitest-environment jsdom
// The chat column in both languages: the composer, an exchange's figures and added messages,
// and the activity notes the run reducer writes show English by default and Simplified
// Chinese once the UI's language is zh-CN, with counts in the right plural form.
import { act, createRef } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AddedMessage, AnswerFooter, Figures } from './AnswerParts';
import { splitAnswer } from '../sources/citations';
import { Composer } from './Composer';
import { localizeRun } from '../run/localize';
import { applyEvents, emptyRunsState, type RunEvent, type RunState } from '../run/events';
import { i18n } from '../i18n/i18n';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let seq = 0;
const ev = (type: RunEvent['type'], data: Record<string, unknown>): RunEvent => ({
  type,
  conversation_id: 'c',
  message_id: 'm',
  seq: ++seq,
  agent_name: 'lead_agent',
  created_at: '2026-11-26T12:00:00Z',
  data,
});

/** A finished run with one compaction, one permission denied and figures of 1 step. */
function finishedRun(): RunState {
  seq = 0;
  const state = applyEvents(emptyRunsState(), [
    ev('metadata', { content: 'Q', model: 'm1', tool_call_mode: 'native' }),
    ev('agent_start', { round: 0 }),
    ev('compaction_start', { tokens_before: 41_000, threshold: 40_000, window: 64_000, messages: 9 }),
    ev('compaction_summary', { success: true, summary: 's', tokens_before: 41_000, tokens_after: 3_000, duration_ms: 5 }),
    ev('permission_request', { request_id: 'r', call_id: 'x', tool: 'web_fetch', params: { url: 'https://example.org/page' }, timeout_ms: 1000 }),
    ev('permission_result', { request_id: 'r', tool: 'web_fetch', decision: 'deny' }),
    ev('complete', { response: 'A', steps: 1, usage: { prompt_tokens: 1200, completion_tokens: 300, total_tokens: 1500 }, duration_ms: 2000 }),
  ]);
  const run = state.conversations.c?.runs.m;
  if (!run) throw new Error('no run');
  return run;
}

describe('chat in English and Chinese', () => {
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
    await i18n.changeLanguage('en');
  });

  const render = (running: boolean, run: RunState) =>
    act(() =>
      root.render(
        <>
          <Composer value="" onChange={() => undefined} onSend={() => undefined} onStop={() => undefined} running={running} sending={false} textareaRef={createRef()} />
          <Figures run={run} />
          <AddedMessage q={{ id: 'q', content: 'more', status: 'dropped', seq: 1 }} onReuse={() => undefined} />
        </>,
      ),
    );
  const box = () => host.querySelector('textarea');

  it('shows English by default', () => {
    const run = finishedRun();
    render(false, run);
    expect(box()?.placeholder).toBe('Ask a research question…');
    expect(box()?.getAttribute('aria-label')).toBe('Research question');
    expect(host.querySelector('.figures')?.textContent).toContain('1 step');
    expect(host.querySelector('.figures')?.textContent).toContain('1 compaction');
    expect(host.textContent).toContain('Not delivered — the research ended first.');
    expect(run.steps.map((s) => (s.kind === 'note' ? s.text : ''))).toContain('Context compacted: 41k → 3k tokens');
    expect(run.steps.map((s) => (s.kind === 'note' ? s.text : ''))).toContain('web_fetch example.org/page: denied');
  });

  it('shows Simplified Chinese once the language is zh-CN', async () => {
    await i18n.changeLanguage('zh-CN');
    const run = finishedRun();
    render(true, run);
    expect(box()?.placeholder).toBe('给主智能体追加一条消息…');
    expect(box()?.getAttribute('aria-label')).toBe('研究问题');
    expect(host.querySelector('.btn-stop')?.textContent).toBe('停止');
    expect(host.querySelector('.composer-hint')?.textContent).toContain('追加到研究');
    expect(host.querySelector('.figures')?.textContent).toContain('1 步');
    expect(host.querySelector('.figures')?.textContent).toContain('1 次压缩');
    expect(host.textContent).toContain('未送达 — 研究已先行结束。');
    expect(host.textContent).toContain('放回输入框');
    const notes = run.steps.flatMap((s) => (s.kind === 'note' ? [s.text] : []));
    expect(notes.some((t) => t.startsWith('上下文已压缩：'))).toBe(true);
    expect(notes).toContain('web_fetch example.org/page：已拒绝');
  });

  it('uses the plural form for counts above one', () => {
    const run = finishedRun();
    render(false, { ...run, figures: run.figures && { ...run.figures, steps: 3 } });
    expect(host.querySelector('.figures')?.textContent).toContain('3 steps');
  });

  it('puts the notes of a run applied in English into Chinese after a switch', async () => {
    const run = finishedRun();
    expect(localizeRun(run, 'en')).toBe(run); // nothing to change: the same object
    await i18n.changeLanguage('zh-CN');
    const notes = localizeRun(run, i18n.language).steps.flatMap((s) => (s.kind === 'note' ? [s.text] : []));
    expect(notes).toContain('web_fetch example.org/page：已拒绝');
    expect(notes.some((t) => t.startsWith('上下文已压缩：'))).toBe(true);
  });

  it('words the answer’s failure line in the UI’s language', async () => {
    const answer =
      'Little was found.\n\n---\n> 1 of 1 search failed: searxng search at 127.0.0.1:8888: connection refused by 127.0.0.1:8888 (nothing is listening there). ' +
      '2 of 3 fetches failed: fetch "https://x.example/a\\[1\\]": HTTP 404.\n';
    const parts = splitAnswer(answer);
    act(() => root.render(<AnswerFooter parts={parts} />));
    expect(host.querySelector('.answer-failures')?.textContent).toBe(
      '1 of 1 search failed: searxng search at 127.0.0.1:8888: connection refused by 127.0.0.1:8888 (nothing is listening there). ' +
        '2 of 3 page fetches failed: fetch "https://x.example/a[1]": HTTP 404.',
    );
    await act(() => i18n.changeLanguage('zh-CN'));
    act(() => root.render(<AnswerFooter parts={parts} />));
    expect(host.querySelector('.answer-failures')?.textContent).toBe(
      '1 次搜索中有 1 次失败：searxng search at 127.0.0.1:8888: connection refused by 127.0.0.1:8888 (nothing is listening there)。' +
        '3 次网页读取中有 2 次失败：fetch "https://x.example/a[1]": HTTP 404。',
    );
    expect(host.textContent).not.toContain('search failed');
  });
});
