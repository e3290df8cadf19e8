// The settings dialog's own sections (SettingsDialog): the model endpoint, SearXNG for a
// backend without search providers, and web pages, privacy and files. Each gets the form and
// the dialog's field helpers (FieldKit); every text is in the UI's language.
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { EndpointPreset, SettingsInput } from '../api/settings';
import { parseUploadLimit } from './settings-form';
import { ConnectionTest, PresetPicker, type ModelList } from './ModelSettings';
import type { SettingsField } from './SettingsDialog';

/** The dialog's helpers a section uses for its fields. */
export interface FieldKit {
  /** Sets one form field (and clears its error). */
  set: <K extends keyof SettingsInput>(k: K, v: SettingsInput[K]) => void;
  /** The error paragraph under a field, or null. */
  fieldError: (f: SettingsField) => ReactNode;
  /** aria-invalid and aria-describedby for a field's control. */
  invalid: (f: SettingsField) => { 'aria-invalid': boolean; 'aria-describedby': string | undefined };
  /** Whether a flag or OPENAI_API_KEY sets the field this session (read-only). */
  locked: (f: string) => boolean;
  /** The "Set by --flag" note under such a field, or null. */
  lockNote: (f: string) => ReactNode;
  /** The settings have not loaded yet. */
  disabled: boolean;
}

/** Props of ModelSection. */
export interface ModelSectionProps {
  form: SettingsInput;
  kit: FieldKit;
  presets: readonly EndpointPreset[];
  modelList: ModelList;
  /** A key is stored in config.json. */
  apiKeySet: boolean;
  /** The id of the datalist of the endpoint's models. */
  listId: string;
  /** "Find local servers" and what it found (LocalServers), under the preset picker. */
  localServers?: ReactNode;
}

/**
 * The Model fieldset: endpoint preset, "Find local servers" (when given), base URL, API key (never shown; "stored" when one is,
 * an empty field keeps it, a box removes it), model with the endpoint's models as suggestions,
 * Test connection and the tool-call mode.
 */
export function ModelSection({ form, kit, presets, modelList, apiKeySet, listId, localServers = null }: ModelSectionProps) {
  const { t } = useTranslation('settings');
  const { set, fieldError, invalid, locked, lockNote } = kit;
  const keyStored = apiKeySet && !form.clear_api_key;
  const examplePlaceholder = presets.find((p) => p.base_url === form.base_url)?.example_model;
  return (
    <fieldset disabled={kit.disabled}>
      <legend>{t('model.legend')}</legend>
      {locked('base_url') ? null : <PresetPicker presets={presets} baseUrl={form.base_url} onPick={(p) => set('base_url', p.base_url)} />}
      {localServers}
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
        {apiKeySet && !locked('api_key') ? (
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
          list={listId}
          value={form.model}
          placeholder={examplePlaceholder ?? 'gpt-4o-mini'}
          spellCheck={false}
          autoComplete="off"
          readOnly={locked('model')}
          onChange={(e) => set('model', e.target.value)}
          {...invalid('model')}
        />
        {lockNote('model')}
        <span className="hint" title={modelList.error !== '' && modelList.detail !== '' ? modelList.detail : undefined}>
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
        disabled={kit.disabled}
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
  );
}

/** Props of SearxngSection and OtherSections. */
export interface SectionProps {
  form: SettingsInput;
  kit: FieldKit;
}

/** The Web search fieldset of a backend without search providers: SearXNG's URL only. */
export function SearxngSection({ form, kit }: SectionProps) {
  const { t } = useTranslation('settings');
  const { set, fieldError, invalid } = kit;
  return (
    <fieldset disabled={kit.disabled}>
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
  );
}

/** Props of OtherSections. */
export interface OtherSectionsProps extends SectionProps {
  /** The upload limit as typed (validated on save). */
  limitText: string;
  onLimitText: (text: string) => void;
  /** The largest upload limit Save accepts, in MiB (Settings.max_upload_mb_limit); 0: unknown. */
  maxUploadMb: number;
  /** What the proxy setting means now (Settings.proxy_source, proxy_in_effect); null before the settings load. */
  proxyNow: { source: string; proxy: string } | null;
}

/**
 * The key (namespace `settings`) of the words for what the proxy setting means now, by
 * Settings.proxy_source: "network.now.environment" ("Now: {{proxy}}, from the proxy
 * environment variables"), ".system", ".setting", ".invalid", else ".direct".
 */
export function proxyNowKey(source: string): string {
  return ['environment', 'system', 'setting', 'invalid'].includes(source) ? `network.now.${source}` : 'network.now.direct';
}

/** The Network (proxy), Web pages (private network), Privacy (remote images) and Files (upload limit) fieldsets. */
export function OtherSections({ form, kit, limitText, onLimitText, maxUploadMb, proxyNow }: OtherSectionsProps) {
  const { t } = useTranslation('settings');
  const { set, fieldError, invalid, locked, lockNote } = kit;
  return (
    <>
      <fieldset disabled={kit.disabled}>
        <legend>{t('network.legend')}</legend>
        <label className="field">
          <span className="label">{t('network.proxy')}</span>
          <input
            className="input"
            value={form.proxy ?? ''}
            placeholder={t('network.placeholder')}
            spellCheck={false}
            autoComplete="off"
            readOnly={locked('proxy')}
            onChange={(e) => set('proxy', e.target.value)}
            {...invalid('proxy')}
          />
          <span className="hint">{t('network.hint')}</span>
          <span className="hint" data-testid="proxy-now">
            {proxyNow ? t(proxyNowKey(proxyNow.source), { proxy: proxyNow.proxy }) : null}
          </span>
          {lockNote('proxy')}
          {fieldError('proxy')}
        </label>
      </fieldset>
      <fieldset disabled={kit.disabled}>
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
      <fieldset disabled={kit.disabled}>
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
      <fieldset disabled={kit.disabled}>
        <legend>{t('files.legend')}</legend>
        <label className="field">
          <span className="label">{t('files.uploadLimit')}</span>
          <span className="input-unit">
            <input
              className="input input-narrow"
              inputMode="numeric"
              value={limitText}
              onChange={(e) => {
                onLimitText(e.target.value);
                set('max_upload_mb', parseUploadLimit(e.target.value, maxUploadMb) ?? form.max_upload_mb);
              }}
              {...invalid('max_upload_mb')}
            />
            <span className="muted">{t('files.perFile')}</span>
          </span>
          <span className="hint">{maxUploadMb > 0 ? t('files.hint', { max: maxUploadMb }) : t('files.hintAny')}</span>
          {fieldError('max_upload_mb')}
        </label>
      </fieldset>
    </>
  );
}
