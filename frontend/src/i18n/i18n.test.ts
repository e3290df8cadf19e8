// The catalogue check: every key the source uses is in both languages, both languages have
// the same keys and placeholders, and Chinese values are translated.
import { describe, expect, it } from 'vitest';
import { catalogues, i18n, LANGUAGES, resolveLanguage, systemLanguage } from './i18n';

// Every source file's text (tests, benches and declarations aside), keyed by its path from src/.
const SOURCES = import.meta.glob<string>(
  ['../**/*.{ts,tsx}', '!../**/*.test.{ts,tsx}', '!../**/*.bench.ts', '!../**/*.d.ts'],
  { query: '?raw', import: 'default', eager: true },
);
const PLURAL = /_(zero|one|two|few|many|other)$/;

function flatten(obj: Record<string, unknown>, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'string') out.set(key, v);
    else if (v && typeof v === 'object') for (const [kk, vv] of flatten(v as Record<string, unknown>, key)) out.set(kk, vv);
    else out.set(key, '');
  }
  return out;
}

/** Every key of every namespace of one language, as 'ns:key' → value (plural suffixes kept). */
function keysOf(lang: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [ns, data] of Object.entries(catalogues()[lang] ?? {})) {
    for (const [k, v] of flatten(data)) out.set(`${ns}:${k}`, v);
  }
  return out;
}

const base = (key: string) => key.replace(PLURAL, '');
const placeholders = (s: string) => [...s.matchAll(/\{\{\s*([\w.]+)[^}]*\}\}/g)].map((m) => m[1]).sort();

/** The keys one source file uses, as 'ns:key', with the line they are on. */
export function usedKeys(text: string): { key: string; line: number }[] {
  const ns = /useTranslation\(\s*['"]([\w-]+)['"]/.exec(text)?.[1] ?? 'common';
  const found: { key: string; line: number }[] = [];
  const lineOf = (i: number) => text.slice(0, i).split('\n').length;
  const add = (raw: string, at: number) => found.push({ key: raw.includes(':') ? raw : `${ns}:${raw}`, line: lineOf(at) });
  for (const m of text.matchAll(/\bt\(\s*(['"])([^'"`$]+?)\1/g)) add(m[2] ?? '', m.index);
  for (const m of text.matchAll(/\bi18nKey=(['"])([^'"]+)\1/g)) add(m[2] ?? '', m.index);
  for (const m of text.matchAll(/^[ \t]*\/\/[ \t]*i18n-keys:([^\n]*)/gm)) {
    for (const k of (m[1] ?? '').trim().split(/\s+/).filter(Boolean)) add(k, m.index);
  }
  return found;
}

describe('catalogues', () => {
  const en = keysOf('en');
  const zh = keysOf('zh-CN');

  it('ship English and Chinese with the same namespaces', () => {
    expect(Object.keys(catalogues()).sort()).toEqual([...LANGUAGES].sort());
    expect(Object.keys(catalogues()['zh-CN'] ?? {}).sort()).toEqual(Object.keys(catalogues().en ?? {}).sort());
  });

  it('have the same keys in both languages (plural forms aside)', () => {
    const enBase = new Set([...en.keys()].map(base));
    const zhBase = new Set([...zh.keys()].map(base));
    expect([...enBase].filter((k) => !zhBase.has(k)), 'in en, missing from zh-CN').toEqual([]);
    expect([...zhBase].filter((k) => !enBase.has(k)), 'in zh-CN, missing from en').toEqual([]);
    const plural = [...en.keys()].filter((k) => k.endsWith('_one'));
    expect(plural.filter((k) => !en.has(k.replace(/_one$/, '_other'))), 'en _one without _other').toEqual([]);
    expect(plural.filter((k) => !zh.has(k.replace(/_one$/, '_other'))), 'zh-CN lacks _other').toEqual([]);
  });

  it('have no empty values and the same placeholders per key', () => {
    const bad: string[] = [];
    for (const [lang, map] of [['en', en], ['zh-CN', zh]] as const) {
      for (const [k, v] of map) if (v.trim() === '') bad.push(`${lang} ${k} is empty`);
    }
    for (const [k, v] of zh) {
      const enValue = en.get(k) ?? en.get(base(k) + '_other') ?? en.get(base(k));
      if (enValue === undefined) continue;
      const a = [...new Set(placeholders(enValue))].join(',');
      const b = [...new Set(placeholders(v))].join(',');
      // Chinese has no singular: its _other form may omit {{count}} where English's _one shows it.
      if (a !== b && !(PLURAL.test(k) && a.replace(/(^|,)count(,|$)/, '$1') === b.replace(/(^|,)count(,|$)/, '$1'))) {
        bad.push(`${k}: en has {${a}}, zh-CN has {${b}}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('translate every Chinese value (equal to English only for names and acronyms)', () => {
    const nameOnly = (s: string) =>
      s.replace(/\{\{[^}]*\}\}/g, '').split(/[\s/·,:()…\-–—+]+/).filter(Boolean).every((w) => !/^[a-z]/.test(w) || !/[a-z]{2}/.test(w));
    const untranslated = [...zh].filter(([k, v]) => {
      const e = en.get(k) ?? en.get(base(k) + '_other');
      return e !== undefined && v === e && !nameOnly(v);
    });
    expect(untranslated.map(([k]) => k)).toEqual([]);
  });

  it('hold every key the source uses, in both languages', () => {
    const missing: string[] = [];
    const has = (map: Map<string, string>, key: string) => map.has(key) || map.has(`${key}_other`);
    expect(Object.keys(SOURCES).length).toBeGreaterThan(50); // the glob found the source
    for (const [file, text] of Object.entries(SOURCES)) {
      for (const { key, line } of usedKeys(text)) {
        for (const [lang, map] of [['en', en], ['zh-CN', zh]] as const) {
          if (!has(map, key)) missing.push(`${file}:${String(line)} ${key} not in ${lang}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('usedKeys', () => {
  it.each([
    ["const { t } = useTranslation('chat'); t('send')", ['chat:send']],
    ["t('settings:title'); i18n.t('errors:model_auth')", ['settings:title', 'errors:model_auth']],
    ['<Trans i18nKey="chat.intro" />', ['common:chat.intro']],
    ['// i18n-keys: errors:a errors:b', ['errors:a', 'errors:b']],
    ['t(`dynamic.${x}`)', []],
  ])('%s', (text, want) => {
    expect(usedKeys(text).map((k) => k.key)).toEqual(want);
  });
});

describe('language', () => {
  it.each([
    [['zh-CN', 'en-US'], 'zh-CN'],
    [['zh-TW'], 'zh-CN'],
    [['zh_CN.UTF-8'], 'zh-CN'],
    [['en-GB', 'zh-CN'], 'en'],
    [['fr-FR', 'zh-HK'], 'zh-CN'],
    [['fr-FR'], 'en'],
    [[], 'en'],
  ])('system %j → %s', (locales, want) => {
    expect(systemLanguage(locales)).toBe(want);
  });

  it('follows an explicit preference over the system', () => {
    expect(resolveLanguage('en', ['zh-CN'])).toBe('en');
    expect(resolveLanguage('zh-CN', ['en-US'])).toBe('zh-CN');
    expect(resolveLanguage('', ['zh-CN'])).toBe('zh-CN');
    expect(resolveLanguage('fr', ['en-US'])).toBe('en');
  });

  it('switches the whole UI at once', async () => {
    await i18n.changeLanguage('zh-CN');
    expect(i18n.t('common:cancel')).toBe('取消');
    await i18n.changeLanguage('en');
    expect(i18n.t('common:cancel')).toBe('Cancel');
  });
});
