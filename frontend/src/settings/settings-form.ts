// The settings dialog's logic without React: the per-agent model fields as typed and their
// parsing, the search input built from the form, the endpoint preset a base URL matches,
// and the words for test results and validation errors (namespace `settings`, in the UI's
// language).

import type { AgentModelSettings, ConnectionResult, EndpointPreset, SearchInput, SearchProvider, SearchTestResult, Trouble } from '../api/settings';
import { formatNumber } from '../shared/format';
import { i18n } from '../i18n/i18n';

/** Which agents' model a section edits: the lead, or the sub-agents (search and crawl). */
export type AgentKind = 'lead' | 'sub_agents';

/** The tool-call mode of an agent: "" = same as the model above. */
export type AgentMode = '' | 'native' | 'xml';

/** The per-agent model fields as typed (every text may be empty: inherit / unset). */
export interface AgentTexts {
  model: string;
  /** The agent's own base URL ("" = the one above). */
  base_url: string;
  /** A key typed for the agent's endpoint ("" keeps the stored one). */
  api_key: string;
  /** "Remove the stored key" ticked for the agent. */
  clear_key: boolean;
  mode: AgentMode;
  window: string;
  temperature: string;
  top_p: string;
  max_tokens: string;
}

/** An agent section with nothing set: everything as above, no sampling sent. */
export const EMPTY_AGENT_TEXTS: AgentTexts = { model: '', base_url: '', api_key: '', clear_key: false, mode: '', window: '', temperature: '', top_p: '', max_tokens: '' };

/** Bounds the backend holds the agents' fields to (config.Validate). */
export const AGENT_LIMITS = {
  temperature: { min: 0, max: 2 },
  top_p: { min: 0, max: 1 },
  max_tokens: { min: 1, max: 10_000_000 },
  window: { min: 2048, max: 10_000_000 },
} as const;

/** The texts the form shows for stored agent settings (unset fields empty). */
export function agentTexts(a: AgentModelSettings): AgentTexts {
  const mode: AgentMode = a.tool_call_mode === 'native' || a.tool_call_mode === 'xml' ? a.tool_call_mode : '';
  return {
    model: a.model,
    base_url: a.base_url ?? '',
    api_key: '',
    clear_key: false,
    mode,
    window: a.context_window > 0 ? String(a.context_window) : '',
    temperature: a.temperature === null ? '' : String(a.temperature),
    top_p: a.top_p === null ? '' : String(a.top_p),
    max_tokens: a.max_tokens > 0 ? String(a.max_tokens) : '',
  };
}

/**
 * Parses a decimal within [min, max] ("0.7", ".5", "1", "0,7" with a decimal comma):
 * undefined for an empty field (unset), null for anything else that is not such a number.
 */
export function parseDecimal(text: string, min: number, max: number): number | null | undefined {
  const t = text.trim().replace(',', '.');
  if (t === '') return undefined;
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(t)) return null;
  const v = Number(t);
  return Number.isFinite(v) && v >= min && v <= max ? v : null;
}

/**
 * A whole number within [min, max], separators allowed ("128,000", "4 096"): undefined
 * for an empty field (unset), null for anything else.
 */
export function parseWholeNumber(text: string, min: number, max: number): number | null | undefined {
  const t = text.trim().replace(/[\s,_]/g, '');
  if (t === '') return undefined;
  if (!/^\d+$/.test(t)) return null;
  const v = Number(t);
  return v >= min && v <= max ? v : null;
}

/** The result of parsing an agent section: the settings to save, or errors by field name. */
export interface ParsedAgent {
  value: AgentModelSettings;
  /** By the backend's field names ("lead.temperature"); empty when every field is valid. */
  errors: Record<string, string>;
}

const fmt = (v: number): string => formatNumber(v);

/**
 * Parses one agent section as typed. Empty fields become unset (model "", mode "", window 0,
 * temperature and top_p null, max tokens 0); a field out of range gets an error under the
 * name the backend uses for it (`${kind}.temperature` ...), so the dialog shows it where the
 * backend's own error would go.
 */
export function parseAgentTexts(kind: AgentKind, t: AgentTexts): ParsedAgent {
  const errors: Record<string, string> = {};
  const L = AGENT_LIMITS;
  const temperature = parseDecimal(t.temperature, L.temperature.min, L.temperature.max);
  if (temperature === null) errors[`${kind}.temperature`] = i18n.t('settings:validation.decimal', { min: fmt(L.temperature.min), max: fmt(L.temperature.max) });
  const topP = parseDecimal(t.top_p, L.top_p.min, L.top_p.max);
  if (topP === null) errors[`${kind}.top_p`] = i18n.t('settings:validation.decimal', { min: fmt(L.top_p.min), max: fmt(L.top_p.max) });
  const maxTokens = parseWholeNumber(t.max_tokens, L.max_tokens.min, L.max_tokens.max);
  if (maxTokens === null) errors[`${kind}.max_tokens`] = i18n.t('settings:validation.maxTokens', { max: fmt(L.max_tokens.max) });
  const window = parseWholeNumber(t.window, L.window.min, L.window.max);
  if (window === null) errors[`${kind}.context_window`] = i18n.t('settings:validation.window', { min: fmt(L.window.min), max: fmt(L.window.max) });
  return {
    value: {
      model: t.model.trim(),
      base_url: t.base_url.trim(),
      // A key typed replaces the stored one; none typed keeps it unless removal is ticked.
      ...(t.api_key.trim() !== '' ? { api_key: t.api_key.trim() } : t.clear_key ? { clear_api_key: true } : {}),
      tool_call_mode: t.mode,
      context_window: window ?? 0,
      temperature: temperature ?? null,
      top_p: topP ?? null,
      max_tokens: maxTokens ?? 0,
    },
    errors,
  };
}

/** The search choice as the form holds it: keys typed this time, stored keys to remove. */
export interface SearchForm {
  provider: string;
  /** Keys typed in this dialog, by provider id ("" = keep the stored one). */
  keys: Record<string, string>;
  /** Providers whose stored key is to be removed. */
  clear: string[];
  language: string;
}

/**
 * The SearchInput to save: only keys actually typed (trimmed), and removals only for
 * providers without a new key typed.
 */
export function searchInputOf(f: SearchForm): SearchInput {
  const keys: Record<string, string> = {};
  for (const [id, key] of Object.entries(f.keys)) {
    if (key.trim() !== '') keys[id] = key.trim();
  }
  return {
    provider: f.provider,
    keys,
    clear_keys: f.clear.filter((id) => !(id in keys)),
    language: f.language.trim(),
  };
}

/** What a provider needs, in words for its option: "no key needed", "API key", "server URL". */
export function providerNeeds(p: SearchProvider): string {
  if (p.needs_url) return i18n.t('settings:search.needsUrl');
  if (p.needs_key) return p.key_stored ? i18n.t('settings:search.keyStored') : i18n.t('settings:search.needsKey');
  return i18n.t('settings:search.noKey');
}

/** Normalizes a base URL for comparison: trimmed, without trailing slashes, lower-case scheme and host. */
function normalizeBase(u: string): string {
  const t = u.trim().replace(/\/+$/, '');
  try {
    const p = new URL(t);
    return `${p.protocol}//${p.host}${p.pathname.replace(/\/+$/, '')}`;
  } catch {
    return t;
  }
}

/** The preset whose base URL the form's base URL is (trailing slash and case of the host ignored), or undefined. */
export function presetOf(baseUrl: string, presets: readonly EndpointPreset[]): EndpointPreset | undefined {
  const want = normalizeBase(baseUrl);
  return want === '' ? undefined : presets.find((p) => normalizeBase(p.base_url) === want);
}

/** A latency for people, in the UI's language: "840 ms", "2.4 s" (840 毫秒, 2.4 秒). */
export function formatLatency(ms: number): string {
  return ms < 1000
    ? i18n.t('format:duration.ms', { n: formatNumber(Math.max(1, Math.round(ms))) })
    : i18n.t('settings:test.seconds', { n: formatNumber(ms / 1000, 1) });
}

// i18n-keys: settings:trouble.offline settings:trouble.refused settings:trouble.refusedServer settings:trouble.refusedOllama
// i18n-keys: settings:trouble.unreachable settings:trouble.timeout settings:trouble.timeoutHost settings:trouble.tls
// i18n-keys: settings:trouble.auth settings:trouble.authStatus settings:trouble.authSearch

/**
 * The words for a settings check's failure by its kind (Trouble), in the UI's language:
 * "Cannot resolve html.duckduckgo.com: you seem to be offline …", "Ollama is not running at
 * http://127.0.0.1:11434. Start it with ollama serve …", "The endpoint refused the API key
 * (HTTP 401) …"; `search` words a refused key for a search provider. "" when the kind is
 * unknown or absent (the caller shows the error itself).
 */
export function troubleText(t: Trouble, search = false): string {
  const host = t.host ?? '';
  switch (t.kind) {
    case 'auth':
      if (search) return i18n.t('settings:trouble.authSearch');
      return t.status ? i18n.t('settings:trouble.authStatus', { status: t.status }) : i18n.t('settings:trouble.auth');
    case 'offline':
      return i18n.t('settings:trouble.offline', { host });
    case 'refused':
      if (t.server === 'Ollama') return i18n.t('settings:trouble.refusedOllama', { host });
      if (t.server) return i18n.t('settings:trouble.refusedServer', { host, server: t.server });
      return i18n.t('settings:trouble.refused', { host });
    case 'unreachable':
      return i18n.t('settings:trouble.unreachable', { host });
    case 'timeout':
      return host === '' ? i18n.t('settings:trouble.timeout') : i18n.t('settings:trouble.timeoutHost', { host });
    case 'tls':
      return i18n.t('settings:trouble.tls', { host });
    default:
      return '';
  }
}

/**
 * The words for a connection test's result: "qwen3:8b answered in 840 ms"; a failure of a
 * known kind in the UI's language (troubleText), else the error as is.
 */
export function connectionText(r: ConnectionResult): string {
  if (!r.ok) return troubleText(r) || r.error || i18n.t('settings:test.failedNoMessage');
  return r.model
    ? i18n.t('settings:test.modelAnswered', { model: r.model, time: formatLatency(r.latency_ms) })
    : i18n.t('settings:test.answered', { time: formatLatency(r.latency_ms) });
}

/**
 * The words for a search test's result: "5 results in 420 ms"; a failure of a known kind
 * in the UI's language (troubleText), else the error as is.
 */
export function searchTestText(r: SearchTestResult): string {
  if (!r.ok) return troubleText(r, true) || r.error || i18n.t('settings:test.searchFailedNoMessage');
  return i18n.t('settings:test.results', { count: r.results, n: formatNumber(r.results), time: formatLatency(r.latency_ms) });
}

/**
 * The note under a field that a command-line flag or OPENAI_API_KEY sets for this session
 * (Settings.set_by): "Set by --model for this session. …", or "" when config.json sets it.
 * Such a field is read-only, and Save keeps the stored value.
 */
export function setByNote(setBy: Readonly<Record<string, string>>, field: string): string {
  const src = setBy[field] ?? '';
  if (src === '') return '';
  return src.startsWith('--') ? i18n.t('settings:setBy.flag', { flag: src }) : i18n.t('settings:setBy.env', { name: src });
}

/**
 * Parses the upload-limit field: a whole number of MiB from 1 to `max`, else null. `max` is
 * the largest limit the backend accepts, as the settings give it (Settings.max_upload_mb_limit,
 * config.MaxUploadMBLimit); 0 (unknown) leaves the upper bound to the backend's check.
 */
export function parseUploadLimit(text: string, max: number): number | null {
  const t = text.trim();
  if (!/^\d+$/.test(t)) return null;
  const v = Number(t);
  return v >= 1 && (max <= 0 || v <= max) ? v : null;
}

/**
 * Checks the proxy field as netproxy.Validate does: "" (the system's proxy), "direct" or
 * "none" (any case), or an http://, https://, socks5:// or socks5h:// URL with a host, a
 * port (when written) from 1 to 65535 and no path, query or fragment. Returns the value to
 * send (trimmed; "none" as "direct"), or null when it is none of these.
 */
export function parseProxy(text: string): string | null {
  const t = text.trim();
  if (t === '') return '';
  if (/^(direct|none)$/i.test(t)) return 'direct';
  const m = /^(https?|socks5h?):\/\/(?:[^@/?#]*@)?(\[[0-9a-fA-F:.]+\]|[^:/?#[\]@\s]+)(?::(\d{1,5}))?\/?$/i.exec(t);
  if (!m) return null;
  const port = m[3];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return null;
  return t;
}

/**
 * Bounds of the model call limits (config.Settings): the idle timeout in seconds, the
 * answer size cap in MiB and how many tool calls of one reply run at once. An empty field
 * means the default.
 */
export const MODEL_LIMITS = {
  idle: { min: 5, max: 3600, default: 300 },
  answer: { min: 1, max: 64, default: 4 },
  parallel: { min: 1, max: 16, default: 4 },
} as const;

/**
 * The model call limits as typed: idle timeout (seconds), answer cap (MB) and tool calls at
 * once; "" = the default. `parallel` may be missing (a form from before it): the default.
 */
export interface ModelLimitTexts {
  idle: string;
  answer: string;
  parallel?: string;
}

/**
 * The texts the form shows for the stored limits: empty where the stored value is the
 * default (or missing, from an older backend), so the placeholder shows the default.
 */
export function modelLimitTexts(s: { model_idle_timeout_seconds?: number; max_answer_mb?: number; max_parallel_tool_calls?: number }): ModelLimitTexts {
  const idle = s.model_idle_timeout_seconds ?? 0;
  const answer = s.max_answer_mb ?? 0;
  const parallel = s.max_parallel_tool_calls ?? 0;
  return {
    idle: idle > 0 && idle !== MODEL_LIMITS.idle.default ? String(idle) : '',
    answer: answer > 0 && answer !== MODEL_LIMITS.answer.default ? String(answer) : '',
    parallel: parallel > 0 && parallel !== MODEL_LIMITS.parallel.default ? String(parallel) : '',
  };
}

/** The result of parsing the limits: the fields to save (0 = the default), or errors by field name. */
export interface ParsedModelLimits {
  value: { model_idle_timeout_seconds: number; max_answer_mb: number; max_parallel_tool_calls: number };
  /** By the backend's field names ("model_idle_timeout_seconds", "max_answer_mb", "max_parallel_tool_calls"); empty when valid. */
  errors: Record<string, string>;
}

/** Parses the limits as typed: empty is 0 (the default), a whole number in range is kept, anything else is an error under the backend's field name. */
export function parseModelLimits(t: ModelLimitTexts): ParsedModelLimits {
  const errors: Record<string, string> = {};
  const L = MODEL_LIMITS;
  const idle = parseWholeNumber(t.idle, L.idle.min, L.idle.max);
  if (idle === null) errors.model_idle_timeout_seconds = i18n.t('settings:validation.idleTimeout', { min: fmt(L.idle.min), max: fmt(L.idle.max) });
  const answer = parseWholeNumber(t.answer, L.answer.min, L.answer.max);
  if (answer === null) errors.max_answer_mb = i18n.t('settings:validation.answerCap', { min: fmt(L.answer.min), max: fmt(L.answer.max) });
  const parallel = parseWholeNumber(t.parallel ?? '', L.parallel.min, L.parallel.max);
  if (parallel === null) errors.max_parallel_tool_calls = i18n.t('settings:validation.parallelCalls', { min: fmt(L.parallel.min), max: fmt(L.parallel.max) });
  return { value: { model_idle_timeout_seconds: idle ?? 0, max_answer_mb: answer ?? 0, max_parallel_tool_calls: parallel ?? 0 }, errors };
}
