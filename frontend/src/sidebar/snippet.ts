// Highlighting search terms in plain-text snippets without ever treating them as HTML: the
// text is split into parts that the view renders as text nodes, matches inside <mark>.

/** One run of snippet text; `match` marks text that matches a search term. */
export interface TextPart {
  text: string;
  match: boolean;
}

/**
 * The terms of a search query as the backend reads them: whitespace-separated, "quoted
 * text" as one term; lower-cased, without diacritics, duplicates and empty terms.
 */
export function searchTerms(query: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"?|(\S+)/g;
  for (let m = re.exec(query); m !== null; m = re.exec(query)) {
    const term = fold(m[1] ?? m[2] ?? '').trim();
    if (term !== '' && !out.includes(term)) out.push(term);
  }
  return out;
}

/** Lower case without combining marks (é → e), per code point. */
function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/**
 * Splits `text` into parts where every substring matching a term of `query` (ignoring case
 * and diacritics, like ConversationService.Search) is a `match` part. Overlapping and
 * adjacent matches merge; no term or no match gives one plain part ([] for "").
 */
export function highlightTerms(text: string, query: string): TextPart[] {
  if (text === '') return [];
  const terms = searchTerms(query);
  // The folded text, and for each of its UTF-16 units the original [start, end) it came from.
  let folded = '';
  const from: number[] = [];
  const to: number[] = [];
  let at = 0;
  for (const ch of text) {
    const f = fold(ch);
    for (let k = 0; k < f.length; k++) {
      from.push(at);
      to.push(at + ch.length);
    }
    folded += f;
    at += ch.length;
  }
  const marked: [number, number][] = [];
  for (const term of terms) {
    for (let i = folded.indexOf(term); i >= 0; i = folded.indexOf(term, i + Math.max(1, term.length))) {
      const start = from[i];
      const end = to[i + term.length - 1];
      if (start !== undefined && end !== undefined) marked.push([start, end]);
    }
  }
  if (marked.length === 0) return [{ text, match: false }];
  marked.sort((x, y) => x[0] - y[0]);
  const merged: [number, number][] = [];
  for (const r of marked) {
    const last = merged.at(-1);
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  const parts: TextPart[] = [];
  let pos = 0;
  for (const [start, end] of merged) {
    if (start > pos) parts.push({ text: text.slice(pos, start), match: false });
    parts.push({ text: text.slice(start, end), match: true });
    pos = end;
  }
  if (pos < text.length) parts.push({ text: text.slice(pos), match: false });
  return parts;
}
