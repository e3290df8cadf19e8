// The UI language's copy in the backend. i18n.ts keeps the choice in localStorage for a fast
// first paint; config.json keeps it too (SettingsService.SetLanguage), so the agents know the
// language the user reads and a new profile (browser mode, another WebView) starts in it. On
// start the page applies the backend's choice when it differs from the local one; choosing in
// Settings switches the UI at once and stores it in both.

import { toApiError } from '../api/call';
import { getSettings, setLanguage } from '../api/settings';
import { languagePreference, LANGUAGES, setLanguagePreference, type LanguagePreference } from './i18n';

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
  let stored: LanguagePreference | null;
  try {
    stored = preferenceOf((await getSettings()).language);
  } catch {
    return local; // no backend, or the settings could not be read: keep what this page had
  }
  if (stored === null || stored === local) return local;
  await setLanguagePreference(stored);
  return stored;
}

/**
 * Settings' language choice: switches the UI at once, remembers it locally and stores it in
 * the backend (SettingsService.SetLanguage). Rejects with the backend's error (an ApiError)
 * when it could not be stored; the UI has switched all the same. Without a backend (code
 * `unavailable`, or `unsupported` for an older one) the local choice is all there is.
 */
export async function chooseLanguage(pref: LanguagePreference): Promise<void> {
  await setLanguagePreference(pref);
  try {
    await setLanguage(pref);
  } catch (e) {
    const code = toApiError(e).code;
    if (code !== 'unsupported' && code !== 'unavailable') throw e;
  }
}
