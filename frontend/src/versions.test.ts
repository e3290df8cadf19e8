import { describe, expect, it } from 'vitest';
import type { ArtifactVersion } from './api';
import { currentIsExtra, defaultComparePair, refLabel, restoreCandidates, updateTypeLabel, versionChoices, versionQuestion, versionTitle } from './versions';

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
    ['update_fuzzy', 'Updated (approximate match)'],
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
    expect(versionTitle(v(3, 'update_fuzzy'))).toBe('Updated (approximate match)');
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
      'v6 · current, unsaved',
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
