// When the conversation view follows the newest content (auto-scroll to the new question on
// send, "Jump to latest" while scrolled up).

/** How close to the bottom, in CSS pixels, still counts as "at the bottom". */
export const BOTTOM_SLACK_PX = 48;

/**
 * Whether a scroll container whose content is scrollHeight px tall, scrolled to scrollTop,
 * showing clientHeight px, is at (or within slack px of) its bottom.
 */
export function nearBottom(scrollHeight: number, scrollTop: number, clientHeight: number, slack = BOTTOM_SLACK_PX): boolean {
  return scrollHeight - scrollTop - clientHeight < slack;
}

/**
 * What identifies the question the user sent last: the pending question's text while Send is
 * under way, else the key of the running exchange, else ''. When it changes to a non-empty
 * value the user just asked something (sent, regenerated, edited) and the view scrolls to it,
 * even when they had scrolled up.
 */
export function sendMarker(pendingQuestion: string, runningKey: string | undefined): string {
  if (pendingQuestion !== '') return `pending:${pendingQuestion}`;
  return runningKey ? `run:${runningKey}` : '';
}

/** Whether the view should jump to the bottom: the send marker changed to a new question. */
export function askedAnew(previous: string, current: string): boolean {
  return current !== '' && current !== previous;
}
