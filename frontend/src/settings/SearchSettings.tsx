import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { openExternal } from '../api/runtime';
import { testSearch, type SearchProvider, type SearchTestResult } from '../api/settings';
import { providerNeeds, searchTestText, setByNote, type SearchForm } from './settings-form';
import { Spinner } from '../shared/icons';
import './settings.css';

/** Props of SearchSettings. */
export interface SearchSettingsProps {
  providers: readonly SearchProvider[];
  form: SearchForm;
  onChange: (f: SearchForm) => void;
  /** The SearXNG URL as typed (SettingsInput.searxng_url). */
  searxngUrl: string;
  onSearxngUrl: (url: string) => void;
  /** The provider stored and, when it cannot search, why (Settings.search_problem). */
  storedProvider: string;
  storedProblem: string;
  /** Errors by the backend's field names ("search.provider", "search.keys.brave", "searxng_url" ...). */
  errors: Record<string, string | undefined>;
  disabled: boolean;
  /** Fields a flag sets this session (Settings.set_by): shown read-only with the flag named. */
  setBy?: Readonly<Record<string, string>>;
}

/**
 * The web search section: the provider (DuckDuckGo by default; those that need nothing say
 * "no key needed"), the chosen provider's API key (never shown: "stored" when one is, an
 * empty field keeps it, a box removes it) with where to get one, SearXNG's URL, Wikipedia's
 * language, and a Test button that runs one search with what is typed and shows the result
 * inline.
 */
export function SearchSettings(props: SearchSettingsProps) {
  const { providers, form, onChange, searxngUrl, onSearxngUrl, storedProvider, storedProblem, errors, disabled, setBy = {} } = props;
  const { t } = useTranslation('settings');
  const p = providers.find((x) => x.id === form.provider) ?? providers[0];
  if (p === undefined) return null;
  const typedKey = form.keys[p.id] ?? '';
  const clearing = form.clear.includes(p.id);
  const keyStored = p.key_stored && !clearing;

  const err = (field: string) => errors[field];
  const describe = (field: string) => ({
    'aria-invalid': Boolean(err(field)),
    'aria-describedby': err(field) ? `err-${field.replace(/\./g, '-')}` : undefined,
  });
  const fieldError = (field: string) =>
    err(field) ? (
      <p className="field-error" id={`err-${field.replace(/\./g, '-')}`} role="alert">
        {err(field)}
      </p>
    ) : null;
  const keyField = `search.keys.${p.id}`;
  const note = (field: string) => {
    const text = setByNote(setBy, field);
    return text === '' ? null : (
      <span className="hint set-by" data-set-by={field}>
        {text}
      </span>
    );
  };


  return (
    <fieldset disabled={disabled}>
      <legend>{t('search.legend')}</legend>
      <label className="field">
        <span className="label">{t('search.provider')}</span>
        <select
          className="input"
          value={p.id}
          disabled={note('search.provider') !== null}
          onChange={(e) => onChange({ ...form, provider: e.target.value })}
          {...describe('search.provider')}
        >
          {providers.map((x) => (
            <option key={x.id} value={x.id}>
              {x.name} — {providerNeeds(x)}
            </option>
          ))}
        </select>
        {note('search.provider')}
        {p.id === storedProvider && storedProblem !== '' ? <span className="hint warn">{storedProblem}</span> : null}
        {fieldError('search.provider')}
      </label>
      {p.needs_key ? (
        <label className="field">
          <span className="label">
            {t('search.apiKey', { name: p.name })}
            {keyStored ? <span className="badge badge-ok">{t('stored')}</span> : null}
          </span>
          <input
            className="input"
            type="password"
            value={typedKey}
            autoComplete="off"
            placeholder={note(keyField) !== null ? t('setForSession') : keyStored ? t('storedKeep') : t('search.pasteKey')}
            readOnly={note(keyField) !== null}
            onChange={(e) => onChange({ ...form, keys: { ...form.keys, [p.id]: e.target.value } })}
            {...describe(keyField)}
          />
          {note(keyField)}
          {p.key_stored && note(keyField) === null ? (
            <label className="check small">
              <input
                type="checkbox"
                checked={clearing}
                onChange={(e) =>
                  onChange({ ...form, clear: e.target.checked ? [...form.clear, p.id] : form.clear.filter((id) => id !== p.id) })
                }
              />
              {t('removeStoredKey')}
            </label>
          ) : null}
          {p.key_url !== '' ? (
            <span className="hint">
              {t('search.getKeyAt')}{' '}
              <button type="button" className="link-like" onClick={() => openExternal(p.key_url)}>
                {p.key_url.replace(/^https?:\/\//, '')}
              </button>
              {t('search.keyStoredWhere')}
            </span>
          ) : null}
          {fieldError(keyField)}
          {fieldError('search.keys')}
        </label>
      ) : null}
      {p.needs_url ? (
        <label className="field">
          <span className="label">{t('search.searxngUrl')}</span>
          <input
            className="input"
            type="url"
            value={searxngUrl}
            placeholder="http://localhost:8888"
            spellCheck={false}
            readOnly={note('searxng_url') !== null}
            onChange={(e) => onSearxngUrl(e.target.value)}
            {...describe('searxng_url')}
          />
          {note('searxng_url')}
          <span className="hint">{t('search.searxngInstanceHint')}</span>
          {fieldError('searxng_url')}
        </label>
      ) : null}
      {p.id === 'wikipedia' ? (
        <label className="field">
          <span className="label">{t('search.wikipediaLanguage')}</span>
          <input
            className="input input-narrow"
            value={form.language}
            placeholder={t('search.auto')}
            spellCheck={false}
            onChange={(e) => onChange({ ...form, language: e.target.value })}
            {...describe('search.language')}
          />
          <span className="hint">{t('search.wikipediaHint')}</span>
          {fieldError('search.language')}
        </label>
      ) : null}
      <SearchTest provider={p} apiKey={clearing ? '' : typedKey} searxngUrl={searxngUrl} language={form.language} disabled={disabled} />
    </fieldset>
  );
}

/** Props of SearchTest. */
interface SearchTestProps {
  provider: SearchProvider;
  /** The key typed ("" = the stored one, or none when it is being removed). */
  apiKey: string;
  searxngUrl: string;
  language: string;
  disabled: boolean;
}

/**
 * The "Test <provider>" button: one search for "test" with what is typed, then the result
 * count and latency or the error inline, cleared when the provider, key, URL or language
 * change.
 */
function SearchTest({ provider: p, apiKey, searxngUrl, language, disabled }: SearchTestProps) {
  const { t } = useTranslation('settings');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ for: string; r: SearchTestResult } | null>(null);
  const testKey = `${p.id}\n${apiKey}\n${searxngUrl}\n${language}`;
  const shown = result !== null && result.for === testKey ? result.r : null;
  const run = () => {
    setBusy(true);
    testSearch(p.id, apiKey.trim(), p.needs_url ? searxngUrl.trim() : '').then(
      (r) => {
        setBusy(false);
        setResult({ for: testKey, r });
      },
      (e: unknown) => {
        setBusy(false);
        setResult({ for: testKey, r: { ok: false, provider: p.id, results: 0, latency_ms: 0, error: e instanceof Error ? e.message : String(e) } });
      },
    );
  };
  return (
    <div className="test-row">
      <button type="button" className="btn btn-sm" onClick={run} disabled={disabled || busy}>
        {busy ? <Spinner size={12} /> : null}
        {t('search.test', { name: p.name })}
      </button>
      <span
        className={`test-result ${shown === null ? '' : shown.ok ? 'ok' : 'err'}`}
        role="status"
        aria-live="polite"
        title={shown !== null && !shown.ok && shown.error !== searchTestText(shown) ? shown.error : undefined}
      >
        {busy ? t('search.testing') : shown === null ? '' : searchTestText(shown)}
      </span>
    </div>
  );
}
