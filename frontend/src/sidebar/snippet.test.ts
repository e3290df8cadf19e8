import { describe, expect, it } from 'vitest';
import { highlightTerms, searchTerms } from './snippet';

const marked = (text: string, q: string) =>
  highlightTerms(text, q)
    .map((p) => (p.match ? `[${p.text}]` : p.text))
    .join('');

describe('searchTerms', () => {
  it('splits on spaces, keeps quoted text whole, folds case and diacritics, drops duplicates', () => {
    expect(searchTerms('  Heat  "Pump subsidies"  heat Café ')).toEqual(['heat', 'pump subsidies', 'cafe']);
    expect(searchTerms('')).toEqual([]);
    expect(searchTerms('"unclosed quote')).toEqual(['unclosed quote']);
  });
});

describe('highlightTerms', () => {
  it('marks every match of every term, ignoring case', () => {
    expect(marked('Heat pumps: heat pump subsidies', 'HEAT subsid')).toBe('[Heat] pumps: [heat] pump [subsid]ies');
  });

  it('ignores diacritics both ways and keeps the original text', () => {
    expect(marked('MaPrimeRénov’ and renovation', 'renov')).toBe('MaPrime[Rénov]’ and [renov]ation');
    expect(marked('resume of the résumé', 'résumé')).toBe('[resume] of the [résumé]');
  });

  it('merges overlapping and adjacent matches', () => {
    expect(marked('subsidies', 'subs sidi')).toBe('[subsidi]es');
    expect(marked('aaaa', 'aa')).toBe('[aaaa]');
  });

  it('matches Chinese and Japanese without spaces', () => {
    expect(marked('热泵补贴在德国', '补贴')).toBe('热泵[补贴]在德国');
  });

  it('returns the text as one plain part when nothing matches, [] for empty text', () => {
    expect(highlightTerms('plain text', 'zzz')).toEqual([{ text: 'plain text', match: false }]);
    expect(highlightTerms('plain text', '')).toEqual([{ text: 'plain text', match: false }]);
    expect(highlightTerms('', 'x')).toEqual([]);
  });

  it('treats markup in the snippet as text', () => {
    const parts = highlightTerms('<img src=x onerror=alert(1)> heat', 'heat');
    expect(parts).toEqual([
      { text: '<img src=x onerror=alert(1)> ', match: false },
      { text: 'heat', match: true },
    ]);
  });

  it('handles characters outside the BMP and case changes that alter length', () => {
    expect(marked('𝒳 heat 𝒳', 'heat')).toBe('𝒳 [heat] 𝒳');
    expect(marked('İstanbul', 'istanbul')).toBe('[İstanbul]');
  });
});
