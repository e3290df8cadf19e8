import { useCallback, useState } from 'react';
import { isSettingsError, toApiError, type ApiError } from '../api/call';
import { sendMessage, stopRun } from '../api/chat';
import type { PendingQuestion } from './pending';

/** What useSend needs from the window. */
export interface SendInput {
  selectedId: string | null;
  running: boolean;
  /** Key of the newest exchange listed in the open conversation (undefined: none). */
  newestKey: string | undefined;
  /** Send created or moved to another conversation: open it. */
  onMoved: (conversationId: string) => void;
  /** A conversation was created or changed: reload the list. */
  onListChanged: () => void;
  /** Send failed because no model is set up. */
  onNeedsSetup: () => void;
}

/**
 * The composer's draft and Send (ChatService.Send) with the question being sent (shown until
 * its exchange is listed) and the last Send or Stop error; Stop (ChatService.Stop).
 */
export function useSend(p: SendInput) {
  const [draft, setDraft] = useState('');
  const [sending, setSending] = useState(false);
  const [pending, setPending] = useState<PendingQuestion | null>(null);
  const [sendError, setSendError] = useState<ApiError | null>(null);
  const { selectedId, running, newestKey, onMoved, onListChanged, onNeedsSetup } = p;

  const stop = useCallback(() => {
    if (selectedId === null) return;
    stopRun(selectedId).catch((e: unknown) => setSendError(toApiError(e)));
  }, [selectedId]);

  const send = () => {
    const content = draft.trim();
    if (content === '' || sending || running) return;
    setSending(true);
    setSendError(null);
    setPending({ conversationId: selectedId, messageId: '', content, newestAtSend: newestKey });
    sendMessage(selectedId ?? '', content).then(
      (r) => {
        setSending(false);
        setDraft('');
        setPending({ conversationId: r.conversation_id, messageId: r.message_id, content, newestAtSend: newestKey });
        if (selectedId !== r.conversation_id) onMoved(r.conversation_id);
        onListChanged();
      },
      (e: unknown) => {
        setSending(false);
        setPending(null);
        const err = toApiError(e);
        setSendError(err);
        if (isSettingsError(err)) onNeedsSetup();
      },
    );
  };
  return { draft, setDraft, sending, pending, setPending, sendError, setSendError, send, stop };
}
