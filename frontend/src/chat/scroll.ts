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

/** Where "Jump to latest" floats: its bottom edge this many px above the conversation's bottom edge (.jump-latest-wrap in style.css). */
export const JUMP_OFFSET_PX = 14;

/**
 * Whether "Jump to latest" shows: the reader is the slack or more above the end, and the
 * last exchange's foot (the run's figures, Copy, Regenerate), whose top is tailTop px above
 * the content's end (0 when there is none), is out of view below the button, so the button
 * never covers it. Sizes in CSS pixels, as for nearBottom.
 */
export function jumpShown(scrollHeight: number, scrollTop: number, clientHeight: number, tailTop: number): boolean {
  const fromBottom = scrollHeight - scrollTop - clientHeight;
  return fromBottom >= Math.max(BOTTOM_SLACK_PX, tailTop - JUMP_OFFSET_PX);
}

/**
 * How far the top of the last exchange's foot (.run-foot) is above the end of scroller's
 * content, in px; 0 when the last thing in the conversation is not such a foot (a run
 * going on, or a virtualized list that has not rendered the last exchange).
 */
export function tailTop(scroller: HTMLElement): number {
  const feet = scroller.querySelectorAll<HTMLElement>('.exchange .run-foot');
  const foot = feet[feet.length - 1];
  const exchange = foot?.closest('.exchange');
  if (!foot || !exchange) return 0;
  const box = scroller.getBoundingClientRect();
  const end = (y: number) => scroller.scrollHeight - (y - box.top + scroller.scrollTop);
  // The foot's exchange must end the content (give or take its margins and the list's padding).
  if (end(exchange.getBoundingClientRect().bottom) > 120) return 0;
  return end(foot.getBoundingClientRect().top);
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
