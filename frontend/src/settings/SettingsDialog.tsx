import { useEffect, useRef, useState, type SyntheticEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { toApiError } from '../api/call';
import { DEFAULT_MAX_UPLOAD_MB, getSettings, saveSettings, type Settings, type SettingsInput } from '../api/settings';
import {
  agentTexts,
  EMPTY_AGENT_TEXTS,
  modelLimitTexts,
  parseAgentTexts,
  parseModelLimits,
  parseProxy,
  parseUploadLimit,
  searchInputOf,
  setByNote,
  type AgentTexts,
  type ModelLimitTexts,
  type SearchForm,
} from './settings-form';
import { Spinner } from '../shared/icons';
import { Modal } from '../shared/Modal';
import { useConversationSettingsForm } from './ConversationSettings';
import { AgentModelFields, LocalServers, ModelLimitFields, useLocalServers, useModelList, usePresets } from './ModelSettings';
import { ModelSection, OtherSections, SearxngSection, type FieldKit } from './SettingsSections';
import { SearchSettings } from './SearchSettings';
import { LanguageSettings } from './LanguageSettings';
import { AgentsSection } from './AgentsSection';
import { DataSettings } from './DataSettings';
import { ToolsSettings } from './ToolsSettings';
import { SettingsNav } from './SettingsNav';
import './settings.css';
import { i18n } from '../i18n/i18n';
import { setRemoteImages } from '../markdown/remote-images';

/** The agent fields errors can name, after "lead." or "sub_agents.". */
const AGENT_FIELDS = ['model', 'base_url', 'api_key', 'tool_call_mode', 'context_window', 'temperature', 'top_p', 'max_tokens'] as const;

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
  | 'proxy'
  | 'max_upload_mb'
  | 'model_idle_timeout_seconds'
  | 'max_answer_mb'
  | 'max_parallel_tool_calls'
  | `${'lead' | 'sub_agents'}.${(typeof AGENT_FIELDS)[number]}`
  | 'search.provider'
  | 'search.language'
  | 'search.keys'
  | `search.keys.${string}`;

const TOP_FIELDS = ['base_url', 'api_key', 'model', 'tool_call_mode', 'searxng_url', 'proxy', 'max_upload_mb', 'model_idle_timeout_seconds', 'max_answer_mb', 'max_parallel_tool_calls'] as const;

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

export { parseUploadLimit } from './settings-form';

/** The per-agent sections and the search choice as typed, beside SettingsInput. */
export interface ExtraForm {
  lead: AgentTexts;
  sub: AgentTexts;
  search: SearchForm;
  /** The model call limits as typed; left out, the stored ones are kept. */
  limits?: ModelLimitTexts;
  /** The largest upload limit Save accepts, in MiB (Settings.max_upload_mb_limit); 0 or left out: unknown. */
  maxUploadMb?: number;
}

/** The extra form for stored settings: their agents' fields and search choice, no key typed. */
export function extraFormOf(s: Settings): ExtraForm {
  return {
    lead: agentTexts(s.lead),
    sub: agentTexts(s.sub_agents),
    search: { provider: s.search.provider, keys: {}, clear: [], language: s.search.language },
    limits: modelLimitTexts(s),
    maxUploadMb: s.max_upload_mb_limit,
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
  const maxUpload = extra.maxUploadMb ?? 0;
  const limit = parseUploadLimit(limitText, maxUpload);
  if (limit === null) {
    errors.max_upload_mb = maxUpload > 0 ? i18n.t('settings:validation.uploadLimit', { max: maxUpload }) : i18n.t('settings:validation.uploadLimitAny');
  }
  const proxy = base.proxy === undefined ? undefined : parseProxy(base.proxy);
  if (proxy === null) errors.proxy = i18n.t('settings:validation.proxy');
  const lead = parseAgentTexts('lead', extra.lead);
  const sub = parseAgentTexts('sub_agents', extra.sub);
  const limits = extra.limits ? parseModelLimits(extra.limits) : null;
  Object.assign(errors, lead.errors, sub.errors, limits?.errors);
  if (Object.keys(errors).length > 0 || limit === null) return { input: null, errors };
  return {
    input: { ...base, proxy: proxy ?? undefined, max_upload_mb: limit, search: searchInputOf(extra.search), lead: lead.value, sub_agents: sub.value, ...limits?.value },
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
 * The settings dialog's state: the stored settings once loaded, the form as typed (with the
 * agents' sections, the search choice and the upload limit as text), the Save in progress and
 * its errors by field, and the helpers the sections use (FieldKit). submit validates, saves
 * and calls onSaved with what the backend stored.
 */
function useSettingsForm(onSaved: (s: Settings) => void) {
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
    proxy: '',
  });
  const [extraForm, setExtraForm] = useState<ExtraForm>({
    lead: EMPTY_AGENT_TEXTS,
    sub: EMPTY_AGENT_TEXTS,
    search: { provider: 'duckduckgo', keys: {}, clear: [], language: '' },
    limits: { idle: '', answer: '', parallel: '' },
  });
  // The upload limit as typed (validated on save against Settings.max_upload_mb_limit).
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
          proxy: s.proxy,
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
  const setLimits = (limits: ModelLimitTexts) => {
    setExtraForm((x) => ({ ...x, limits }));
    clearErrors('model_idle_timeout_seconds', 'max_answer_mb', 'max_parallel_tool_calls');
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
    // The version the dialog shows: only the fields changed since are written.
    saveSettings({ ...built.input, revision: loaded?.revision ?? '' }).then(
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

  // Fields a flag or OPENAI_API_KEY sets this session: read-only, with the note saying
  // which.
  const setBy = loaded?.set_by ?? {};
  const locked = (f: string) => setByNote(setBy, f) !== '';
  const lockNote = (f: string) =>
    locked(f) ? (
      <span className="hint set-by" data-set-by={f}>
        {setByNote(setBy, f)}
      </span>
    ) : null;
  const errorMap: Record<string, string | undefined> = error?.fields ?? {};
  const kit: FieldKit = { set, fieldError, invalid, locked, lockNote, disabled: loaded === null };

  return { loaded, loadError, form, extraForm, limitText, setLimitText, saving, error, saved, extra, presets, modelList, submit, kit, set, setAgent, setSearch, setLimits, setBy, errorMap };
}

/**
 * The settings dialog: endpoint preset, base URL, API key (never shown; "stored" when one
 * is set and an empty field keeps it), model (with the endpoint's /v1/models list as
 * suggestions) and "Test connection", tool-call mode; the lead's and the sub-agents' own
 * models and sampling; the web search provider with its key, URL or language and a Test
 * button; the private-network switch, upload limit, model context and tools. Save shows the
 * backend's validation error next to the field it names. The Language section switches the
 * UI's language at once (LanguageSettings). Agents, under the form, lists the built-in
 * agents and edits the user's agent files, each saved on its own (AgentsSection). Every text
 * is in the UI's language.
 */
export function SettingsDialog({ onClose, onSaved }: SettingsDialogProps) {
  const { t } = useTranslation('settings');
  const { loaded, loadError, form, extraForm, limitText, setLimitText, saving, error, saved, extra, presets, modelList, submit, kit, set, setAgent, setSearch, setLimits, setBy, errorMap } = useSettingsForm(onSaved);
  // First launch (no model set): look for local servers at once; otherwise on "Find local servers".
  const canUseLocal = !kit.locked('base_url');
  const formRef = useRef<HTMLDivElement>(null);
  const local = useLocalServers(canUseLocal && loaded !== null && loaded.model === '');
  const useLocal = (baseUrl: string, model: string) => {
    set('base_url', baseUrl);
    if (model !== '' && !kit.locked('model')) set('model', model);
  };
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
      <div className="settings-layout">
        <div ref={formRef} className="settings-main">
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
            <ModelSection
              form={form}
              kit={kit}
              presets={presets}
              modelList={modelList}
              apiKeySet={loaded?.api_key_set === true}
              listId={MODELS_LIST_ID}
              localServers={canUseLocal ? <LocalServers result={local.result} onFind={local.find} onUse={useLocal} disabled={loaded === null} /> : null}
            />
            <AgentModelFields
              kind="lead"
              texts={extraForm.lead}
              onChange={(t) => setAgent('lead', t)}
              modelSetBy={setByNote(setBy, 'lead.model')}
              apiKeySet={loaded?.lead.api_key_set === true}
              inheritedBaseUrl={form.base_url.trim()}
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
              apiKeySet={loaded?.sub_agents.api_key_set === true}
              inheritedBaseUrl={form.base_url.trim()}
              inheritedModel={form.model.trim()}
              inheritedMode={form.tool_call_mode}
              listId={MODELS_LIST_ID}
              errors={errorMap}
              disabled={loaded === null}
            />
            <ModelLimitFields texts={extraForm.limits ?? { idle: '', answer: '', parallel: '' }} onChange={setLimits} errors={errorMap} disabled={loaded === null} />
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
              <SearxngSection form={form} kit={kit} />
            )}
            <OtherSections
              form={form}
              kit={kit}
              limitText={limitText}
              onLimitText={setLimitText}
              maxUploadMb={loaded?.max_upload_mb_limit ?? 0}
              proxyNow={loaded ? { source: loaded.proxy_source, proxy: loaded.proxy_in_effect } : null}
            />
            {extra.sections}
            <ToolsSettings />
            <DataSettings dataDir={loaded?.data_dir ?? ''} />
          </form>
          <AgentsSection />
        </div>
        <SettingsNav formRef={formRef} />
      </div>
    </Modal>
  );
}
