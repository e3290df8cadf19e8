import { useEffect, useState, type SyntheticEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { DEFAULT_MAX_UPLOAD_MB, getSettings, saveSettings, toApiError, type Settings, type SettingsInput } from '../api';
import { agentTexts, EMPTY_AGENT_TEXTS, parseAgentTexts, searchInputOf, setByNote, type AgentTexts, type SearchForm } from '../settings-form';
import { Spinner } from './icons';
import { Modal } from './Modal';
import { useConversationSettingsForm } from './ConversationSettings';
import { AgentModelFields, ConnectionTest, PresetPicker, useModelList, usePresets } from './ModelSettings';
import { SearchSettings } from './SearchSettings';
import { LanguageSettings } from './LanguageSettings';
import { i18n } from '../i18n';
import { setRemoteImages } from '../remote-images';

/** The agent fields errors can name, after "lead." or "sub_agents.". */
const AGENT_FIELDS = ['model', 'tool_call_mode', 'context_window', 'temperature', 'top_p', 'max_tokens'] as const;

/**
 * A settings field that validation errors can name: a top-level field, an agent's
 * (`lead.temperature`, `sub_agents.max_tokens` ...) or a search field (`search.provider`,
 * `search.language`, `search.keys`, `search.keys.<provider>`).
 */
export type SettingsField =
  | 'base_url'
  | 'api_key'
  | 'model'
  | 'tool_call_mode'
  | 'searxng_url'
  | 'max_upload_mb'
  | `${'lead' | 'sub_agents'}.${(typeof AGENT_FIELDS)[number]}`
  | 'search.provider'
  | 'search.language'
  | 'search.keys'
  | `search.keys.${string}`;

const TOP_FIELDS = ['base_url', 'api_key', 'model', 'tool_call_mode', 'searxng_url', 'max_upload_mb'] as const;

/** Reports whether `name` is a field the dialog shows errors for (see SettingsField). */
export function isSettingsField(name: string): name is SettingsField {
  if ((TOP_FIELDS as readonly string[]).includes(name)) return true;
  const agent = /^(lead|sub_agents)\.([a-z_]+)$/.exec(name);
  if (agent) return (AGENT_FIELDS as readonly string[]).includes(agent[2] ?? '');
  return name === 'search.provider' || name === 'search.language' || name === 'search.keys' || /^search\.keys\.[a-z0-9_-]+$/.test(name);
}

/** A Save error split into per-field messages and the rest. */
export interface SettingsErrors {
  fields: Partial<Record<SettingsField, string>>;
  /** Text that names no field ("" when every part did). */
  general: string;
}

/**
 * Sorts a Save error into per-field messages by its code's fields (ApiError.fields, from
 * config.InvalidError: "base_url", "lead.temperature", …), never by splitting its text:
 * each field the dialog knows (SettingsField) goes to that field, the others into
 * `general` as "<field>: <message>"; an error without known fields is all `general`.
 */
export function parseSettingsErrors(e: unknown): SettingsErrors {
  const err = toApiError(e);
  const fields: Partial<Record<SettingsField, string>> = {};
  const rest: string[] = [];
  for (const [name, msg] of Object.entries(err.fields)) {
    if (isSettingsField(name)) fields[name] = msg;
    else rest.push(name === '' ? msg : `${name}: ${msg}`);
  }
  if (Object.keys(fields).length === 0) return { fields, general: err.message };
  return { fields, general: rest.join('; ') };
}

/** The largest upload limit the backend accepts, in MiB (config.MaxUploadMBLimit). */
export const MAX_UPLOAD_MB_LIMIT = 1024;

/** Parses the upload-limit field: a whole number of MiB from 1 to 1024, else null. */
export function parseUploadLimit(text: string): number | null {
  const t = text.trim();
  if (!/^\d+$/.test(t)) return null;
  const v = Number(t);
  return v >= 1 && v <= MAX_UPLOAD_MB_LIMIT ? v : null;
}

/** The per-agent sections and the search choice as typed, beside SettingsInput. */
export interface ExtraForm {
  lead: AgentTexts;
  sub: AgentTexts;
  search: SearchForm;
}

/** The extra form for stored settings: their agents' fields and search choice, no key typed. */
export function extraFormOf(s: Settings): ExtraForm {
  return {
    lead: agentTexts(s.lead),
    sub: agentTexts(s.sub_agents),
    search: { provider: s.search.provider, keys: {}, clear: [], language: s.search.language },
  };
}

/**
 * Builds what Save sends from the form: `base` with the upload limit as typed, the
 * per-agent sections parsed and the search input (only keys typed; removals). Returns the
 * errors instead (by field name) when a field is not valid, so nothing is sent.
 */
export function buildSettingsInput(
  base: SettingsInput,
  limitText: string,
  extra: ExtraForm,
): { input: SettingsInput; errors: null } | { input: null; errors: Partial<Record<SettingsField, string>> } {
  const errors: Record<string, string> = {};
  const limit = parseUploadLimit(limitText);
  if (limit === null) errors.max_upload_mb = i18n.t('settings:validation.uploadLimit', { max: MAX_UPLOAD_MB_LIMIT });
  const lead = parseAgentTexts('lead', extra.lead);
  const sub = parseAgentTexts('sub_agents', extra.sub);
  Object.assign(errors, lead.errors, sub.errors);
  if (Object.keys(errors).length > 0 || limit === null) return { input: null, errors };
  return {
    input: { ...base, max_upload_mb: limit, search: searchInputOf(extra.search), lead: lead.value, sub_agents: sub.value },
    errors: null,
  };
}

/** Props of SettingsDialog. */
export interface SettingsDialogProps {
  onClose: () => void;
  /** Called with the stored settings after a successful save. */
  onSaved: (s: Settings) => void;
}

/** The id of the datalist of the endpoint's models, shared by every model field. */
const MODELS_LIST_ID = 'endpoint-models';

/**
 * The settings dialog: endpoint preset, base URL, API key (never shown; "stored" when one
 * is set and an empty field keeps it), model (with the endpoint's /v1/models list as
 * suggestions) and "Test connection", tool-call mode; the lead's and the sub-agents' own
 * models and sampling; the web search provider with its key, URL or language and a Test
 * button; the private-network switch, upload limit, model context and tools. Save shows the
 * backend's validation error next to the field it names. The Language section switches the
 * UI's language at once (LanguageSettings). Every text is in the UI's language.
 */
export function SettingsDialog({ onClose, onSaved }: SettingsDialogProps) {
  const { t } = useTranslation('settings');
  const [loaded, setLoaded] = useState<Settings | null>(null);
  const [loadError, setLoadError] = useState('');
  const [form, setForm] = useState<SettingsInput>({
    base_url: '',
    api_key: '',
    clear_api_key: false,
    model: '',
    tool_call_mode: 'native',
    searxng_url: '',
    allow_private_network: false,
    max_upload_mb: DEFAULT_MAX_UPLOAD_MB,
    load_remote_images: 'ask',
  });
  const [extraForm, setExtraForm] = useState<ExtraForm>({
    lead: EMPTY_AGENT_TEXTS,
    sub: EMPTY_AGENT_TEXTS,
    search: { provider: 'duckduckgo', keys: {}, clear: [], language: '' },
  });
  // The upload limit as typed (validated on save; the backend accepts 1–1024).
  const [limitText, setLimitText] = useState(String(DEFAULT_MAX_UPLOAD_MB));
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<SettingsErrors | null>(null);
  const [saved, setSaved] = useState(false);
  const extra = useConversationSettingsForm(loaded === null, form.model);
  const presets = usePresets();
  // A key typed wins over "Remove the stored key", as on save; with it ticked the stored key is never sent.
  const modelList = useModelList(form.base_url, form.api_key, form.clear_api_key, loaded !== null);

  useEffect(() => {
    let stale = false;
    getSettings().then(
      (s) => {
        if (stale) return;
        setLoaded(s);
        setForm({
          base_url: s.base_url,
          api_key: '',
          clear_api_key: false,
          model: s.model,
          tool_call_mode: s.tool_call_mode || 'native',
          searxng_url: s.searxng_url,
          allow_private_network: s.allow_private_network,
          max_upload_mb: s.max_upload_mb,
          load_remote_images: s.load_remote_images,
        });
        setExtraForm(extraFormOf(s));
        setLimitText(String(s.max_upload_mb));
      },
      (e: unknown) => {
        if (!stale) setLoadError(e instanceof Error ? e.message : String(e));
      },
    );
    return () => {
      stale = true;
    };
  }, []);

  const clearErrors = (...names: string[]) => {
    setSaved(false);
    if (!error) return;
    const fields = Object.fromEntries(Object.entries(error.fields).filter(([k]) => !names.includes(k)));
    setError({ ...error, fields });
  };
  const set = <K extends keyof SettingsInput>(k: K, v: SettingsInput[K]) => {
    setForm((f) => ({ ...f, [k]: v }));
    clearErrors(k);
  };
  const setAgent = (which: 'lead' | 'sub', t: AgentTexts) => {
    setExtraForm((x) => ({ ...x, [which]: t }));
    const kind = which === 'lead' ? 'lead' : 'sub_agents';
    clearErrors(...AGENT_FIELDS.map((f) => `${kind}.${f}`));
  };
  const setSearch = (search: SearchForm) => {
    setExtraForm((x) => ({ ...x, search }));
    clearErrors('search.provider', 'search.language', 'search.keys', `search.keys.${search.provider}`);
  };

  const submit = (e: SyntheticEvent) => {
    e.preventDefault();
    const built = buildSettingsInput({ ...form, ...extra.input }, limitText, extraForm);
    if (built.input === null) {
      setError({ fields: built.errors, general: '' });
      return;
    }
    setSaving(true);
    setError(null);
    saveSettings(built.input).then(
      (s) => {
        extra.saved();
        setRemoteImages(s.load_remote_images);
        setSaving(false);
        setSaved(true);
        setLoaded(s);
        setForm((f) => ({ ...f, api_key: '', clear_api_key: false }));
        setExtraForm(extraFormOf(s));
        onSaved(s);
      },
      (err: unknown) => {
        setSaving(false);
        setError(parseSettingsErrors(err));
      },
    );
  };

  const errorOf = (f: SettingsField) => error?.fields[f];
  const fieldError = (f: SettingsField) =>
    errorOf(f) ? (
      <p className="field-error" id={`err-${f}`} role="alert">
        {errorOf(f)}
      </p>
    ) : null;
  const invalid = (f: SettingsField) => ({
    'aria-invalid': Boolean(errorOf(f)),
    'aria-describedby': errorOf(f) ? `err-${f}` : undefined,
  });

  const keyStored = loaded?.api_key_set === true && !form.clear_api_key;
  // Fields a flag or OPENAI_API_KEY sets this session: read-only, with the note saying which (issue 10, item 6).
  const setBy = loaded?.set_by ?? {};
  const locked = (f: string) => setByNote(setBy, f) !== '';
  const lockNote = (f: string) =>
    locked(f) ? (
      <span className="hint set-by" data-set-by={f}>
        {setByNote(setBy, f)}
      </span>
    ) : null;
  const errorMap: Record<string, string | undefined> = error?.fields ?? {};
  const examplePlaceholder = presets.find((p) => p.base_url === form.base_url)?.example_model;

  return (
    <Modal
      title={t('title')}
      onClose={onClose}
      className="modal-settings"
      footer={
        <>
          {saved ? <span className="saved-note">{t('saved')}</span> : null}
          <button type="button" className="btn" onClick={onClose}>
            {t('common:close')}
          </button>
          <button type="submit" form="settings-form" className="btn btn-primary" disabled={saving || loaded === null || extra.pending}>
            {saving ? <Spinner size={13} /> : null}
            {t('common:save')}
          </button>
        </>
      }
    >
      {loadError ? (
        <p className="field-error" role="alert">
          {t('loadFailed', { error: loadError })}
        </p>
      ) : null}
      <form id="settings-form" className="settings" onSubmit={submit} noValidate>
        {error?.general ? (
          <div className="form-error" role="alert">
            {error.general}
          </div>
        ) : null}
        <datalist id={MODELS_LIST_ID}>
          {modelList.models.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
        <p className="hint">{t('applyNext')}</p>
        <LanguageSettings />
        <fieldset disabled={loaded === null}>
          <legend>{t('model.legend')}</legend>
          {locked('base_url') ? null : <PresetPicker presets={presets} baseUrl={form.base_url} onPick={(p) => set('base_url', p.base_url)} />}
          <label className="field">
            <span className="label">{t('model.baseUrl')}</span>
            <input
              className="input"
              type="url"
              value={form.base_url}
              placeholder="https://api.openai.com/v1"
              spellCheck={false}
              readOnly={locked('base_url')}
              onChange={(e) => set('base_url', e.target.value)}
              {...invalid('base_url')}
            />
            {lockNote('base_url') ?? <span className="hint">{t('model.baseUrlHint')}</span>}
            {fieldError('base_url')}
          </label>
          <label className="field">
            <span className="label">
              {t('model.apiKey')}
              {keyStored ? <span className="badge badge-ok">{t('stored')}</span> : null}
            </span>
            <input
              className="input"
              type="password"
              value={form.api_key}
              autoComplete="off"
              placeholder={locked('api_key') ? t('setForSession') : keyStored ? t('storedKeep') : 'sk-…'}
              readOnly={locked('api_key')}
              onChange={(e) => set('api_key', e.target.value)}
              {...invalid('api_key')}
            />
            {lockNote('api_key')}
            {loaded?.api_key_set && !locked('api_key') ? (
              <label className="check small">
                <input
                  type="checkbox"
                  checked={form.clear_api_key}
                  onChange={(e) => set('clear_api_key', e.target.checked)}
                />
                {t('removeStoredKey')}
              </label>
            ) : null}
            {fieldError('api_key')}
          </label>
          <label className="field">
            <span className="label">{t('model.model')}</span>
            <input
              className="input"
              list={MODELS_LIST_ID}
              value={form.model}
              placeholder={examplePlaceholder ?? 'gpt-4o-mini'}
              spellCheck={false}
              autoComplete="off"
              readOnly={locked('model')}
              onChange={(e) => set('model', e.target.value)}
              {...invalid('model')}
            />
            {lockNote('model')}
            <span className="hint">
              {modelList.loading
                ? t('model.listing')
                : modelList.models.length > 0
                  ? t('model.offered', { count: modelList.models.length })
                  : modelList.error !== ''
                    ? t('model.listFailed', { error: modelList.error })
                    : t('model.modelHint')}
            </span>
            {fieldError('model')}
          </label>
          <ConnectionTest
            baseUrl={form.base_url}
            apiKey={form.api_key}
            noStoredKey={form.clear_api_key}
            model={form.model}
            disabled={loaded === null}
          />
          <div className="field" role="radiogroup" aria-label={t('model.toolCallMode')}>
            <span className="label">{t('model.toolCallMode')}</span>
            <div className="segmented">
              {(['native', 'xml'] as const).map((m) => (
                <label key={m} className={form.tool_call_mode === m ? 'active' : ''}>
                  <input
                    type="radio"
                    name="tool_call_mode"
                    value={m}
                    checked={form.tool_call_mode === m}
                    disabled={locked('tool_call_mode')}
                    onChange={() => set('tool_call_mode', m)}
                  />
                  {m === 'native' ? t('mode.native') : t('mode.xml')}
                </label>
              ))}
            </div>
            {lockNote('tool_call_mode') ?? <span className="hint">{t('model.modeHint')}</span>}
            {fieldError('tool_call_mode')}
          </div>
        </fieldset>
        <AgentModelFields
          kind="lead"
          texts={extraForm.lead}
          onChange={(t) => setAgent('lead', t)}
          modelSetBy={setByNote(setBy, 'lead.model')}
          inheritedModel={form.model.trim()}
          inheritedMode={form.tool_call_mode}
          listId={MODELS_LIST_ID}
          errors={errorMap}
          disabled={loaded === null}
        />
        <AgentModelFields
          kind="sub_agents"
          texts={extraForm.sub}
          onChange={(t) => setAgent('sub', t)}
          modelSetBy={setByNote(setBy, 'sub_agents.model')}
          inheritedModel={form.model.trim()}
          inheritedMode={form.tool_call_mode}
          listId={MODELS_LIST_ID}
          errors={errorMap}
          disabled={loaded === null}
        />
        {loaded !== null && loaded.search_providers.length > 0 ? (
          <SearchSettings
            providers={loaded.search_providers}
            form={extraForm.search}
            onChange={setSearch}
            searxngUrl={form.searxng_url}
            onSearxngUrl={(u) => set('searxng_url', u)}
            storedProvider={loaded.search.provider}
            storedProblem={loaded.search_ready ? '' : loaded.search_problem}
            setBy={loaded.set_by}
            errors={errorMap}
            disabled={false}
          />
        ) : (
          <fieldset disabled={loaded === null}>
            <legend>{t('search.legend')}</legend>
            <label className="field">
              <span className="label">{t('search.searxngUrl')}</span>
              <input
                className="input"
                type="url"
                value={form.searxng_url}
                placeholder="http://localhost:8888"
                spellCheck={false}
                onChange={(e) => set('searxng_url', e.target.value)}
                {...invalid('searxng_url')}
              />
              <span className="hint">{t('search.searxngHint')}</span>
              {fieldError('searxng_url')}
            </label>
          </fieldset>
        )}
        <fieldset disabled={loaded === null}>
          <legend>{t('pages.legend')}</legend>
          <label className="check">
            <input
              type="checkbox"
              checked={form.allow_private_network}
              disabled={locked('allow_private_network')}
              onChange={(e) => set('allow_private_network', e.target.checked)}
            />
            <span>
              {t('pages.allowPrivate')}
              <span className="hint block">{t('pages.allowPrivateHint')}</span>
              {lockNote('allow_private_network')}
            </span>
          </label>
        </fieldset>
        <fieldset disabled={loaded === null}>
          <legend>{t('privacy.legend')}</legend>
          <div className="field" role="radiogroup" aria-label={t('privacy.loadImages')}>
            <span className="label">{t('privacy.loadImages')}</span>
            <div className="segmented">
              {(['ask', 'always'] as const).map((m) => (
                <label key={m} className={form.load_remote_images === m ? 'active' : ''}>
                  <input
                    type="radio"
                    name="load_remote_images"
                    value={m}
                    checked={form.load_remote_images === m}
                    onChange={() => set('load_remote_images', m)}
                  />
                  {m === 'ask' ? t('privacy.ask') : t('privacy.always')}
                </label>
              ))}
            </div>
            <span className="hint">{t('privacy.hint')}</span>
          </div>
        </fieldset>
        <fieldset disabled={loaded === null}>
          <legend>{t('files.legend')}</legend>
          <label className="field">
            <span className="label">{t('files.uploadLimit')}</span>
            <span className="input-unit">
              <input
                className="input input-narrow"
                inputMode="numeric"
                value={limitText}
                onChange={(e) => {
                  setLimitText(e.target.value);
                  set('max_upload_mb', parseUploadLimit(e.target.value) ?? form.max_upload_mb);
                }}
                {...invalid('max_upload_mb')}
              />
              <span className="muted">{t('files.perFile')}</span>
            </span>
            <span className="hint">{t('files.hint', { max: MAX_UPLOAD_MB_LIMIT })}</span>
            {fieldError('max_upload_mb')}
          </label>
        </fieldset>
        {extra.sections}
        {loaded?.data_dir ? (
          <p className="hint">
            {t('dataFolder')} <code>{loaded.data_dir}</code>
          </p>
        ) : null}
      </form>
    </Modal>
  );
}
