import { describe, expect, it } from 'vitest';
import { diffTexts, diffWords, foldUnchanged, splitLines, type DiffModel, type Segment, type SideRow } from './diff';

const join = (segs: Segment[]) => segs.map((s) => s.text).join('');
const changed = (segs: Segment[]) => segs.filter((s) => s.changed).map((s) => s.text);

/** Every side row's cells rebuild the original lines, in order, on both sides. */
function expectFaithful(m: DiffModel, older: string, newer: string) {
  const left = m.side.flatMap((r) => (r.left ? [r.left] : []));
  const right = m.side.flatMap((r) => (r.right ? [r.right] : []));
  expect(left.map((c) => join(c.segments))).toEqual(splitLines(older).lines);
  expect(right.map((c) => join(c.segments))).toEqual(splitLines(newer).lines);
  expect(left.map((c) => c.line)).toEqual(left.map((_, i) => i + 1));
  expect(right.map((c) => c.line)).toEqual(right.map((_, i) => i + 1));
  const oldInline = m.inline.filter((r) => r.kind !== 'added');
  const newInline = m.inline.filter((r) => r.kind !== 'removed');
  expect(oldInline.map((r) => join(r.segments))).toEqual(splitLines(older).lines);
  expect(newInline.map((r) => join(r.segments))).toEqual(splitLines(newer).lines);
  expect(m.inline.filter((r) => r.kind === 'added')).toHaveLength(m.added);
  expect(m.inline.filter((r) => r.kind === 'removed')).toHaveLength(m.removed);
}

describe('splitLines', () => {
  it.each([
    ['', [], false],
    ['a', ['a'], false],
    ['a\n', ['a'], true],
    ['a\n\n', ['a', ''], true],
    ['a\r\nb\rc', ['a', 'b', 'c'], false],
    ['\n', [''], true],
  ])('%j', (text, lines, eol) => {
    expect(splitLines(text)).toEqual({ lines, eol });
  });
});

describe('diffWords', () => {
  it('marks only the changed word inside a line', () => {
    const w = diffWords('Base support is 30 % of the cost', 'Base support is 35 % of the cost');
    expect(join(w.old)).toBe('Base support is 30 % of the cost');
    expect(join(w.new)).toBe('Base support is 35 % of the cost');
    expect(changed(w.old)).toEqual(['30']);
    expect(changed(w.new)).toEqual(['35']);
    expect(w.similarity).toBeGreaterThan(0.8);
  });

  it('folds the space between two replaced words into one change', () => {
    const w = diffWords('the quick brown fox', 'the slow red fox');
    expect(changed(w.old)).toEqual(['quick brown']);
    expect(changed(w.new)).toEqual(['slow red']);
  });

  it('compares CJK text character by character', () => {
    const w = diffWords('德国的补贴最高，法国按收入分档。', '德国的补贴最低，法国按收入分档。');
    expect(join(w.old)).toBe('德国的补贴最高，法国按收入分档。');
    expect(join(w.new)).toBe('德国的补贴最低，法国按收入分档。');
    expect(changed(w.old)).toEqual(['高']);
    expect(changed(w.new)).toEqual(['低']);
    expect(w.similarity).toBeGreaterThan(0.9);
  });

  it('gives low similarity to unrelated lines and 1 to equal ones', () => {
    expect(diffWords('Germany pays the most', 'Sources: see the appendix below').similarity).toBeLessThan(0.4);
    expect(diffWords('same', 'same')).toEqual({ old: [{ text: 'same', changed: false }], new: [{ text: 'same', changed: false }], similarity: 1 });
    expect(diffWords('', '')).toMatchObject({ old: [], new: [], similarity: 1 });
  });

  it('handles an added word at the end and whitespace-only changes', () => {
    const w = diffWords('Italy works mostly through tax credits', 'Italy works mostly through tax credits spread over ten years');
    expect(changed(w.old)).toEqual([]);
    expect(changed(w.new)).toEqual([' spread over ten years']);
    const s = diffWords('a  b', 'a b');
    expect(join(s.old)).toBe('a  b');
    expect(join(s.new)).toBe('a b');
    expect(changed(s.old)).toEqual(['  ']);
  });

  it('folds a lone punctuation mark between two edits into one change', () => {
    const w = diffWords("The Moon's mean distance is 384,400 km.", "The Moon's mean distance is 384,400 km, about 1.28 light-seconds.");
    expect(changed(w.old)).toEqual(['.']);
    expect(changed(w.new)).toEqual([', about 1.28 light-seconds.']);
    const h = diffWords('a light-year away', 'a dark-matter halo');
    expect(changed(h.old)).toEqual(['light-year away']);
    expect(changed(h.new)).toEqual(['dark-matter halo']);
    // A real word between edits is kept as common text.
    const k = diffWords('red fox and grey wolf', 'blue fox and white wolf');
    expect(changed(k.old)).toEqual(['red', 'grey']);
  });
});

describe('diffTexts', () => {
  it('reports identical texts', () => {
    const m = diffTexts('# A\n\nbody\n', '# A\n\nbody\n');
    expect(m).toMatchObject({ identical: true, added: 0, removed: 0, eolChanged: false, lines: [3, 3] });
    expect(m.side.every((r) => r.kind === 'same')).toBe(true);
    expectFaithful(m, '# A\n\nbody\n', '# A\n\nbody\n');
  });

  it('pairs a modified line and highlights the changed words in both views', () => {
    const older = '# Report\n\nGermany pays 30 % of the cost.\nFrance pays flat amounts.\n';
    const newer = '# Report\n\nGermany pays 35 % of the cost.\nFrance pays flat amounts.\n';
    const m = diffTexts(older, newer);
    expect(m).toMatchObject({ added: 1, removed: 1, identical: false });
    const row = m.side.find((r) => r.kind === 'changed') as SideRow;
    expect(row.left?.line).toBe(3);
    expect(row.right?.line).toBe(3);
    expect(changed(row.left?.segments ?? [])).toEqual(['30']);
    expect(changed(row.right?.segments ?? [])).toEqual(['35']);
    const inl = m.inline.filter((r) => r.kind !== 'same');
    expect(inl.map((r) => [r.kind, r.oldLine, r.newLine])).toEqual([
      ['removed', 3, 0],
      ['added', 0, 3],
    ]);
    expect(changed(inl[0]?.segments ?? [])).toEqual(['30']);
    expect(changed(inl[1]?.segments ?? [])).toEqual(['35']);
    expectFaithful(m, older, newer);
  });

  it('lists added and removed blocks with correct line numbers', () => {
    const older = 'intro\nold one\nold two\nmiddle\nend\n';
    const newer = 'intro\nmiddle\nnew one\nnew two\nnew three\nend\n';
    const m = diffTexts(older, newer);
    expect([m.added, m.removed]).toEqual([3, 2]);
    expect(m.side.map((r) => r.kind)).toEqual(['same', 'removed', 'removed', 'same', 'added', 'added', 'added', 'same']);
    expect(m.side[1]?.right).toBeNull();
    expect(m.side[4]?.left).toBeNull();
    expect(m.side[4]?.right).toMatchObject({ line: 3, kind: 'added' });
    expect(m.side[7]).toMatchObject({ left: { line: 5 }, right: { line: 6 } });
    expectFaithful(m, older, newer);
  });

  it('flags a moved block on both sides and does not pair it', () => {
    const older = '## Sources\n- review 2025\n- Toyota press release\n## Summary\nThree families.\n';
    const newer = '## Summary\nThree families.\n## Sources\n- review 2025\n- Toyota press release\n';
    const m = diffTexts(older, newer);
    const movedOld = m.inline.filter((r) => r.kind === 'removed' && r.moved).map((r) => join(r.segments));
    const movedNew = m.inline.filter((r) => r.kind === 'added' && r.moved).map((r) => join(r.segments));
    expect(movedOld.length).toBeGreaterThan(0);
    expect(movedOld.sort()).toEqual(movedNew.sort());
    // Moved lines are whole-line changes, never word-paired with something else.
    for (const r of m.inline) if (r.moved) expect(r.segments.every((s) => !s.changed)).toBe(true);
    expect(m.added).toBe(m.removed);
    expectFaithful(m, older, newer);
  });

  it('puts unrelated replaced lines side by side without word segments', () => {
    const m = diffTexts('alpha beta gamma\n', 'completely different words here\n');
    expect(m.side).toHaveLength(1);
    expect(m.side[0]?.kind).toBe('changed');
    expect(m.side[0]?.left?.segments.every((s) => !s.changed)).toBe(true);
    expect(m.side[0]?.right?.segments.every((s) => !s.changed)).toBe(true);
  });

  it('pairs similar lines across an inserted line inside a changed block', () => {
    const older = 'Germany pays 30 % base support.\nItaly pays through tax credits.\n';
    const newer = 'Germany pays 35 % base support.\nA brand new paragraph about Austria appears here.\nItaly pays through tax credits over ten years.\n';
    const m = diffTexts(older, newer);
    const kinds = m.side.map((r) => r.kind);
    expect(kinds).toEqual(['changed', 'added', 'changed']);
    expect(changed(m.side[0]?.right?.segments ?? [])).toEqual(['35']);
    expect(changed(m.side[2]?.right?.segments ?? [])).toEqual([' over ten years']);
    expectFaithful(m, older, newer);
  });

  it('handles empty versions', () => {
    const a = diffTexts('', 'one\ntwo\n');
    expect(a).toMatchObject({ added: 2, removed: 0, identical: false, eolChanged: false, lines: [0, 2] });
    expect(a.side.map((r) => r.kind)).toEqual(['added', 'added']);
    expectFaithful(a, '', 'one\ntwo\n');
    const b = diffTexts('one\n', '');
    expect(b).toMatchObject({ added: 0, removed: 1 });
    expectFaithful(b, 'one\n', '');
    expect(diffTexts('', '')).toMatchObject({ identical: true, side: [], inline: [] });
  });

  it('reports a trailing newline difference without a changed line', () => {
    const m = diffTexts('a\nb\n', 'a\nb');
    expect(m).toMatchObject({ identical: false, added: 0, removed: 0, eolChanged: true, eol: [true, false] });
    expect(m.side.every((r) => r.kind === 'same')).toBe(true);
    const n = diffTexts('a\nb', 'a\nc\n');
    expect(n).toMatchObject({ added: 1, removed: 1, eolChanged: true });
  });

  it('treats CRLF and LF line ends alike', () => {
    const m = diffTexts('a\r\nb\r\n', 'a\nb\n');
    expect(m).toMatchObject({ identical: false, added: 0, removed: 0, eolChanged: false });
  });

  it('diffs CJK documents line by line with character highlights', () => {
    const older = '# 热泵补贴\n\n德国：基础补贴 30%。\n法国：按收入分档。\n';
    const newer = '# 热泵补贴\n\n德国：基础补贴 35%。\n法国：按收入分档。\n意大利：税收抵免。\n';
    const m = diffTexts(older, newer);
    expect([m.added, m.removed]).toEqual([2, 1]);
    const row = m.side.find((r) => r.kind === 'changed');
    expect(changed(row?.left?.segments ?? [])).toEqual(['30']);
    expect(changed(row?.right?.segments ?? [])).toEqual(['35']);
    expect(m.side.at(-1)).toMatchObject({ kind: 'added', left: null, right: { line: 5 } });
    expectFaithful(m, older, newer);
  });

  it('stays fast and faithful on a long document with scattered edits', () => {
    const base = Array.from({ length: 3000 }, (_, i) => `Line ${String(i)} of the report with some words.`);
    const next = base.map((l, i) => (i % 250 === 0 ? l.replace('some', 'several') : l));
    next.splice(1500, 0, 'An inserted line.');
    const older = base.join('\n');
    const newer = next.join('\n');
    const t = performance.now();
    const m = diffTexts(older, newer);
    expect(performance.now() - t).toBeLessThan(2000);
    expect(m.added).toBe(13);
    expect(m.removed).toBe(12);
    expectFaithful(m, older, newer);
  });

  it('pairs huge changed blocks by position', () => {
    const older = Array.from({ length: 80 }, (_, i) => `old row ${String(i)} alpha`).join('\n');
    const newer = Array.from({ length: 80 }, (_, i) => `new row ${String(i)} alpha`).join('\n');
    const m = diffTexts(older, newer);
    expect(m.side).toHaveLength(80);
    expect(m.side.every((r) => r.kind === 'changed')).toBe(true);
    expectFaithful(m, older, newer);
  });
});

describe('foldUnchanged', () => {
  const rows = (s: string) => s.split('').map((c, i) => ({ c, i }));
  const same = (r: { c: string }) => r.c === '.';
  const shape = (items: ReturnType<typeof foldUnchanged<{ c: string; i: number }>>) =>
    items.map((x) => (x.kind === 'fold' ? `[${String(x.rows.length)}@${String(x.id)}]` : x.row.c)).join('');

  it('keeps context around changes and folds long runs', () => {
    expect(shape(foldUnchanged(rows('..........x..........x..'), same, 2, 3))).toBe('[8@0]..x..[6@13]..x..');
  });

  it('does not fold short runs', () => {
    expect(shape(foldUnchanged(rows('...x...'), same, 3, 4))).toBe('...x...');
    expect(shape(foldUnchanged(rows('x'), same))).toBe('x');
    expect(shape(foldUnchanged(rows(''), same))).toBe('');
  });

  it('folds the ends of a document toward the changes only', () => {
    expect(shape(foldUnchanged(rows('x..........'), same, 3, 4))).toBe('x...[7@4]');
    // No change at all: one fold.
    expect(shape(foldUnchanged(rows('..........'), same, 3, 4))).toBe('[10@0]');
  });

  it('opens expanded folds and keeps row indexes', () => {
    const items = foldUnchanged(rows('x..........'), same, 3, 4, new Set([4]));
    expect(shape(items)).toBe('x..........');
    expect(items.map((x) => (x.kind === 'row' ? x.index : -1))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});
