import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toApiError } from '../api/call';
import { languagePreference, resolveLanguage, type LanguagePreference } from '../i18n/i18n';
import { chooseLanguage } from '../i18n/language';

// i18n-keys: settings:language.en settings:language.zhCN
/** The languages the select offers besides "System", each named in its own language. */
const CHOICES: readonly { value: LanguagePreference; key: 'language.en' | 'language.zhCN' }[] = [
  { value: 'en', key: 'language.en' },
  { value: 'zh-CN', key: 'language.zhCN' },
];

/**
 * The Language section of the settings dialog: "System (English)" or "System (中文)" —
 * following the system locale, the parenthesis naming what it gives —, "English" or
 * "中文（简体）". A choice applies at once, without Save or a restart, and is remembered
 * (locally and in config.json, see chooseLanguage); a backend that refuses it shows its
 * error under the select.
 */
export function LanguageSettings() {
  const { t } = useTranslation('settings');
  const [pref, setPref] = useState<LanguagePreference>(languagePreference);
  const [error, setError] = useState('');
  const system = resolveLanguage('') === 'zh-CN' ? t('language.zhCNShort') : t('language.en');
  const choose = (next: LanguagePreference) => {
    setPref(next);
    setError('');
    chooseLanguage(next).catch((e: unknown) => setError(toApiError(e).message));
  };
  return (
    <fieldset>
      <legend>{t('language.legend')}</legend>
      <label className="field">
        <span className="label">{t('language.label')}</span>
        <select
          className="input"
          value={pref}
          data-testid="language-select"
          onChange={(e) => choose(e.target.value as LanguagePreference)}
          aria-invalid={error !== ''}
          aria-describedby={error !== '' ? 'err-language' : undefined}
        >
          <option value="">{t('language.system', { name: system })}</option>
          {CHOICES.map((c) => (
            <option key={c.value} value={c.value}>
              {t(c.key)}
            </option>
          ))}
        </select>
        <span className="hint">{t('language.hint')}</span>
        {error !== '' ? (
          <p className="field-error" id="err-language" role="alert">
            {error}
          </p>
        ) : null}
      </label>
    </fieldset>
  );
}
