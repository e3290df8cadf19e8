import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toApiError, type ApiError } from '../api/call';
import { queueMessage, regenerate, sendEdited } from '../api/chat';
import { switchBranch, type ConversationDetail } from '../api/conversations';
import type { QueuedInput } from '../run/events';
import type { ChatBusy, LocalQueued } from './types';

/** What useExchangeActions needs from the chat view. */
export interface ExchangeActionsInput {
  conversationId: string | null;
  running: boolean;
  draft: string;
  onDraft: (v: string) => void;
  onDetail?: (d: ConversationDetail) => void;
  /** Follow the end of the conversation again (the user asked something). */
  stickToBottom: () => void;
}

/**
 * The actions on exchanges (switch branch, edit and resend, regenerate) and messages added
 * during a run (ChatService.Queue), with what is under way and the last action's error.
 */
export function useExchangeActions(p: ExchangeActionsInput) {
  const { t } = useTranslation('chat');
  const [editing, setEditing] = useState<string | null>(null);
  const [busy, setBusy] = useState<ChatBusy>('');
  const [actionError, setActionError] = useState<{ title: string; error: ApiError } | null>(null);
  const [localQueued, setLocalQueued] = useState<LocalQueued[]>([]);
  const counter = useRef(0);
  const cid = p.conversationId;
  const blocked = cid === null || busy !== '' || p.running;

  const fail = (title: string) => (e: unknown) => {
    setBusy('');
    setActionError({ title, error: toApiError(e) });
  };

  const goBranch = (siblingId: string) => {
    if (cid === null || blocked) return;
    setBusy('branch');
    setActionError(null);
    setEditing(null);
    switchBranch(cid, siblingId).then((d) => {
      setBusy('');
      p.onDetail?.(d);
    }, fail(t('actions.branchFailed')));
  };

  const submitEdit = (messageId: string, content: string) => {
    if (cid === null || blocked) return;
    setBusy('edit');
    setActionError(null);
    sendEdited(cid, messageId, content).then(() => {
      setBusy('');
      setEditing(null);
      p.stickToBottom();
    }, fail(t('actions.editFailed')));
  };

  const doRegenerate = (messageId: string) => {
    if (cid === null || blocked) return;
    setBusy('regenerate');
    setActionError(null);
    regenerate(cid, messageId).then(() => {
      setBusy('');
      p.stickToBottom();
    }, fail(t('actions.regenerateFailed')));
  };

  // While a run is going, sending adds the message to it (ChatService.Queue).
  const queue = () => {
    const content = p.draft.trim();
    if (cid === null || content === '') return;
    const key = `lq${String(++counter.current)}`;
    setLocalQueued((l) => [...l, { key, conversationId: cid, content, queuedId: '' }]);
    setActionError(null);
    p.onDraft('');
    p.stickToBottom();
    queueMessage(cid, content).then(
      (r) => {
        // Queued: the run's queued_message event takes over the bubble. Not queued: the run
        // had just answered and a new one started with this message, shown by its events.
        setLocalQueued((l) => (r.queued ? l.map((x) => (x.key === key ? { ...x, queuedId: r.queuedId } : x)) : l.filter((x) => x.key !== key)));
      },
      (e: unknown) => {
        setLocalQueued((l) => l.filter((x) => x.key !== key));
        setActionError({ title: t('actions.queueFailed'), error: toApiError(e) });
        if (p.draft.trim() === '') p.onDraft(content);
      },
    );
  };

  const startEdit = (id: string) => {
    setActionError(null);
    setEditing(id);
  };

  return {
    editing,
    busy,
    actionError,
    dismissActionError: () => setActionError(null),
    cancelEdit: () => setEditing(null),
    startEdit,
    goBranch,
    submitEdit,
    doRegenerate,
    queue,
    localQueued,
  };
}

/**
 * The local bubbles of conversation cid that the run's events do not list yet. The
 * queued_message event may arrive before Queue answers: a bubble still without its id is
 * matched by content to an event no other bubble claims.
 */
export function pendingLocalQueued(localQueued: readonly LocalQueued[], cid: string | null, runQueued: readonly QueuedInput[]): LocalQueued[] {
  const claimed = new Set(localQueued.map((x) => x.queuedId));
  return localQueued.filter(
    (x) =>
      x.conversationId === cid &&
      (x.queuedId !== ''
        ? !runQueued.some((q) => q.id === x.queuedId)
        : !runQueued.some((q) => q.content === x.content && !claimed.has(q.id))),
  );
}
