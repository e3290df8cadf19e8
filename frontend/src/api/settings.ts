// SettingsService (app/settings.go): the settings dialog's values, saving them, its checks
// (endpoint presets, the endpoint's model list, "Test connection", the search provider's
// "Test") and the model-context and tool settings. Each function is one bound call through
// callService plus the normalization of its answer.

import * as SettingsService from '../../wailsjs/go/app/SettingsService';
import type { app } from '../../wailsjs/go/models';
import { callService, asString as s, asNumber as n, asBool as b, asObject as o, asList as list, asStrings, type Model } from './call';

/** Runs the bound call SettingsService.`method` (callService). */
const call = <T>(method: string, fn: () => Promise<T>): Promise<T> => callService('SettingsService', method, fn);

/**
 * The model of one kind of agent (app.AgentModelSettings): the lead, or the sub-agents
 * (search and crawl). Empty fields inherit the model above: model "" and tool_call_mode ""
 * its name and mode, context_window 0 its window (tokens). temperature (0–2), top_p (0–1)
 * and max_tokens (per answer) are sent to the model only when set (null / 0 = unset).
 * `base_url` is the agent's own endpoint ("" = the base URL above); `api_key` a key typed
 * for it (sent on Save only; "" keeps the stored one; never in what Get returns),
 * `api_key_set` whether one is stored, `clear_api_key` removes it on Save. Without its own
 * key the agent uses the key above only on the same scheme, host and port.
 */
export type AgentModelSettings = Omit<Model<app.AgentModelSettings>, 'temperature' | 'top_p' | 'base_url' | 'api_key' | 'api_key_set' | 'clear_api_key'> & {
  temperature: number | null;
  top_p: number | null;
  /** Missing from an older backend: the base URL above. */
  base_url?: string;
  api_key?: string;
  api_key_set?: boolean;
  clear_api_key?: boolean;
};

/**
 * One web search provider as the dialog lists it (app.SearchProviderView): `needs_key` an API
 * key is required, `needs_url` a server URL (SearXNG); `key_url` where to get a key (or how
 * to run the server), "" when none; `key_stored` a key for it is stored (the key itself is
 * never sent).
 */
export type SearchProvider = Model<app.SearchProviderView>;

/**
 * The stored search choice (app.SearchView): provider in effect, providers with a stored key,
 * Wikipedia's language code ("" = from the question's script).
 */
export type SearchSettings = Model<app.SearchView>;

/** Settings.load_remote_images: remote images load after a click ("ask") or at once ("always"). */
export type RemoteImages = 'ask' | 'always';

/**
 * What the settings dialog shows (app.SettingsView, without the model-context and tool
 * fields, which getConversationSettings reads); the API key itself is never sent.
 * `max_upload_mb`: size limit of one uploaded file, in MiB (the backend's default is 20);
 * `max_upload_mb_limit` the largest limit Save accepts (config.MaxUploadMBLimit, 256), which
 * the dialog's hint and check use.
 * `proxy`: the proxy setting ("" = the system's, "direct", or a proxy URL with any password
 * shown as "xxxxx"); `proxy_source` what it means now ("direct", "environment", "system",
 * "setting", "invalid") and `proxy_in_effect` the proxy https requests use then ("" = none). `search_providers`: every provider, the default (DuckDuckGo) first. `search_ready`
 * false when the provider in effect lacks its key or URL; `search_problem` says why.
 * `set_by`: what sets a field for this session instead of config.json, by field name
 * ("model", "base_url", "api_key", "lead.model", "search.provider", "search.keys.<id>" ...):
 * the command-line flag ("--model") or "OPENAI_API_KEY"; the dialog shows such fields
 * read-only and Save keeps their stored values.
 * `load_remote_images`: remote images in markdown load after a click ("ask") or at once.
 * `language`: the UI language stored in config.json (language.ts applies it on start).
 * `revision`: names the version of config.json shown (SettingsInput.revision sends it back,
 * so Save writes only the fields changed since); "" from an older backend.
 */
export type Settings = Omit<
  Model<app.SettingsView>,
  | 'language'
  | 'context_window'
  | 'effective_context_window'
  | 'compact_at_percent'
  | 'tool_permissions'
  | 'permission_timeout_seconds'
  | 'search'
  | 'search_providers'
  | 'lead'
  | 'sub_agents'
  | 'load_remote_images'
  | 'model_idle_timeout_seconds'
  | 'max_answer_mb'
  | 'max_parallel_tool_calls'
  | 'vision'
  | 'vision_by_name'
> & {
  search: SearchSettings;
  /** The model call limits (seconds, MiB); missing or 0 from an older backend: the defaults. */
  model_idle_timeout_seconds?: number;
  max_answer_mb?: number;
  /** How many tool calls of one reply run at once (1–16); missing or 0 from an older backend: the default. */
  max_parallel_tool_calls?: number;
  search_providers: SearchProvider[];
  lead: AgentModelSettings;
  sub_agents: AgentModelSettings;
  load_remote_images: RemoteImages;
  /** The UI language stored in config.json ('' = the system's); null from an older backend without it. */
  language: string | null;
};

/**
 * The search part of SettingsInput (app.SearchInput): keys typed per provider id (an empty
 * or missing key keeps the stored one), providers whose stored key is removed, and
 * Wikipedia's language.
 */
export type SearchInput = Model<app.SearchInput>;

/**
 * What the settings dialog saves (app.SettingsInput); empty api_key keeps the stored key.
 * `revision`: the Settings.revision the dialog was opened on; the backend writes only the
 * fields whose values differ from what that version showed, over config.json as it is now
 * (another process's save or a hand edit of the other fields is kept). Left out, the
 * comparison is with config.json as it is now.
 * `max_upload_mb` in MiB (1 to Settings.max_upload_mb_limit; 0 = the default, 20).
 * `proxy`: "" (the system's), "direct" or a proxy URL; left out, the stored one is kept. Left out: `search` and the agent
 * models keep the stored ones, `load_remote_images` is "ask", and the model-context and
 * tool fields (the conversation settings form adds them) keep theirs, and so do
 * `model_idle_timeout_seconds` (5–3600 s), `max_answer_mb` (1–64) and
 * `max_parallel_tool_calls` (1–16; 0 = the default for each) when left out.
 */
export type SettingsInput = Omit<
  Model<app.SettingsInput>,
  | 'revision'
  | 'context_window'
  | 'compact_at_percent'
  | 'tool_permissions'
  | 'permission_timeout_seconds'
  | 'search'
  | 'lead'
  | 'sub_agents'
  | 'load_remote_images'
  | 'model_idle_timeout_seconds'
  | 'max_answer_mb'
  | 'max_parallel_tool_calls'
  | 'proxy'
  | 'vision'
> &
  Partial<
    Pick<
      Model<app.SettingsInput>,
      | 'context_window'
      | 'compact_at_percent'
      | 'tool_permissions'
      | 'permission_timeout_seconds'
      | 'model_idle_timeout_seconds'
      | 'max_answer_mb'
      | 'max_parallel_tool_calls'
    >
  > & {
    revision?: string;
    search?: SearchInput;
    lead?: AgentModelSettings;
    sub_agents?: AgentModelSettings;
    load_remote_images?: RemoteImages;
    proxy?: string;
    /** The typed model's vision switch (it is sent a question's pictures); left out, the stored choice is kept. */
    vision?: boolean;
  };

/** The upload limit (MiB) when the settings do not give one (config default). */
export const DEFAULT_MAX_UPLOAD_MB = 20;

const numOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Normalizes an app.AgentModelSettings (missing fields: inherit / unset). */
export function agentModelSettings(v: unknown): AgentModelSettings {
  const x = o(v);
  return {
    model: s(x.model),
    base_url: s(x.base_url),
    api_key_set: b(x.api_key_set),
    tool_call_mode: s(x.tool_call_mode),
    context_window: n(x.context_window),
    temperature: numOrNull(x.temperature),
    top_p: numOrNull(x.top_p),
    max_tokens: n(x.max_tokens),
  };
}

function searchProvider(v: unknown): SearchProvider {
  const x = o(v);
  return { id: s(x.id), name: s(x.name) || s(x.id), needs_key: b(x.needs_key), needs_url: b(x.needs_url), key_url: s(x.key_url), key_stored: b(x.key_stored) };
}

function settings(v: unknown): Settings {
  const x = o(v);
  const search = o(x.search);
  return {
    search: {
      // An older backend without providers searched SearXNG when its URL was set.
      provider: s(search.provider) || (s(x.searxng_url) !== '' ? 'searxng' : 'duckduckgo'),
      keys_stored: asStrings(search.keys_stored),
      language: s(search.language),
    },
    search_providers: list(x.search_providers).map(searchProvider).filter((p) => p.id !== ''),
    // An older backend without the field could search only when a SearXNG URL was set.
    search_ready: typeof x.search_ready === 'boolean' ? x.search_ready : s(x.searxng_url) !== '',
    search_problem: s(x.search_problem),
    lead: agentModelSettings(x.lead),
    sub_agents: agentModelSettings(x.sub_agents),
    set_by: Object.fromEntries(Object.entries(o(x.set_by)).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '')),
    load_remote_images: x.load_remote_images === 'always' ? 'always' : 'ask',
    revision: s(x.revision),
    base_url: s(x.base_url),
    api_key_set: b(x.api_key_set),
    model: s(x.model),
    tool_call_mode: s(x.tool_call_mode) || 'native',
    searxng_url: s(x.searxng_url),
    allow_private_network: b(x.allow_private_network),
    max_upload_mb: n(x.max_upload_mb) > 0 ? n(x.max_upload_mb) : DEFAULT_MAX_UPLOAD_MB,
    // 0 from an older backend: the upload limit's upper bound is left to Save's check.
    max_upload_mb_limit: n(x.max_upload_mb_limit),
    proxy: s(x.proxy),
    proxy_source: s(x.proxy_source) || 'direct',
    proxy_in_effect: s(x.proxy_in_effect),
    data_dir: s(x.data_dir),
    language: typeof x.language === 'string' ? x.language : null,
    // 0 from an older backend without the model call limits: the form shows the defaults.
    model_idle_timeout_seconds: n(x.model_idle_timeout_seconds),
    max_answer_mb: n(x.max_answer_mb),
    max_parallel_tool_calls: n(x.max_parallel_tool_calls),
  };
}

/** The current settings (SettingsService.Get). */
export async function getSettings(): Promise<Settings> {
  return settings(await call('Get', () => SettingsService.Get()));
}

/**
 * Validates and stores settings (SettingsService.Save); rejects with the validation error.
 * input goes as JSON, as typed: its fields left out (the agents' models' among them) are
 * left out of the JSON, which the backend reads as "keep the stored value".
 */
export async function saveSettings(input: SettingsInput): Promise<Settings> {
  return settings(await call('Save', () => SettingsService.Save(input as unknown as app.SettingsInput)));
}

/**
 * Stores the UI language in config.json, leaving every other setting as stored
 * (SettingsService.SetLanguage): "" (the system's), "en" or "zh-CN"; anything else
 * rejects with invalid_settings on the language field.
 */
export async function setLanguage(language: string): Promise<Settings> {
  return settings(await call('SetLanguage', () => SettingsService.SetLanguage(language)));
}

/** A well-known OpenAI-compatible endpoint (app.EndpointPreset); `needs_key`: the endpoint needs an API key (local servers do not). */
export type EndpointPreset = Model<app.EndpointPreset>;

/**
 * The endpoint presets (SettingsService.Presets): hosted APIs through their OpenAI-compatible
 * endpoints (OpenAI, DeepSeek, Qwen, OpenRouter, SiliconFlow, Moonshot, Zhipu, Groq, Together,
 * Gemini, Anthropic …), then local servers (Ollama, LM Studio, llama.cpp, vLLM).
 */
export async function getPresets(): Promise<EndpointPreset[]> {
  return list(await call('Presets', () => SettingsService.Presets())).map((v) => {
    const x = o(v);
    return { name: s(x.name), base_url: s(x.base_url), example_model: s(x.example_model), needs_key: b(x.needs_key) };
  });
}

/**
 * The model ids the endpoint offers, sorted (SettingsService.ListModels: GET {baseUrl}/models).
 * baseUrl "" means the stored one. apiKey "" means the stored key, which the backend sends
 * only to the stored base URL's scheme, host and port, and never when `noStoredKey` is true
 * (the dialog's "Remove the stored key" is ticked). Rejects with the endpoint's error.
 */
export async function listModels(baseUrl: string, apiKey: string, noStoredKey: boolean): Promise<string[]> {
  return list(await call('ListModels', () => SettingsService.ListModels(baseUrl, apiKey, noStoredKey)))
    .map((v) => s(o(v).id))
    .filter((id) => id !== '');
}

/**
 * A model server found on this computer (app.LocalServer): its name ("Ollama"), the base
 * URL to use ("http://127.0.0.1:11434/v1") and the ids of the models it lists, sorted.
 */
export type LocalServer = Model<app.LocalServer>;

/**
 * Looks for model servers on this computer (SettingsService.FindLocalServers): Ollama,
 * LM Studio, llama.cpp and vLLM on their usual ports of 127.0.0.1, each given 300 ms.
 * Resolves with the ones that answered with their models ([] when none did); a backend
 * without the method rejects with code "unsupported".
 */
export async function findLocalServers(): Promise<LocalServer[]> {
  return list(await call('FindLocalServers', () => SettingsService.FindLocalServers()))
    .map((v) => {
      const x = o(v);
      return { name: s(x.name), base_url: s(x.base_url), models: asStrings(x.models) };
    })
    .filter((x) => x.base_url !== '');
}

/**
 * What kind of failure a settings check met (app.Trouble): `kind` "auth" (the key was
 * refused; `status` its HTTP status), "offline" (`host` did not resolve), "refused"
 * (nothing listens at `host`; `server` names the local model server usually there, e.g.
 * "Ollama"), "unreachable", "timeout" or "tls"; absent when no kind fits.
 */
export interface Trouble {
  kind?: string;
  host?: string;
  server?: string;
  status?: number;
}

/** Normalizes the Trouble fields of a check's result. */
function troubleOf(x: Record<string, unknown>): Trouble {
  const t: Trouble = {};
  if (s(x.kind) !== '') t.kind = s(x.kind);
  if (s(x.host) !== '') t.host = s(x.host);
  if (s(x.server) !== '') t.server = s(x.server);
  if (n(x.status) > 0) t.status = n(x.status);
  return t;
}

/** The outcome of a connection test (app.ConnectionResult): latency in ms, or the exact error and its Trouble. */
export type ConnectionResult = Omit<Model<app.ConnectionResult>, keyof Trouble> & Trouble;

/**
 * Makes one max_tokens-1 call to the endpoint and model (SettingsService.TestConnection);
 * empty arguments mean the stored values, the stored key going only where listModels sends
 * it (never when `noStoredKey` is true). A failed call resolves with ok false and the error.
 */
export async function testConnection(baseUrl: string, apiKey: string, model: string, noStoredKey: boolean): Promise<ConnectionResult> {
  const x = o(await call('TestConnection', () => SettingsService.TestConnection(baseUrl, apiKey, model, noStoredKey)));
  return { ok: b(x.ok), latency_ms: n(x.latency_ms), error: s(x.error), endpoint: s(x.endpoint), model: s(x.model), ...troubleOf(x) };
}

/** The outcome of a search test (app.SearchTestResult): result count and latency, or the provider-named error and its Trouble. */
export type SearchTestResult = Omit<Model<app.SearchTestResult>, keyof Trouble> & Trouble;

/**
 * Runs one search for "test" through `provider` (SettingsService.TestSearch) with `apiKey`
 * (or its stored key when "") and, for SearXNG, `baseUrl` (or the stored URL when ""). A
 * failed search resolves with ok false and the error.
 */
export async function testSearch(provider: string, apiKey: string, baseUrl: string): Promise<SearchTestResult> {
  const x = o(await call('TestSearch', () => SettingsService.TestSearch(provider, apiKey, baseUrl)));
  return { ok: b(x.ok), provider: s(x.provider), results: n(x.results), latency_ms: n(x.latency_ms), error: s(x.error), ...troubleOf(x) };
}

/** A tool's permission policy: run at once, or ask the user first. */
export type ToolPolicy = 'auto' | 'confirm';

/**
 * The model-context and tool settings (part of app.SettingsView / SettingsInput): `model`
 * the chosen model, whose context the window and threshold are. Token counts are tokens;
 * context_window 0 = by model name (effective_context_window is the one in use);
 * compact_at_percent 50–95 (0 = 80); permission_timeout_seconds 1–3600 (0 = 120);
 * `vision` whether the model is sent a question's pictures, `vision_by_name` what its name
 * alone says (the default).
 */
export type ConversationSettings = Pick<
  Model<app.SettingsView>,
  'model' | 'context_window' | 'effective_context_window' | 'compact_at_percent' | 'permission_timeout_seconds' | 'vision' | 'vision_by_name'
> & { tool_permissions: Record<string, ToolPolicy> };

/** The compaction threshold when the settings give none (engine.DefaultCompactAt). */
export const DEFAULT_COMPACT_AT_PERCENT = 80;
/** The permission wait when the settings give none, in seconds (engine default). */
export const DEFAULT_PERMISSION_TIMEOUT_SECONDS = 120;

/** The model-context and tool settings (from SettingsService.Get); defaults filled in. */
export async function getConversationSettings(): Promise<ConversationSettings> {
  const x = o(await call('Get', () => SettingsService.Get()));
  const perms: Record<string, ToolPolicy> = {};
  for (const [tool, p] of Object.entries(o(x.tool_permissions))) {
    if (p === 'auto' || p === 'confirm') perms[tool] = p;
  }
  return {
    model: s(x.model),
    context_window: n(x.context_window),
    effective_context_window: n(x.effective_context_window),
    compact_at_percent: n(x.compact_at_percent) || DEFAULT_COMPACT_AT_PERCENT,
    tool_permissions: perms,
    permission_timeout_seconds: n(x.permission_timeout_seconds) || DEFAULT_PERMISSION_TIMEOUT_SECONDS,
    vision: b(x.vision),
    vision_by_name: b(x.vision_by_name),
  };
}

/**
 * One model's context settings (app.ModelContextView; a threshold per model):
 * context_window in tokens as set (0 = by model name), effective_context_window the one in
 * use, compact_at_percent the compaction threshold in percent of it; vision whether it is
 * sent a question's pictures, vision_by_name what its name alone says.
 */
export type ModelContext = Model<app.ModelContextView>;

/**
 * The context settings stored for `model` (SettingsService.ModelContext), which need not be
 * the chosen model: the settings dialog shows them while the user types a model's name.
 * Rejects with ApiError (code "unsupported" on a backend without per-model settings).
 */
export async function getModelContext(model: string): Promise<ModelContext> {
  const x = o(await call('ModelContext', () => SettingsService.ModelContext(model)));
  return {
    model: s(x.model),
    context_window: n(x.context_window),
    effective_context_window: n(x.effective_context_window),
    compact_at_percent: n(x.compact_at_percent) || DEFAULT_COMPACT_AT_PERCENT,
    vision: b(x.vision),
    vision_by_name: b(x.vision_by_name),
  };
}

/** The name of the browser event sent after the settings were saved (the meter reloads them). */
export const SETTINGS_SAVED_EVENT = 'af:settings-saved';

/**
 * A backup of the whole data (app.BackupResult): the file written (`saved_path`, "" when
 * the user cancelled the save dialog), its `size` in bytes, and the conversations, upload
 * originals and workspace files it holds.
 */
export type BackupResult = Model<app.BackupResult>;

/**
 * Backs up the whole data while the app runs (SettingsService.Backup): in the window into
 * the file the user chose in the save dialog (opened in Documents); in browser mode, which
 * has no dialog, into a new file in the Documents folder. API keys are never in a backup.
 */
export async function backupData(): Promise<BackupResult> {
  const x = o(await call('Backup', () => SettingsService.Backup()));
  return { saved_path: s(x.saved_path), size: n(x.size), conversations: n(x.conversations), uploads: n(x.uploads), files: n(x.files) };
}
