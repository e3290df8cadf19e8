// Helpers of Settings → Agents (AgentsSection.tsx) that need no React: where a
// line of an agent file lies in the editor's text, and the name a new agent may take.

/**
 * The [start, end) character offsets of the 1-based `line` of `text` (without its line
 * break), so the editor can select the line a problem names. A line past the end gives
 * the end of the text; line 0 or less gives the first line.
 */
export function lineSpan(text: string, line: number): [number, number] {
  let start = 0;
  for (let i = 1; i < line; i++) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) return [text.length, text.length];
    start = nl + 1;
  }
  const nl = text.indexOf('\n', start);
  return [start, nl < 0 ? text.length : nl];
}

/**
 * The name a typed text suggests for a new agent: trimmed, lower-cased, spaces turned into
 * '-'. The backend still checks it (and refuses built-in agents' names).
 */
export function suggestAgentName(typed: string): string {
  return typed.trim().toLowerCase().replace(/\s+/g, '-');
}
