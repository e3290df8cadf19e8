// The question being sent, shown with a "Starting…" line until its exchange shows up, and
// not after it (no phantom copy of the question).

/**
 * A question the user sent whose exchange the page may not list yet. conversationId is null
 * while a new conversation is being created; messageId is '' until Send answers.
 */
export interface PendingQuestion {
  conversationId: string | null;
  messageId: string;
  content: string;
  /**
   * Key of the newest exchange listed when Send was pressed (undefined: none). The run's
   * events can list the new exchange before Send answers with its message id; a different
   * newest key then means the exchange is shown and the pending copy must go, or the
   * question appears twice for a moment.
   */
  newestAtSend?: string;
}

/**
 * Returns the pending question after the page listed the exchanges keyed by itemKeys (oldest
 * first): null once its message is among them, or, before Send answered with the message id,
 * once the newest key differs from newestAtSend (from then on the exchange itself shows the
 * question); else pending unchanged (the same object, so callers can compare by identity).
 *
 * Keeping it after its exchange appeared was the phantom question: a later Regenerate or
 * edit-and-resend moves the conversation to a branch without that message, and the stale
 * question came back below the new branch with a "Starting…" line that never ended.
 */
export function settlePending(pending: PendingQuestion | null, itemKeys: Iterable<string>): PendingQuestion | null {
  if (pending === null) return pending;
  if (pending.messageId === '') {
    // Send not answered yet: the exchange is listed once the newest key is a new one.
    let newest: string | undefined;
    for (const k of itemKeys) newest = k;
    return newest !== undefined && newest !== pending.newestAtSend ? null : pending;
  }
  for (const k of itemKeys) if (k === pending.messageId) return null;
  return pending;
}

/**
 * The text of the pending question to show in the conversation selectedId (null: a new
 * conversation), or '' when there is none to show there: it belongs to another conversation,
 * or its exchange is already listed in itemKeys.
 */
export function pendingText(pending: PendingQuestion | null, selectedId: string | null, itemKeys: Iterable<string>): string {
  if (pending === null || pending.conversationId !== selectedId) return '';
  return settlePending(pending, itemKeys) === null ? '' : pending.content;
}
