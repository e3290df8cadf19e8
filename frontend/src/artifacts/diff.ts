// The diff model behind "Compare versions": a line-level diff of two texts (jsdiff's
// diffArrays over lines), with changed lines paired by similarity and word-level segments
// inside each pair (diffWordsWithSpace), laid out as side-by-side rows and as inline rows.
// Pure: no DOM, no React; the view only renders what this module returns.

import { diffArrays, diffWordsWithSpace, type ChangeObject } from 'diff';

/** A piece of one line; `changed` marks the words that differ inside a paired line. */
export interface Segment {
  text: string;
  changed: boolean;
}

/** How a line took part in the diff. */
export type LineKind = 'same' | 'removed' | 'added';

/** One line on one side of a side-by-side row. */
export interface SideCell {
  /** 1-based line number in its own version. */
  line: number;
  kind: LineKind;
  /** The line's text split into segments; their texts joined give the whole line. */
  segments: Segment[];
  /** The same line text is removed in one place and added in another (a moved line). */
  moved: boolean;
}

/**
 * One row of the side-by-side view: `left` is the older version, `right` the newer.
 * kind "same": both sides hold the same line; "changed": a removed line next to an added one
 * (with word segments when the two are similar); "removed"/"added": one side only.
 */
export interface SideRow {
  kind: 'same' | 'changed' | 'removed' | 'added';
  left: SideCell | null;
  right: SideCell | null;
}

/** One row of the inline (unified) view; a line number is 0 on the side it does not exist. */
export interface InlineRow {
  kind: LineKind;
  oldLine: number;
  newLine: number;
  segments: Segment[];
  moved: boolean;
}

/** The diff of two texts, ready to render. */
export interface DiffModel {
  side: SideRow[];
  inline: InlineRow[];
  /** Lines only in the newer text (a changed line counts as one removed and one added). */
  added: number;
  /** Lines only in the older text. */
  removed: number;
  /** The two texts are exactly equal. */
  identical: boolean;
  /** Exactly one of the two texts ends with a newline. */
  eolChanged: boolean;
  /** Whether each text ends with a newline: [older, newer]. */
  eol: [boolean, boolean];
  /** Line counts of the two texts: [older, newer]. */
  lines: [number, number];
}

/** Lines whose similarity (0–1) is at least this are paired and get word-level segments. */
export const PAIR_SIMILARITY = 0.4;

/** Above this many candidate pairs (removed × added lines of one block), lines pair by position. */
const MAX_ALIGN_CELLS = 2500;

/**
 * Splits text into lines: CRLF and lone CR count as line ends, a final line end does not
 * start another line ("a\n" is one line, "" is none). Returns the lines and whether the
 * text ended with a line end.
 */
export function splitLines(text: string): { lines: string[]; eol: boolean } {
  if (text === '') return { lines: [], eol: false };
  const norm = text.replace(/\r\n?/g, '\n');
  const eol = norm.endsWith('\n');
  const lines = (eol ? norm.slice(0, -1) : norm).split('\n');
  return { lines, eol };
}

/** Merges neighbouring segments with the same `changed` flag and drops empty ones. */
function compact(segs: Segment[]): Segment[] {
  const out: Segment[] = [];
  for (const s of segs) {
    if (s.text === '') continue;
    const last = out.at(-1);
    if (last?.changed === s.changed) last.text += s.text;
    else out.push({ ...s });
  }
  return out;
}

/**
 * The word-level difference of two lines: segments of the old line (changed = removed
 * words) and of the new line (changed = added words), and their similarity from 0 (nothing
 * in common) to 1 (equal), counted in characters of common text. Words are runs of Latin
 * letters and digits; every other character (CJK ideographs, kana, punctuation) is a token
 * of its own and whitespace runs are tokens too, so CJK text compares character by
 * character. A common run of whitespace and at most one punctuation mark between two changes
 * is folded into the change, so "a b" -> "x y" and "light-year" -> "dark-matter" read as one
 * replaced phrase, not two.
 */
export function diffWords(oldLine: string, newLine: string): { old: Segment[]; new: Segment[]; similarity: number } {
  if (oldLine === newLine) {
    const seg = oldLine === '' ? [] : [{ text: oldLine, changed: false }];
    return { old: seg, new: seg.map((s) => ({ ...s })), similarity: 1 };
  }
  const changes = foldSlight(diffWordsWithSpace(oldLine, newLine));
  const oldSegs: Segment[] = [];
  const newSegs: Segment[] = [];
  let common = 0;
  for (const c of changes) {
    if (c.added) newSegs.push({ text: c.value, changed: true });
    else if (c.removed) oldSegs.push({ text: c.value, changed: true });
    else {
      oldSegs.push({ text: c.value, changed: false });
      newSegs.push({ text: c.value, changed: false });
      common += c.value.trim() === '' ? 0 : c.value.length;
    }
  }
  const total = oldLine.trim().length + newLine.trim().length;
  return { old: compact(oldSegs), new: compact(newSegs), similarity: total === 0 ? 1 : Math.min(1, (2 * common) / total) };
}

/**
 * A common run this slight between two edits is folded into them: whitespace, with at most
 * one punctuation mark ("384,400 km." -> "384,400 km, about 1.28 light-seconds." then
 * marks ", about 1.28 light-seconds." as one change, not the "." of "1.28" as kept).
 */
const SLIGHT_COMMON = /^\s*\p{P}?\s*$/u;

/** Turns slight common changes between two edits into a removal plus an addition. */
function foldSlight(changes: ChangeObject<string>[]): ChangeObject<string>[] {
  const isEdit = (c: ChangeObject<string> | undefined) => c !== undefined && (c.added || c.removed);
  const out: ChangeObject<string>[] = [];
  changes.forEach((c, i) => {
    if (!c.added && !c.removed && SLIGHT_COMMON.test(c.value) && isEdit(changes[i - 1]) && isEdit(changes[i + 1])) {
      out.push({ value: c.value, removed: true, added: false, count: c.count }, { value: c.value, added: true, removed: false, count: c.count });
    } else {
      out.push(c);
    }
  });
  // Within each run of edits, put all removals first and all additions second, merged.
  const merged: ChangeObject<string>[] = [];
  let rem = '';
  let add = '';
  const flush = () => {
    if (rem !== '') merged.push({ value: rem, removed: true, added: false, count: 1 });
    if (add !== '') merged.push({ value: add, added: true, removed: false, count: 1 });
    rem = '';
    add = '';
  };
  for (const c of out) {
    if (c.removed) rem += c.value;
    else if (c.added) add += c.value;
    else {
      flush();
      merged.push(c);
    }
  }
  flush();
  return merged;
}

/** One step of an aligned block: a pair of similar lines, or one line on one side. */
type Step = { pair: [number, number] } | { removed: number } | { added: number };

/**
 * Aligns the removed lines R and added lines A of one changed block: pairs (in order) the
 * lines whose similarity is at least PAIR_SIMILARITY so that the summed similarity is
 * largest; the rest stay unpaired. Large blocks pair by position instead.
 */
function align(R: string[], A: string[], sim: (i: number, j: number) => number): Step[] {
  const steps: Step[] = [];
  if (R.length * A.length > MAX_ALIGN_CELLS) {
    const n = Math.max(R.length, A.length);
    for (let k = 0; k < n; k++) {
      if (k < R.length && k < A.length && sim(k, k) >= PAIR_SIMILARITY) steps.push({ pair: [k, k] });
      else {
        if (k < R.length) steps.push({ removed: k });
        if (k < A.length) steps.push({ added: k });
      }
    }
    return steps;
  }
  const rows = R.length + 1;
  const cols = A.length + 1;
  const simAt = new Float64Array(R.length * A.length);
  for (let i = 0; i < R.length; i++) for (let j = 0; j < A.length; j++) simAt[i * A.length + j] = sim(i, j);
  // best[i][j]: the best score aligning R[i:] with A[j:].
  const best = new Float64Array(rows * cols);
  for (let i = R.length - 1; i >= 0; i--) {
    for (let j = A.length - 1; j >= 0; j--) {
      const s = simAt[i * A.length + j] ?? 0;
      const skip = Math.max(best[(i + 1) * cols + j] ?? 0, best[i * cols + j + 1] ?? 0);
      best[i * cols + j] = s >= PAIR_SIMILARITY ? Math.max(skip, s + (best[(i + 1) * cols + j + 1] ?? 0)) : skip;
    }
  }
  let i = 0;
  let j = 0;
  while (i < R.length && j < A.length) {
    const s = simAt[i * A.length + j] ?? 0;
    const here = best[i * cols + j] ?? 0;
    if (s >= PAIR_SIMILARITY && here === s + (best[(i + 1) * cols + j + 1] ?? 0)) {
      steps.push({ pair: [i, j] });
      i++;
      j++;
    } else if ((best[(i + 1) * cols + j] ?? 0) >= (best[i * cols + j + 1] ?? 0)) {
      steps.push({ removed: i++ });
    } else {
      steps.push({ added: j++ });
    }
  }
  while (i < R.length) steps.push({ removed: i++ });
  while (j < A.length) steps.push({ added: j++ });
  return steps;
}

const whole = (text: string): Segment[] => (text === '' ? [] : [{ text, changed: false }]);

/**
 * Compares two texts line by line (older first) and returns the rows of both views.
 *
 * Lines end at LF, CRLF or CR; a missing final newline is reported in `eolChanged` instead
 * of as a changed line. Inside a block of changed lines, lines are paired by similarity
 * (see diffWords; threshold PAIR_SIMILARITY) and paired lines carry word segments.
 * Side-by-side rows put a removed line and an added line of the same block on one row even
 * when they are not similar (no word segments then). Inline rows list a block's removed
 * lines, then its added lines. A non-blank line removed in one place and added unchanged
 * in another is flagged `moved` on both sides.
 */
export function diffTexts(older: string, newer: string): DiffModel {
  const a = splitLines(older);
  const b = splitLines(newer);
  const changes = diffArrays(a.lines, b.lines);

  // Lines removed and added unchanged elsewhere: moved.
  const removedText = new Map<string, number>();
  const addedText = new Map<string, number>();
  for (const c of changes) {
    const m = c.removed ? removedText : c.added ? addedText : null;
    if (m) for (const l of c.value) if (l.trim() !== '') m.set(l, (m.get(l) ?? 0) + 1);
  }
  const isMoved = (l: string) => removedText.has(l) && addedText.has(l);

  const side: SideRow[] = [];
  const inline: InlineRow[] = [];
  let oldNo = 0;
  let newNo = 0;
  let added = 0;
  let removed = 0;

  let k = 0;
  while (k < changes.length) {
    const c = changes[k];
    if (!c) break;
    if (!c.added && !c.removed) {
      for (const l of c.value) {
        oldNo++;
        newNo++;
        const segs = whole(l);
        side.push({ kind: 'same', left: { line: oldNo, kind: 'same', segments: segs, moved: false }, right: { line: newNo, kind: 'same', segments: segs, moved: false } });
        inline.push({ kind: 'same', oldLine: oldNo, newLine: newNo, segments: segs, moved: false });
      }
      k++;
      continue;
    }
    // A block of edits: every removal and addition up to the next common run.
    const R: string[] = [];
    const A: string[] = [];
    while (k < changes.length) {
      const e = changes[k];
      if (!e || (!e.added && !e.removed)) break;
      (e.removed ? R : A).push(...e.value);
      k++;
    }
    removed += R.length;
    added += A.length;
    const words = new Map<string, ReturnType<typeof diffWords>>();
    const wd = (i: number, j: number) => {
      const key = `${String(i)},${String(j)}`;
      let w = words.get(key);
      if (!w) {
        w = diffWords(R[i] ?? '', A[j] ?? '');
        words.set(key, w);
      }
      return w;
    };
    const canPair = (i: number, j: number) => !isMoved(R[i] ?? '') && !isMoved(A[j] ?? '');
    const steps = align(R, A, (i, j) => (canPair(i, j) ? wd(i, j).similarity : 0));
    const oldBase = oldNo;
    const newBase = newNo;
    oldNo += R.length;
    newNo += A.length;

    const cellR = (i: number, segments?: Segment[]): SideCell => {
      const t = R[i] ?? '';
      return { line: oldBase + i + 1, kind: 'removed', segments: segments ?? whole(t), moved: isMoved(t) };
    };
    const cellA = (j: number, segments?: Segment[]): SideCell => {
      const t = A[j] ?? '';
      return { line: newBase + j + 1, kind: 'added', segments: segments ?? whole(t), moved: isMoved(t) };
    };

    // Side by side: pairs on one row; unpaired lines between pairs zipped onto shared rows.
    let pendR: number[] = [];
    let pendA: number[] = [];
    const flushPending = () => {
      const n = Math.max(pendR.length, pendA.length);
      for (let x = 0; x < n; x++) {
        const ri = pendR[x];
        const aj = pendA[x];
        const left = ri !== undefined ? cellR(ri) : null;
        const right = aj !== undefined ? cellA(aj) : null;
        side.push({ kind: left && right ? 'changed' : left ? 'removed' : 'added', left, right });
      }
      pendR = [];
      pendA = [];
    };
    const oldSegs = new Map<number, Segment[]>();
    const newSegs = new Map<number, Segment[]>();
    for (const s of steps) {
      if ('pair' in s) {
        flushPending();
        const [i, j] = s.pair;
        const w = wd(i, j);
        oldSegs.set(i, w.old);
        newSegs.set(j, w.new);
        side.push({ kind: 'changed', left: cellR(i, w.old), right: cellA(j, w.new) });
      } else if ('removed' in s) {
        pendR.push(s.removed);
      } else {
        pendA.push(s.added);
      }
    }
    flushPending();

    // Inline: the block's removed lines, then its added lines.
    R.forEach((t, i) => {
      inline.push({ kind: 'removed', oldLine: oldBase + i + 1, newLine: 0, segments: oldSegs.get(i) ?? whole(t), moved: isMoved(t) });
    });
    A.forEach((t, j) => {
      inline.push({ kind: 'added', oldLine: 0, newLine: newBase + j + 1, segments: newSegs.get(j) ?? whole(t), moved: isMoved(t) });
    });
  }

  return {
    side,
    inline,
    added,
    removed,
    identical: older === newer,
    eolChanged: a.eol !== b.eol && a.lines.length > 0 && b.lines.length > 0,
    eol: [a.eol, b.eol],
    lines: [a.lines.length, b.lines.length],
  };
}

/** A run of unchanged rows hidden behind an expand control; `id` is its first row's index. */
export interface Fold<T> {
  kind: 'fold';
  id: number;
  rows: T[];
}

/** A row shown as is. */
export interface Shown<T> {
  kind: 'row';
  row: T;
  /** The row's index in the unfolded list. */
  index: number;
}

/**
 * Collapses long runs of unchanged rows: each run of rows for which `isSame` holds keeps
 * `context` rows next to each change (at the start and end of the document only the side
 * facing a change) and hides the rest in a Fold, but only when that hides at least
 * `minHidden` rows. Folds whose id is in `expanded` stay open. Order is kept.
 */
export function foldUnchanged<T>(
  rows: readonly T[],
  isSame: (row: T) => boolean,
  context = 3,
  minHidden = 4,
  expanded: ReadonlySet<number> = new Set(),
): (Shown<T> | Fold<T>)[] {
  const out: (Shown<T> | Fold<T>)[] = [];
  let i = 0;
  while (i < rows.length) {
    const r = rows[i] as T;
    if (!isSame(r)) {
      out.push({ kind: 'row', row: r, index: i });
      i++;
      continue;
    }
    let end = i;
    while (end < rows.length && isSame(rows[end] as T)) end++;
    const keepBefore = i === 0 ? 0 : context; // rows after the previous change
    const keepAfter = end === rows.length ? 0 : context; // rows before the next change
    const from = i + keepBefore;
    const to = end - keepAfter;
    if (to - from >= minHidden && !expanded.has(from)) {
      for (let x = i; x < from; x++) out.push({ kind: 'row', row: rows[x] as T, index: x });
      out.push({ kind: 'fold', id: from, rows: rows.slice(from, to) });
      for (let x = to; x < end; x++) out.push({ kind: 'row', row: rows[x] as T, index: x });
    } else {
      for (let x = i; x < end; x++) out.push({ kind: 'row', row: rows[x] as T, index: x });
    }
    i = end;
  }
  return out;
}
