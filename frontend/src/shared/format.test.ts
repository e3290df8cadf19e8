import { afterEach, describe, expect, it, vi } from 'vitest';
import { mergeArtifacts } from '../artifacts/ArtifactPanel';
import { parseSettingsErrors } from '../settings/SettingsDialog';
import type { AgentStep, LiveArtifact, ToolStep } from '../run/events';
import { countResults, describeStep, formatBytes, formatCount, formatDuration, relativeTime, shortUrl } from './format';
import { i18n } from '../i18n/i18n';

const tool = (over: Partial<ToolStep>): ToolStep => ({
  kind: 'tool', key: 'k', callId: 'c', agent: 'search_agent', tool: 'web_search', params: {},
  depth: 1, status: 'done', result: '', error: '', ...over,
});
const agent = (over: Partial<AgentStep>): AgentStep => ({
  kind: 'agent', key: 'k', agent: 'lead_agent', round: 0, depth: 0, instruction: '', status: 'done',
  text: '', reasoning: '', answered: false, routing: '', target: '', ...over,
});

describe('describeStep', () => {
  it('describes a finished web_search with its query, result count and duration', () => {
    const line = describeStep(tool({ params: { query: 'solid state' }, result: '1. a\n2. b\n3. c', durationMs: 1200 }));
    expect(line).toEqual({ agent: 'search_agent', action: 'web_search', detail: 'solid state', quoted: true, meta: ['3 results', '1.2s'] });
  });

  it('describes web_fetch by its short URL and a running step without figures', () => {
    expect(describeStep(tool({ agent: 'crawl_agent', tool: 'web_fetch', params: { url: 'https://www.example.com/page/' }, status: 'running' }))).toEqual({
      agent: 'crawl_agent', action: 'web_fetch', detail: 'example.com/page', quoted: false, meta: [],
    });
  });

  it('names artifact tools by artifact id and agent rounds by number or state', () => {
    expect(describeStep(tool({ agent: 'lead_agent', tool: 'update_artifact', params: { id: 'task_plan' }, durationMs: 2 })).detail).toBe('task_plan');
    expect(describeStep(agent({ round: 2, tokens: 2400, durationMs: 980 }))).toMatchObject({ action: 'round 3', meta: ['2.4k tokens', '980 ms'] });
    expect(describeStep(agent({ status: 'running' })).action).toBe('planning');
    expect(describeStep(agent({ answered: true })).action).toBe('writes the answer');
    expect(describeStep(agent({ answered: true, depth: 1, agent: 'search_agent' })).action).toBe('reports back');
  });
});

describe('formatting', () => {
  it.each([
    [0, '0 ms'], [850, '850 ms'], [1240, '1.2s'], [42_000, '42s'], [185_000, '3m 05s'], [3_720_000, '1h 02m'],
  ])('formatDuration(%d) = %s', (ms, want) => expect(formatDuration(ms)).toBe(want));

  it.each([[950, '950'], [1000, '1k'], [22_720, '22.7k'], [245_000, '245k'], [1_250_000, '1.3M']])('formatCount(%d) = %s', (n, want) =>
    expect(formatCount(n)).toBe(want),
  );

  it('relativeTime', () => {
    const now = Date.parse('2026-03-10T12:00:00Z');
    expect(relativeTime('2026-03-10T11:59:40Z', now)).toBe('just now');
    expect(relativeTime('2026-03-10T11:55:00Z', now)).toBe('5 min ago');
    expect(relativeTime('2026-03-10T09:00:00Z', now)).toBe('3 h ago');
    expect(relativeTime('2026-03-09T10:00:00Z', now)).toBe('yesterday');
    expect(relativeTime('2026-03-06T12:00:00Z', now)).toBe('4 days ago');
    expect(relativeTime('garbage', now)).toBe('');
  });

  it('relativeTime builds one Intl formatter per locale and options, not one per call (a list of dates renders fast)', () => {
    const now = Date.parse('2026-03-10T12:00:00Z');
    const dates = vi.spyOn(Intl, 'DateTimeFormat');
    const numbers = vi.spyOn(Intl, 'NumberFormat');
    try {
      const rows = Array.from({ length: 50 }, (_, i) => relativeTime(new Date(Date.parse('2026-02-01T12:00:00Z') - i * 86_400_000).toISOString(), now));
      rows.push(...Array.from({ length: 50 }, () => relativeTime('2026-03-10T11:55:00Z', now)));
      expect(rows[0]).toBe('Feb 1');
      expect(rows.at(-1)).toBe('5 min ago');
      expect(dates.mock.calls.length).toBeLessThanOrEqual(2); // this year's dates and last year's
      expect(numbers.mock.calls.length).toBeLessThanOrEqual(1);
    } finally {
      dates.mockRestore();
      numbers.mockRestore();
    }
  });

  it('countResults reads JSON, tagged and numbered result lists', () => {
    expect(countResults('[{"u":1},{"u":2}]')).toBe(2);
    expect(countResults('{"results":[1,2,3]}')).toBe(3);
    expect(countResults('<result>a</result><result>b</result>')).toBe(2);
    expect(countResults('1. a\n2) b\nnot a result')).toBe(2);
    expect(countResults('no results')).toBe(0);
  });

  it('shortUrl cuts long URLs', () => {
    expect(shortUrl('https://example.org/' + 'a'.repeat(100), 30)).toHaveLength(30);
  });
});

describe('formatting by locale', () => {
  afterEach(async () => {
    await i18n.changeLanguage('en');
  });
  const now = Date.parse('2026-03-10T12:00:00Z');

  it('writes English sizes, counts and dates', () => {
    expect([formatBytes(512), formatBytes(2048), formatBytes(1.5 * 1024 * 1024), formatBytes(3 * 1024 ** 3)]).toEqual(['512 B', '2.0 KB', '1.5 MB', '3.0 GB']);
    expect(formatCount(1_250_000)).toBe('1.3M');
    expect(formatCount(3050)).toBe('3k'); // as toFixed rounds, which the figures always did
    expect(relativeTime('2026-03-01T12:00:00Z', now)).toBe('Mar 1');
    expect(relativeTime('2025-03-01T12:00:00Z', now)).toBe('Mar 1, 2025');
    expect(relativeTime('2026-03-10T11:59:00Z', now)).toBe('1 min ago');
  });

  it('writes Chinese times, durations, sizes and counts', async () => {
    await i18n.changeLanguage('zh-CN');
    expect(relativeTime('2026-03-10T11:59:40Z', now)).toBe('刚刚');
    expect(relativeTime('2026-03-10T11:55:00Z', now)).toBe('5 分钟前');
    expect(relativeTime('2026-03-10T09:00:00Z', now)).toBe('3 小时前');
    expect(relativeTime('2026-03-09T10:00:00Z', now)).toBe('昨天');
    expect(relativeTime('2026-03-06T12:00:00Z', now)).toBe('4天前');
    expect(relativeTime('2026-03-01T12:00:00Z', now)).toBe('3月1日');
    expect(relativeTime('2025-03-01T12:00:00Z', now)).toBe('2025年3月1日');
    expect([0, 850, 1240, 42_000, 185_000, 3_720_000].map(formatDuration)).toEqual(['0 毫秒', '850 毫秒', '1.2 秒', '42 秒', '3 分 05 秒', '1 小时 02 分']);
    expect([512, 2048, 200 * 1024 * 1024].map(formatBytes)).toEqual(['512 字节', '2.0 KB', '200.0 MB']);
    expect([950, 22_720, 245_000, 1_250_000].map(formatCount)).toEqual(['950', '2.3万', '24.5万', '125万']);
  });

  it('describes activity steps in Chinese', async () => {
    await i18n.changeLanguage('zh-CN');
    expect(describeStep(tool({ params: { query: '固态电池' }, result: '1. a\n2. b\n3. c', durationMs: 1200 })).meta).toEqual(['3 条结果', '1.2 秒']);
    expect(describeStep(agent({ round: 2, tokens: 2400, durationMs: 980 }))).toMatchObject({ action: '第 3 轮', meta: ['2400 个 token', '980 毫秒'] });
    expect(describeStep(agent({ status: 'running' })).action).toBe('正在规划');
  });
});

describe('parseSettingsErrors', () => {
  it('takes the per-field messages from the fields of the code, not from the text', () => {
    const err = JSON.stringify({
      code: 'invalid_settings',
      message: 'invalid settings: base_url: x; searxng_url: y',
      fields: { base_url: 'must be an absolute http(s) URL', searxng_url: 'must be an absolute http(s) URL' },
    });
    expect(parseSettingsErrors(new Error(err))).toEqual({
      fields: { base_url: 'must be an absolute http(s) URL', searxng_url: 'must be an absolute http(s) URL' },
      general: '',
    });
  });

  it('keeps an error without fields as general, however its text looks', () => {
    expect(parseSettingsErrors(new Error('{"code":"internal","message":"config: write /x: permission denied"}'))).toEqual({
      fields: {},
      general: 'config: write /x: permission denied',
    });
    // A field-like text is not split: only the fields of the code count.
    expect(parseSettingsErrors('invalid settings: base_url: must be an absolute http(s) URL').fields).toEqual({});
  });
});

describe('mergeArtifacts', () => {
  const stored = (id: string, version: number, unsaved = false) => ({
    id, title: id, content_type: 'text/markdown', version, source: 'agent', size: 3, preview: '', updated_at: '', unsaved,
  });
  const live = (id: string, version: number, unsaved: boolean): LiveArtifact => ({
    snapshot: { id, content_type: 'text/markdown', title: `${id} live`, content: 'new', version, source: 'agent', update_type: 'update' },
    unsaved,
    messageId: 'm',
  });

  it('prefers live snapshots that are not older, and appends artifacts only known live', () => {
    const rows = mergeArtifacts([stored('a', 2), stored('b', 5, true)], { a: live('a', 3, true), b: live('b', 4, false), c: live('c', 1, true) });
    expect(rows.map((r) => [r.id, r.version, r.unsaved, r.content])).toEqual([
      ['a', 3, true, 'new'],
      ['b', 5, true, undefined],
      ['c', 1, true, 'new'],
    ]);
  });
});
