// The UI language's copy in the backend (issue 10, item 1). i18n.ts keeps the choice in
// localStorage for a fast first paint; config.json keeps it too (SettingsService.SetLanguage),
// so the agents know the language the user reads and a new profile (browser mode, another
// WebView) starts in it. On start the page applies the backend's choice when it differs
// from the local one; choosing in Settings switches the UI at once and stores it in both.

import * as SettingsService from '../wailsjs/go/app/SettingsService';
import { languagePreference, LANGUAGES, setLanguagePreference, type LanguagePreference } from './i18n';

type Bound = { Get?: unknown; SetLanguage?: unknown };

/** The bound SettingsService methods present on this page (none without a backend). */
function bound(): Bound {
  const go = (window as unknown as { go?: { app?: { SettingsService?: Bound } } }).go;
  return go?.app?.SettingsService ?? {};
}

/**
 * A language preference as the backend sends it (SettingsView.language): '', 'en' or
 * 'zh-CN'; null for anything else, such as the missing field of an older backend.
 */
export function preferenceOf(v: unknown): LanguagePreference | null {
  if (v === '') return '';
  return typeof v === 'string' && (LANGUAGES as readonly string[]).includes(v) ? (v as LanguagePreference) : null;
}

/**
 * On start: reads the language stored in the backend's settings and, when it differs from
 * the local preference, applies it (the UI switches at once). Resolves with the preference
 * in effect; without a backend, or when it cannot be read, the local one stays.
 */
export async function syncLanguageFromBackend(): Promise<LanguagePreference> {
  const local = languagePreference();
  if (typeof bound().Get !== 'function') return local;
  let stored: LanguagePreference | null;
  try {
    stored = preferenceOf(((await SettingsService.Get()) as { language?: unknown }).language);
  } catch {
    return local; // the settings could not be read: keep what this page had
  }
  if (stored === null || stored === local) return local;
  await setLanguagePreference(stored);
  return stored;
}

/**
 * Settings' language choice: switches the UI at once, remembers it locally and stores it in
 * the backend (SettingsService.SetLanguage, when bound). Rejects with the backend's error
 * when it could not be stored; the UI has switched all the same.
 */
export async function chooseLanguage(pref: LanguagePreference): Promise<void> {
  await setLanguagePreference(pref);
  if (typeof bound().SetLanguage === 'function') await SettingsService.SetLanguage(pref);
}
