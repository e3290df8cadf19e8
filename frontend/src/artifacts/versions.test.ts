import { describe, expect, it } from 'vitest';
import type { ArtifactVersion } from '../api/artifacts';
import { branchVersion, currentIsExtra, defaultComparePair, draftExplained, draftsNote, fuzzyNote, refLabel, restoreCandidates, updateTypeLabel, versionChoices, versionQuestion, versionTitle } from './versions';

const v = (version: number, update_type: string, extra: Partial<ArtifactVersion> = {}): ArtifactVersion => ({
  version,
  update_type,
  source: update_type === 'user_edit' || update_type === 'restore' ? 'user' : update_type === 'upload' ? 'user_upload' : 'agent',
  size: 100,
  message_id: '',
  message: '',
  created_at: '2025-01-01T00:00:00Z',
  ...extra,
});

describe('updateTypeLabel', () => {
  it.each([
    ['create', 'Created'],
    ['update', 'Updated'],
    ['update_fuzzy', 'Updated, please check'],
    ['rewrite', 'Rewritten'],
    ['user_edit', 'Your edit'],
    ['restore', 'Restored'],
    ['upload', 'Uploaded'],
    ['something_new', 'something new'],
    ['', 'Changed'],
  ])('%s -> %s', (t, label) => {
    expect(updateTypeLabel(t)).toBe(label);
  });
});

describe('versionTitle and versionQuestion', () => {
  it('names what produced a version', () => {
    expect(versionTitle(v(1, 'create', { message: 'How do heat pump subsidies differ?' }))).toBe('Created');
    expect(versionQuestion(v(1, 'create', { message: 'How do heat pump subsidies differ?' }))).toBe('How do heat pump subsidies differ?');
    expect([versionTitle(v(2, 'user_edit')), versionQuestion(v(2, 'user_edit', { message: 'x' }))]).toEqual(['Your edit', '']);
    expect(versionTitle(v(1, 'upload'))).toBe('Uploaded');
    expect(versionTitle(v(4, 'restore'), 2)).toBe('Restored v2');
    expect(versionTitle(v(4, 'restore'))).toBe('Restored an earlier version');
    expect(versionTitle(v(3, 'recover'))).toBe('Recovered draft');
    expect(versionTitle(v(3, 'update_fuzzy'))).toBe('Updated, please check');
    expect(versionTitle(v(3, '', { source: 'user' }))).toBe('Your edit');
    expect(versionQuestion(v(3, 'update'))).toBe('');
    expect(versionQuestion(v(3, 'update', { message: 'x'.repeat(200) }), 20)).toHaveLength(20);
  });
});

describe('restoreCandidates', () => {
  it('lists earlier versions of the same size, latest first', () => {
    const vs = [v(1, 'create', { size: 10 }), v(2, 'update', { size: 20 }), v(3, 'update', { size: 10 }), v(4, 'restore', { size: 10 }), v(5, 'update', { size: 10 })];
    expect(restoreCandidates(vs, vs[3]!)).toEqual([3, 1]);
  });
});

describe('version choices and compare defaults', () => {
  const stored = [v(1, 'create'), v(2, 'update'), v(4, 'user_edit')];

  it('shows current first and every other stored version, newest first', () => {
    expect(versionChoices(stored, { version: 4, unsaved: false }).map((c) => [c.ref, c.label])).toEqual([
      ['current', 'v4 · current'],
      [2, 'v2 · Updated'],
      [1, 'v1 · Created'],
    ]);
  });

  it('keeps the newest stored version as a choice while a run has unsaved changes', () => {
    expect(currentIsExtra(stored, { version: 6, unsaved: true })).toBe(true);
    expect(versionChoices(stored, { version: 6, unsaved: true }).map((c) => c.label)).toEqual([
      'v6 · draft',
      'v4 · Your edit',
      'v2 · Updated',
      'v1 · Created',
    ]);
  });

  it('compares the previous version with the current one by default', () => {
    expect(defaultComparePair(stored, { version: 4, unsaved: false }, 'current')).toEqual([2, 'current']);
    expect(defaultComparePair(stored, { version: 6, unsaved: true }, 'current')).toEqual([4, 'current']);
    expect(defaultComparePair(stored, { version: 4, unsaved: false }, 1)).toEqual([1, 'current']);
    expect(defaultComparePair([v(1, 'create')], { version: 1, unsaved: false }, 'current')).toEqual(['current', 'current']);
    expect(defaultComparePair([], { version: 1, unsaved: true }, 'current')).toEqual(['current', 'current']);
  });

  it('labels refs', () => {
    expect(refLabel('current', { version: 5, unsaved: false })).toBe('v5 (current)');
    expect(refLabel(3, { version: 5, unsaved: false })).toBe('v3');
  });
});

describe('a run\'s live drafts (never "v4" with a history of only "v4 Created")', () => {
  it('calls the live version a draft, in a label short enough for the selector, and explains it in the title', () => {
    const [live] = versionChoices([], { version: 4, unsaved: true });
    expect(live?.label).toBe('v4 · draft');
    expect(live?.label.length).toBeLessThanOrEqual(12);
    expect(live?.title).toContain(draftExplained());
    const [stored] = versionChoices([v(4, 'create')], { version: 4, unsaved: false });
    expect(stored?.label).toBe('v4 · current');
  });

  it.each([
    { name: 'first run of four changes', versions: [4], at: 4, want: 'Numbered v4 after 4 steps of its run: the research keeps its finished text, not each step.' },
    { name: 'a run of two changes', versions: [1, 3], at: 3, want: 'Numbered v3 after 2 steps of its run: the research keeps its finished text, not each step.' },
    { name: 'one change', versions: [1, 2], at: 2, want: '' },
    { name: 'a single first version', versions: [1], at: 1, want: '' },
  ])('$name', ({ versions, at, want }) => {
    const list = versions.map((n) => v(n, 'update'));
    const target = list.find((x) => x.version === at);
    expect(target).toBeDefined();
    if (target) expect(draftsNote(list, target)).toBe(want);
  });
});

describe('branchVersion', () => {
  // Runs m1 (branch 1), m2 (branch 2, a sibling) and m3 (a follow-up on branch 2) wrote the report.
  const runs = [v(2, 'create', { message_id: 'm1' }), v(3, 'update', { message_id: 'm2' }), v(5, 'update', { message_id: 'm3' })];
  const saved = { version: 5, unsaved: false };
  it.each([
    ['branch 1: a later run of another branch changed it', runs, saved, ['m1'], { ref: 2, why: 'branch' }],
    ['branch 2: its own run made the current version', runs, saved, ['m2', 'm3'], { ref: 'current', why: 'latest' }],
    ['branch 2 seen before its follow-up: m3 continues it', runs, saved, ['m2'], { ref: 3, why: 'branch' }],
    ['no run of this branch wrote it', runs, saved, ['m9'], { ref: 'current', why: 'other' }],
    ['the branch is not known', runs, saved, undefined, { ref: 'current', why: 'latest' }],
    ['a run is changing it', runs, { version: 6, unsaved: true }, ['m1'], { ref: 'current', why: 'latest' }],
    ['uploads and edits belong to no run', [v(1, 'upload'), v(2, 'user_edit')], { version: 2, unsaved: false }, ['m1'], { ref: 'current', why: 'latest' }],
    ['the user edited after this branch\'s run', [v(2, 'create', { message_id: 'm1' }), v(3, 'user_edit')], { version: 3, unsaved: false }, ['m1'], { ref: 'current', why: 'latest' }],
  ] as const)('%s', (_what, versions, current, branch, want) => {
    expect(branchVersion(versions, current, branch)).toEqual(want);
  });
});

describe('version words a user understands', () => {
  // The first version a user sees is often v2: the note says why without "draft of its run",
  // and an approximate match is said in plain words.
  const jargon = /draft of its run|drafts of its run|approximate match|final state/i;
  it.each([
    ['a first version written in two steps', draftsNote([v(2, 'create')], v(2, 'create'))],
    ['an approximate update', updateTypeLabel('update_fuzzy')],
    ['its note', fuzzyNote(v(3, 'update_fuzzy'))],
  ])('%s', (_what, text) => {
    expect(text).not.toBe('');
    expect(text).not.toMatch(jargon);
  });
  it('explains why the first version is v2', () => {
    expect(draftsNote([v(2, 'create')], v(2, 'create'))).toMatch(/^Numbered v2 after 2 steps/);
    expect(fuzzyNote(v(3, 'update'))).toBe('');
  });
});
