// @vitest-environment jsdom
import { act, useEffect } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { useConversationHistory, type HistoryView } from './useHistory';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

type Loose = Record<string, unknown>;
const win = window as unknown as Loose;
let root: Root | null = null;
let view: HistoryView;

function Harness({ conversationId }: { conversationId: string }) {
  const v = useConversationHistory(conversationId, ['m1'], 'r1');
  useEffect(() => {
    view = v;
  });
  return null;
}

const settle = () =>
  act(async () => {
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 0));
  });

afterEach(() => {
  act(() => root?.unmount());
  root = null;
  delete win.go;
});

describe('useConversationHistory, older pages', () => {
  it("shows a failed older page's error in its own conversation only", async () => {
    const event = (conv: string, seq: number) => ({
      type: 'metadata', conversation_id: conv, message_id: 'm1', seq, agent_name: '', created_at: '2026-01-01T00:00:00Z', data: { content: 'q' },
    });
    win.go = {
      app: {
        ConversationService: {
          History: (conv: string, req: { before_seq?: number }) =>
            req.before_seq
              ? Promise.reject(new Error('database is locked'))
              : Promise.resolve({ events: [event(conv, 50)], has_before: true, has_after: false, first_seq: 50, last_seq: 50 }),
        },
      },
    };
    const host = document.createElement('div');
    root = createRoot(host);
    await act(async () => {
      root?.render(<Harness conversationId="a" />);
      await Promise.resolve();
    });
    await settle();
    expect(view.window?.hasBefore).toBe(true);
    act(() => view.loadOlder());
    await settle();
    expect(view.olderError).toContain('database is locked');
    await act(async () => {
      root?.render(<Harness conversationId="b" />);
      await Promise.resolve();
    });
    await settle();
    expect(view.window?.firstSeq).toBe(50);
    expect(view.olderError).toBe('');
  });
});
