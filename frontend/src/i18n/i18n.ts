// The UI's languages: i18next with react-i18next, catalogues in src/locales/<language>/<namespace>.json.
//
// Rules every string of the UI follows (src/i18n/i18n.test.ts checks them):
// - Each language has the same namespaces and the same keys (plural forms aside: English has
//   `key_one` and `key_other`, Chinese only `key_other`), the same `{{placeholders}}` per key, and
//   no empty value; a Chinese value equal to the English one is allowed only for names and acronyms.
// - A component calls `useTranslation(namespace)` once and uses `t(key)`; code outside React
//   calls `i18n.t` with one literal "namespace:key". Keys are string literals, so the test finds
//   every one; a key built at run time must be listed in a comment `// i18n-keys: ns:a ns:b`.
// - Dates, numbers and sizes go through Intl with `currentLocale()`, never a fixed locale.
import i18next, { type i18n as I18n } from 'i18next';
import { initReactI18next } from 'react-i18next';

/** The languages the UI ships, as BCP 47 tags; the first is the fallback. */
export const LANGUAGES = ['en', 'zh-CN'] as const;

/** One shipped language. */
export type Language = (typeof LANGUAGES)[number];

/** The user's choice in Settings: '' follows the system locale, else one shipped language. */
export type LanguagePreference = '' | Language;

/** Where the last chosen preference is kept, so the first paint after a restart is already in it. */
export const LANGUAGE_STORAGE_KEY = 'artifactflow.language';

type Catalogue = Record<string, unknown>;

// Every catalogue file, loaded with the bundle (a few tens of KB): no flash of keys on start.
const files = import.meta.glob<Catalogue>('../locales/*/*.json', { eager: true, import: 'default' });

/**
 * The catalogues as i18next resources: `{ en: { chat: {...}, ... }, 'zh-CN': {...} }`, read from
 * src/locales/<language>/<namespace>.json.
 */
export function catalogues(): Record<string, Record<string, Catalogue>> {
  const out: Record<string, Record<string, Catalogue>> = {};
  for (const [path, data] of Object.entries(files)) {
    const m = /\.\/locales\/([^/]+)\/([^/]+)\.json$/.exec(path);
    if (!m?.[1] || !m[2]) continue;
    (out[m[1]] ??= {})[m[2]] = data;
  }
  return out;
}

/**
 * The shipped language for a list of system locales (navigator.languages, most preferred first):
 * the first that is Chinese (any zh-*) gives 'zh-CN', the first that is English gives 'en';
 * none of either gives 'en'.
 */
export function systemLanguage(locales: readonly string[]): Language {
  for (const l of locales) {
    const tag = l.toLowerCase();
    if (tag === 'zh' || tag.startsWith('zh-') || tag.startsWith('zh_')) return 'zh-CN';
    if (tag === 'en' || tag.startsWith('en-') || tag.startsWith('en_')) return 'en';
  }
  return 'en';
}

/** The language a preference means here: itself, or the system's for '' (or anything unknown). */
export function resolveLanguage(pref: string, locales: readonly string[] = systemLocales()): Language {
  return (LANGUAGES as readonly string[]).includes(pref) ? (pref as Language) : systemLanguage(locales);
}

function systemLocales(): readonly string[] {
  if (typeof navigator === 'undefined') return [];
  return navigator.languages.length > 0 ? navigator.languages : [navigator.language];
}

function storedPreference(): string {
  try {
    return typeof localStorage === 'undefined' ? '' : (localStorage.getItem(LANGUAGE_STORAGE_KEY) ?? '');
  } catch {
    return ''; // storage denied: follow the system
  }
}

/** The i18next instance the whole UI uses, initialised synchronously on import. */
export const i18n: I18n = i18next.createInstance();

void i18n.use(initReactI18next).init({
  resources: catalogues(),
  lng: resolveLanguage(storedPreference()),
  fallbackLng: 'en',
  supportedLngs: [...LANGUAGES],
  defaultNS: 'common',
  ns: Object.keys(catalogues().en ?? {}),
  interpolation: { escapeValue: false }, // React escapes what it renders
  returnNull: false,
  initAsync: false,
});
markDocument(i18n.language);
i18n.on('languageChanged', markDocument);

// <html lang> picks the CJK glyph variants and lets fontconfig choose a Chinese font for zh-CN.
function markDocument(lng: string): void {
  if (typeof document !== 'undefined') document.documentElement.lang = lng;
}

/**
 * Applies a Settings choice: remembers it for the next start and switches the UI at once.
 * Resolves when every mounted component has the new language.
 */
export async function setLanguagePreference(pref: LanguagePreference): Promise<void> {
  try {
    if (typeof localStorage !== 'undefined') localStorage.setItem(LANGUAGE_STORAGE_KEY, pref);
  } catch {
    // storage denied: the choice still applies to this session
  }
  await i18n.changeLanguage(resolveLanguage(pref));
}

/** The stored preference ('' = follow the system). */
export function languagePreference(): LanguagePreference {
  const p = storedPreference();
  return (LANGUAGES as readonly string[]).includes(p) ? (p as Language) : '';
}

/** The BCP 47 locale for Intl formatting of dates, numbers and sizes: the UI's current language. */
export function currentLocale(): Language {
  return resolveLanguage(i18n.language);
}
