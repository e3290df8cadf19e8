// Typed wrappers over the settings dialog's checks (issue 9, item 7): endpoint presets, the
// endpoint's model list, "Test connection" and the search provider's "Test". Like api.ts,
// every call resolves with normalized objects or rejects with an ApiError; nothing else in
// the UI imports these bindings.

import * as SettingsService from '../wailsjs/go/app/SettingsService';
import { callService, asString as s, asNumber as n, asBool as b, asObject as o, asList as list } from './api-call';

/** Runs the bound call SettingsService.`method` (callService). */
const call = <T>(method: string, fn: () => Promise<T>): Promise<T> => callService('SettingsService', method, fn);

/** A well-known OpenAI-compatible endpoint (app.EndpointPreset). */
export interface EndpointPreset {
  name: string;
  base_url: string;
  example_model: string;
  /** The endpoint needs an API key (local servers do not). */
  needs_key: boolean;
}

/** The endpoint presets: OpenAI, DeepSeek, Qwen (DashScope), Ollama, LM Studio, vLLM (SettingsService.Presets). */
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

/** The outcome of a connection test (app.ConnectionResult): latency in ms, or the exact error. */
export interface ConnectionResult {
  ok: boolean;
  latency_ms: number;
  error: string;
  endpoint: string;
  model: string;
}

/**
 * Makes one max_tokens-1 call to the endpoint and model (SettingsService.TestConnection);
 * empty arguments mean the stored values, the stored key going only where listModels sends
 * it (never when `noStoredKey` is true). A failed call resolves with ok false and the error.
 */
export async function testConnection(baseUrl: string, apiKey: string, model: string, noStoredKey: boolean): Promise<ConnectionResult> {
  const x = o(await call('TestConnection', () => SettingsService.TestConnection(baseUrl, apiKey, model, noStoredKey)));
  return { ok: b(x.ok), latency_ms: n(x.latency_ms), error: s(x.error), endpoint: s(x.endpoint), model: s(x.model) };
}

/** The outcome of a search test (app.SearchTestResult): result count and latency, or the provider-named error. */
export interface SearchTestResult {
  ok: boolean;
  provider: string;
  results: number;
  latency_ms: number;
  error: string;
}

/**
 * Runs one search for "test" through `provider` (SettingsService.TestSearch) with `apiKey`
 * (or its stored key when "") and, for SearXNG, `baseUrl` (or the stored URL when ""). A
 * failed search resolves with ok false and the error.
 */
export async function testSearch(provider: string, apiKey: string, baseUrl: string): Promise<SearchTestResult> {
  const x = o(await call('TestSearch', () => SettingsService.TestSearch(provider, apiKey, baseUrl)));
  return { ok: b(x.ok), provider: s(x.provider), results: n(x.results), latency_ms: n(x.latency_ms), error: s(x.error) };
}
