import { useMemo } from 'react';
import type { ConversationDetail } from '../api/conversations';
import type { ConversationRuns } from '../run/events';
import type { ChatItem } from './types';

/**
 * The exchanges of the open conversation to show: stored messages (with their live run when
 * seen live), then live runs the store did not list yet: new ones (shown), not those on
 * another branch.
 */
export function useChatItems(selectedId: string | null, detail: ConversationDetail | null, conv: ConversationRuns | undefined): ChatItem[] {
  return useMemo(() => {
    if (selectedId === null) return [];
    const messages = detail?.conversation.id === selectedId ? detail.messages : [];
    const seen = new Set(messages.map((m) => m.id));
    const out: ChatItem[] = messages.map((m) => ({ key: m.id, message: m, live: conv?.runs[m.id] }));
    const lastId = messages.at(-1)?.id ?? '';
    for (const id of conv?.order ?? []) {
      const run = conv?.runs[id];
      if (!seen.has(id) && run && (run.status === 'running' || run.parentId === lastId)) out.push({ key: id, live: run });
    }
    return out;
  }, [selectedId, detail, conv]);
}
