import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { findLocalServers, getPresets, listModels, testConnection, type ConnectionResult, type EndpointPreset, type LocalServer } from '../api/settings';
import { connectionText, MODEL_LIMITS, presetOf, troubleText, type AgentKind, type AgentMode, type AgentTexts, type ModelLimitTexts } from './settings-form';
import { toApiError } from '../api/call';
import { errorMessage } from '../shared/errors';
import { Spinner } from '../shared/icons';
import './settings.css';

/** How long the model list waits after the base URL or key was typed before asking the endpoint. */
export const MODEL_LIST_DELAY_MS = 500;

/** The endpoint's models as the model fields suggest them. */
export interface ModelList {
  models: string[];
  /** Why the list could not be had, in the UI's language ("" when it could, or was not asked for). */
  error: string;
  /** The backend's own error text behind `error` ("" when none), for a tooltip. */
  detail: string;
  loading: boolean;
}

/**
 * Why the model list could not be had, in the UI's language: the failure's kind from the
 * error's fields (app.Trouble: "The endpoint refused the API key (HTTP 401) …", "Ollama is not
 * running at …"), else what its code means ("The model could not be reached."), else its
 * message; with the backend's text as the detail.
 */
export function modelListError(e: unknown): { error: string; detail: string } {
  const err = toApiError(e);
  const f = err.fields;
  const status = Number(f.status ?? '');
  const trouble = troubleText({ kind: f.reason, host: f.host, server: f.server, status: Number.isFinite(status) && status > 0 ? status : undefined });
  const detail = err.detail || err.message;
  if (trouble !== '') return { error: trouble, detail };
  const what = errorMessage(err.code);
  return what === '' ? { error: err.message, detail: '' } : { error: what, detail };
}

/**
 * The models the endpoint at `baseUrl` offers (SettingsService.ListModels), asked again
 * MODEL_LIST_DELAY_MS after `baseUrl`, `apiKey` or `noStoredKey` change. apiKey "" uses the
 * stored key, which the backend sends only to the stored endpoint's origin and never when
 * `noStoredKey` is true ("Remove the stored key" ticked). Nothing is asked while `enabled` is false or the base URL is not an http(s) URL; a backend
 * without the method gives an empty list and no error.
 */
export function useModelList(baseUrl: string, apiKey: string, noStoredKey: boolean, enabled: boolean): ModelList {
  const [state, setState] = useState<ModelList>({ models: [], error: '', detail: '', loading: false });
  const url = baseUrl.trim();
  const ok = enabled && /^https?:\/\/[^/\s]+/i.test(url);
  useEffect(() => {
    if (!ok) return;
    let stale = false;
    const timer = setTimeout(() => {
      setState((s) => ({ ...s, loading: true }));
      listModels(url, apiKey.trim(), noStoredKey).then(
        (models) => {
          if (!stale) setState({ models, error: '', detail: '', loading: false });
        },
        (e: unknown) => {
          if (stale) return;
          const err = e as { code?: string; message?: string };
          const quiet = err.code === 'unsupported' || err.code === 'unavailable';
          setState({ models: [], ...(quiet ? { error: '', detail: '' } : modelListError(e)), loading: false });
        },
      );
    }, MODEL_LIST_DELAY_MS);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [ok, url, apiKey, noStoredKey]);
  return ok ? state : { models: [], error: '', detail: '', loading: false };
}

/** The endpoint presets (SettingsService.Presets); empty until they arrive or when the backend has none. */
export function usePresets(): EndpointPreset[] {
  const [presets, setPresets] = useState<EndpointPreset[]>([]);
  useEffect(() => {
    let stale = false;
    getPresets().then(
      (p) => {
        if (!stale) setPresets(p);
      },
      () => undefined,
    );
    return () => {
      stale = true;
    };
  }, []);
  return presets;
}

/** Props of PresetPicker. */
export interface PresetPickerProps {
  presets: readonly EndpointPreset[];
  baseUrl: string;
  /** Called with the chosen preset: the dialog fills the base URL from it. */
  onPick: (p: EndpointPreset) => void;
}

/**
 * The endpoint preset picker (a preset fills the base URL): shows the preset the base URL
 * is, or "Custom"; choosing one calls onPick.
 */
export function PresetPicker({ presets, baseUrl, onPick }: PresetPickerProps) {
  const { t } = useTranslation('settings');
  if (presets.length === 0) return null;
  const current = presetOf(baseUrl, presets);
  return (
    <label className="field">
      <span className="label">{t('preset.label')}</span>
      <select
        className="input"
        value={current?.name ?? ''}
        onChange={(e) => {
          const p = presets.find((x) => x.name === e.target.value);
          if (p) onPick(p);
        }}
      >
        <option value="">{t('preset.custom')}</option>
        {presets.map((p) => (
          <option key={p.name} value={p.name}>
            {p.name} — {p.base_url}
          </option>
        ))}
      </select>
      <span className="hint">{t('preset.hint')}</span>
    </label>
  );
}

/** Props of ConnectionTest. */
export interface ConnectionTestProps {
  baseUrl: string;
  /** The key typed ("" = the stored one, sent only to the stored endpoint's origin). */
  apiKey: string;
  /** Send no stored key at all ("Remove the stored key" is ticked). */
  noStoredKey?: boolean;
  model: string;
  disabled?: boolean;
}

/**
 * The "Test connection" button: one call of one token to the endpoint and model as typed,
 * then the latency or the exact error inline. The result is cleared when the endpoint, key
 * or model change. While it cannot run (no base URL or no model typed, the settings not
 * loaded) it says why beside it, and in its tooltip.
 */
export function ConnectionTest({ baseUrl, apiKey, noStoredKey = false, model, disabled }: ConnectionTestProps) {
  const { t } = useTranslation('settings');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ for: string; r: ConnectionResult } | null>(null);
  const key = `${baseUrl}\n${apiKey}\n${String(noStoredKey)}\n${model}`;
  const shown = result !== null && result.for === key ? result.r : null;
  const run = () => {
    setBusy(true);
    testConnection(baseUrl.trim(), apiKey.trim(), model.trim(), noStoredKey).then(
      (r) => {
        setBusy(false);
        setResult({ for: key, r });
      },
      (e: unknown) => {
        setBusy(false);
        const message = e instanceof Error ? e.message : String(e);
        setResult({ for: key, r: { ok: false, latency_ms: 0, error: message, endpoint: baseUrl, model } });
      },
    );
  };
  const why = disabled ? t('test.whyLoading') : baseUrl.trim() === '' ? t('test.whyBaseUrl') : model.trim() === '' ? t('test.whyModel') : '';
  return (
    <div className="test-row">
      <button type="button" className="btn btn-sm" onClick={run} disabled={why !== '' || busy} title={why || undefined}>
        {busy ? <Spinner size={12} /> : null}
        {t('test.connection')}
      </button>
      <span
        className={`test-result ${shown === null ? (why === '' ? '' : 'why') : shown.ok ? 'ok' : 'err'}`}
        role="status"
        aria-live="polite"
        title={shown !== null && !shown.ok && shown.error !== connectionText(shown) ? shown.error : undefined}
      >
        {busy ? t('test.calling') : shown === null ? why : connectionText(shown)}
      </span>
    </div>
  );
}


/** Props of AgentModelFields. */
export interface AgentModelFieldsProps {
  kind: AgentKind;
  texts: AgentTexts;
  onChange: (t: AgentTexts) => void;
  /** The model and mode the agent inherits when its own are empty (the model above). */
  inheritedModel: string;
  inheritedMode: string;
  /** The id of the datalist of the endpoint's models. */
  listId: string;
  /** Errors by the backend's field names ("lead.temperature"). */
  errors: Record<string, string | undefined>;
  disabled: boolean;
  /** The note when a flag sets this agent's model for the session (setByNote); the field is then read-only. */
  modelSetBy?: string;
  /** A key of the agent's own is stored (config.json); the key itself is never shown. */
  apiKeySet?: boolean;
  /** The base URL above, which the agent's own base URL field shows as its placeholder. */
  inheritedBaseUrl?: string;
}

/**
 * One agent's model section: model (empty = the model above), tool-call mode, context
 * window, temperature, top_p and max tokens (empty = not sent). Each field's accessible
 * name starts with the agent ("Lead agent: temperature"), and its error (by the backend's
 * field name) is shown under it.
 */
export function AgentModelFields({ kind, texts, onChange, inheritedModel, inheritedMode, listId, errors, disabled, modelSetBy = '', apiKeySet = false, inheritedBaseUrl = '' }: AgentModelFieldsProps) {
  const { t } = useTranslation('settings');
  const title =
    kind === 'lead'
      ? { legend: t('agent.leadLegend'), aria: t('agent.leadAria'), what: t('agent.leadWhat') }
      : { legend: t('agent.subLegend'), aria: t('agent.subAria'), what: t('agent.subWhat') };
  const set = <K extends keyof AgentTexts>(k: K, v: AgentTexts[K]) => onChange({ ...texts, [k]: v });
  const err = (field: string) => errors[`${kind}.${field}`];
  const describe = (field: string) => {
    const e = err(field);
    return { 'aria-invalid': Boolean(e), 'aria-describedby': e ? `err-${kind}-${field}` : undefined };
  };
  const fieldError = (field: string) => {
    const e = err(field);
    return e ? (
      <p className="field-error" id={`err-${kind}-${field}`} role="alert">
        {e}
      </p>
    ) : null;
  };
  const same = inheritedModel !== '' ? t('agent.sameAsModel', { model: inheritedModel }) : t('agent.same');
  const keyStored = apiKeySet && !texts.clear_key;
  const num = (field: 'window' | 'temperature' | 'top_p' | 'max_tokens', label: string, backendField: string, placeholder: string, unit?: string) => (
    <label className="field agent-num">
      <span className="label">{label}</span>
      <span className="num-unit">
        <input
          className="input"
          inputMode={field === 'temperature' || field === 'top_p' ? 'decimal' : 'numeric'}
          value={texts[field]}
          placeholder={placeholder}
          aria-label={t('agent.fieldAria', { agent: title.aria, field: label.toLowerCase() })}
          onChange={(e) => set(field, e.target.value)}
          {...describe(backendField)}
        />
        {unit ? <span className="muted">{unit}</span> : null}
      </span>
      {fieldError(backendField)}
    </label>
  );
  return (
    <fieldset disabled={disabled} className="agent-model">
      <legend>{title.legend}</legend>
      <p className="hint tools-intro">{t('agent.intro', { what: title.what })}</p>
      <div className="agent-grid">
        <label className="field agent-model-name">
          <span className="label">{t('agent.baseUrl')}</span>
          <input
            className="input"
            type="url"
            value={texts.base_url}
            placeholder={inheritedBaseUrl !== '' ? t('agent.sameAsModel', { model: inheritedBaseUrl }) : t('agent.same')}
            spellCheck={false}
            autoComplete="off"
            aria-label={t('agent.fieldAria', { agent: title.aria, field: t('agent.baseUrlField') })}
            onChange={(e) => set('base_url', e.target.value)}
            {...describe('base_url')}
          />
          <span className="hint">{t('agent.baseUrlHint')}</span>
          {fieldError('base_url')}
        </label>
        <label className="field agent-model-name">
          <span className="label">
            {t('model.apiKey')}
            {keyStored ? <span className="badge badge-ok">{t('stored')}</span> : null}
          </span>
          <input
            className="input"
            type="password"
            value={texts.api_key}
            autoComplete="off"
            placeholder={keyStored ? t('storedKeep') : t('agent.keyAbove')}
            aria-label={t('agent.fieldAria', { agent: title.aria, field: t('agent.apiKeyField') })}
            onChange={(e) => set('api_key', e.target.value)}
            {...describe('api_key')}
          />
          {apiKeySet ? (
            <label className="check small">
              <input type="checkbox" checked={texts.clear_key} onChange={(e) => set('clear_key', e.target.checked)} />
              {t('removeStoredKey')}
            </label>
          ) : null}
          {fieldError('api_key')}
        </label>
        <label className="field agent-model-name">
          <span className="label">{t('model.model')}</span>
          <input
            className="input"
            list={listId}
            value={texts.model}
            placeholder={same}
            spellCheck={false}
            autoComplete="off"
            aria-label={t('agent.fieldAria', { agent: title.aria, field: t('agent.modelField') })}
            readOnly={modelSetBy !== ''}
            onChange={(e) => set('model', e.target.value)}
            {...describe('model')}
          />
          {modelSetBy !== '' ? (
            <span className="hint set-by" data-set-by={`${kind}.model`}>
              {modelSetBy}
            </span>
          ) : null}
          {fieldError('model')}
        </label>
        <label className="field">
          <span className="label">{t('agent.toolCalls')}</span>
          <select
            className="input"
            value={texts.mode}
            aria-label={t('agent.fieldAria', { agent: title.aria, field: t('agent.toolCallsField') })}
            onChange={(e) => set('mode', e.target.value as AgentMode)}
            {...describe('tool_call_mode')}
          >
            <option value="">{t('agent.sameMode', { mode: inheritedMode === 'xml' ? 'XML' : t('agent.nativeShort') })}</option>
            <option value="native">{t('mode.native')}</option>
            <option value="xml">{t('mode.xml')}</option>
          </select>
          {fieldError('tool_call_mode')}
        </label>
        {num('window', t('agent.window'), 'context_window', t('agent.asModel'), t('agent.tokens'))}
        {num('max_tokens', t('agent.maxTokens'), 'max_tokens', t('agent.unset'), t('agent.perAnswer'))}
        {num('temperature', t('agent.temperature'), 'temperature', t('agent.unset'), '0–2')}
        {num('top_p', t('agent.topP'), 'top_p', t('agent.unset'), '0–1')}
      </div>
    </fieldset>
  );
}

/** Props of ModelLimitFields. */
export interface ModelLimitFieldsProps {
  texts: ModelLimitTexts;
  onChange: (t: ModelLimitTexts) => void;
  /** Errors by the backend's field names ("model_idle_timeout_seconds", "max_answer_mb", "max_parallel_tool_calls"). */
  errors: Record<string, string | undefined>;
  disabled: boolean;
}

/**
 * The model call limits: the idle timeout, in seconds, after which a call whose answer has
 * started but stalled fails, and the largest answer, in MB. Empty fields use the defaults,
 * shown as placeholders; each field's error (by the backend's field name) is shown under
 * it. Beside them, how many tool calls of one reply run at once (1 = one at a time). They
 * apply from the next run.
 */
export function ModelLimitFields({ texts, onChange, errors, disabled }: ModelLimitFieldsProps) {
  const { t } = useTranslation('settings');
  const field = (key: keyof ModelLimitTexts, backendField: string, label: string, unit: string, hint: string, placeholder: number) => {
    const e = errors[backendField];
    return (
      <label className="field agent-num">
        <span className="label">{label}</span>
        <span className="num-unit">
          <input
            className="input"
            inputMode="numeric"
            value={texts[key] ?? ''}
            placeholder={String(placeholder)}
            aria-label={label}
            aria-invalid={Boolean(e)}
            aria-describedby={e ? `err-${backendField}` : undefined}
            onChange={(ev) => onChange({ ...texts, [key]: ev.target.value })}
          />
          <span className="muted">{unit}</span>
        </span>
        <span className="hint">{hint}</span>
        {e ? (
          <p className="field-error" id={`err-${backendField}`} role="alert">
            {e}
          </p>
        ) : null}
      </label>
    );
  };
  const L = MODEL_LIMITS;
  return (
    <fieldset disabled={disabled} className="agent-model model-limits">
      <legend>{t('limits.legend')}</legend>
      <p className="hint tools-intro">{t('limits.intro')}</p>
      <div className="agent-grid">
        {field('idle', 'model_idle_timeout_seconds', t('limits.idle'), t('limits.idleUnit'), t('limits.idleHint', { default: L.idle.default }), L.idle.default)}
        {field('answer', 'max_answer_mb', t('limits.answer'), t('limits.answerUnit'), t('limits.answerHint', { default: L.answer.default }), L.answer.default)}
        {field('parallel', 'max_parallel_tool_calls', t('limits.parallel'), t('limits.parallelUnit'), t('limits.parallelHint', { default: L.parallel.default }), L.parallel.default)}
      </div>
    </fieldset>
  );
}

/** What "Find local servers" found: not asked yet, asking, the servers, or why it failed. */
export type LocalServersState =
  | { state: 'idle' }
  | { state: 'finding' }
  | { state: 'found'; servers: LocalServer[] }
  | { state: 'failed'; error: string };

/**
 * "Find local servers" (SettingsService.FindLocalServers): `find` asks the backend to probe
 * Ollama, LM Studio, llama.cpp and vLLM on 127.0.0.1; `auto` true asks once by itself as
 * soon as it turns true (the first launch: no model set). A backend without the method
 * leaves the state idle.
 */
export function useLocalServers(auto: boolean): { result: LocalServersState; find: () => void } {
  const [asked, setAsked] = useState(0);
  const [answer, setAnswer] = useState<{ id: number; r: LocalServersState }>({ id: 0, r: { state: 'idle' } });
  // The probe wanted now: 1 for the first launch's own, 2, 3 … for each click; 0 none.
  const id = asked > 0 ? asked + 1 : auto ? 1 : 0;
  // The latest probe started: only its answer is shown (and typing a model meanwhile does not cancel it).
  const latest = useRef(0);
  useEffect(() => {
    if (id <= latest.current) return;
    latest.current = id;
    findLocalServers().then(
      (servers) => {
        if (latest.current === id) setAnswer({ id, r: { state: 'found', servers } });
      },
      (e: unknown) => {
        if (latest.current !== id) return;
        const err = e as { code?: string; message?: string };
        setAnswer({ id, r: err.code === 'unsupported' ? { state: 'idle' } : { state: 'failed', error: String(err.message ?? e) } });
      },
    );
  }, [id]);
  return { result: id > answer.id ? { state: 'finding' } : answer.r, find: () => setAsked((n) => n + 1) };
}

/** Props of LocalServers. */
export interface LocalServersProps {
  result: LocalServersState;
  onFind: () => void;
  /** Called when the user picks a server (and one of its models, "" when it lists none). */
  onUse: (baseUrl: string, model: string) => void;
  disabled?: boolean;
}

/** How many of a server's models are offered as buttons; the rest are in the model list. */
const LOCAL_MODELS_SHOWN = 8;

/**
 * The "Find local servers" button and what it found: each server that answered with its
 * base URL and one button per model (the first few), a click filling the base URL and the
 * model; "Use" for a server listing no model fills the base URL alone.
 */
export function LocalServers({ result, onFind, onUse, disabled }: LocalServersProps) {
  const { t } = useTranslation('settings');
  return (
    <div className="field local-servers">
      <div className="test-row">
        <button type="button" className="btn btn-sm" onClick={onFind} disabled={disabled || result.state === 'finding'}>
          {result.state === 'finding' ? <Spinner size={12} /> : null}
          {t('local.find')}
        </button>
        <span className="test-result" role="status" aria-live="polite">
          {result.state === 'finding'
            ? t('local.finding')
            : result.state === 'failed'
              ? result.error
              : result.state === 'found' && result.servers.length === 0
                ? t('local.none')
                : ''}
        </span>
      </div>
      {result.state === 'found' && result.servers.length > 0 ? (
        <ul className="local-server-list" aria-label={t('local.found')}>
          {result.servers.map((srv) => (
            <li key={srv.base_url} data-local-server={srv.name}>
              <span>
                <strong>{srv.name}</strong> <code>{srv.base_url}</code>{' '}
                <span className="muted">{t('local.models', { count: srv.models.length })}</span>
              </span>
              <span className="local-server-models">
                {srv.models.length === 0 ? (
                  <button type="button" className="btn btn-sm" onClick={() => onUse(srv.base_url, '')}>
                    {t('local.use')}
                  </button>
                ) : (
                  srv.models.slice(0, LOCAL_MODELS_SHOWN).map((m) => (
                    <button
                      key={m}
                      type="button"
                      className="btn btn-sm"
                      aria-label={t('local.useModel', { model: m, server: srv.name })}
                      onClick={() => onUse(srv.base_url, m)}
                    >
                      {m}
                    </button>
                  ))
                )}
              </span>
            </li>
          ))}
        </ul>
      ) : null}
      <span className="hint">{t('local.hint')}</span>
    </div>
  );
}
