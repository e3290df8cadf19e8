import { describe, expect, it } from 'vitest';

// Every stylesheet of the app, as text without comments (Vite's glob import; vite.config.ts
// lets vitest keep the text of ?raw stylesheets).
const raw = import.meta.glob<string>('./**/*.css', { query: '?raw', import: 'default', eager: true });
const sheets = Object.fromEntries(Object.entries(raw).map(([k, css]) => [k, css.replace(/\/\*[\s\S]*?\*\//g, '')]));

/** The families of a font-family value, unquoted and lower-cased. */
const families = (value: string): string[] => value.split(',').map((f) => f.trim().replace(/^['"]|['"]$/g, '').toLowerCase());

const GENERIC = new Set(['monospace', 'ui-monospace', 'sans-serif', 'serif', 'system-ui', 'ui-sans-serif']);

describe('the monospace font stack (never code in a proportional CJK font under zh-CN)', () => {
  const all = Object.entries(sheets);

  it('finds the stylesheets with their text', () => {
    expect(all.length).toBeGreaterThan(3);
    expect(sheets['./style.css']).toMatch(/font-family/);
  });

  it('--mono starts with a concrete monospace family and ends with the generic one', () => {
    const defs = all.flatMap(([, css]) => [...css.matchAll(/--mono:\s*([^;]+);/g)].map((m) => m[1] ?? ''));
    expect(defs).toHaveLength(1);
    const list = families(defs[0] ?? '');
    expect(GENERIC.has(list[0] ?? '')).toBe(false);
    expect(list.slice(0, 2)).toEqual(['dejavu sans mono', 'noto sans mono']);
    expect(list.at(-1)).toBe('monospace');
  });

  it.each(all)('%s never names ui-monospace and sets monospace text only through var(--mono)', (_, css) => {
    expect(css).not.toMatch(/ui-monospace/i);
    for (const m of css.matchAll(/font-family:\s*([^;}]+)/g)) {
      const value = (m[1] ?? '').trim();
      if (/monospace/i.test(value)) expect(value).toBe('var(--mono)');
    }
  });
});

describe('the UI font stack (the first layout on Linux)', () => {
  it('names only generic families: each named family a system lacks costs a font match at start', () => {
    const defs = Object.values(sheets).flatMap((css) => [...css.matchAll(/--font:\s*([^;]+);/g)].map((m) => m[1] ?? ''));
    expect(defs).toHaveLength(1);
    const list = families(defs[0] ?? '');
    expect(list.length).toBeGreaterThan(0);
    expect(list.filter((f) => !GENERIC.has(f))).toEqual([]);
    expect(list.at(-1)).toBe('sans-serif');
  });
});
