import { useEffect, useState, type SyntheticEvent } from 'react';
import { DEFAULT_MAX_UPLOAD_MB, getSettings, saveSettings, type Settings, type SettingsInput } from '../api';
import { Spinner } from './icons';
import { Modal } from './Modal';
import { useConversationSettingsForm } from './ConversationSettings';

/** A settings field that validation errors can name. */
export type SettingsField = 'base_url' | 'api_key' | 'model' | 'tool_call_mode' | 'searxng_url' | 'max_upload_mb';

const FIELDS: readonly SettingsField[] = ['base_url', 'api_key', 'model', 'tool_call_mode', 'searxng_url', 'max_upload_mb'];

/** A Save error split into per-field messages and the rest. */
export interface SettingsErrors {
  fields: Partial<Record<SettingsField, string>>;
  /** Text that names no field ("" when every part did). */
  general: string;
}

/**
 * Splits a Save validation error into per-field messages. The backend writes
 * "invalid settings: base_url: must be ...; searxng_url: must be ..." (config.Validate):
 * each "; "-separated part that starts with a field name goes to that field.
 */
export function parseSettingsErrors(message: string): SettingsErrors {
  const body = message.replace(/^invalid settings:\s*/i, '');
  const fields: Partial<Record<SettingsField, string>> = {};
  const rest: string[] = [];
  for (const part of body.split(/;\s+/)) {
    const m = /^([a-z_]+):\s*(.+)$/s.exec(part.trim());
    const field = m ? FIELDS.find((f) => f === m[1]) : undefined;
    if (m && field) fields[field] = m[2];
    else if (part.trim() !== '') rest.push(part.trim());
  }
  return { fields, general: rest.length > 0 ? (Object.keys(fields).length > 0 ? rest.join('; ') : message) : '' };
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

/** Props of SettingsDialog. */
export interface SettingsDialogProps {
  onClose: () => void;
  /** Called with the stored settings after a successful save. */
  onSaved: (s: Settings) => void;
}

/**
 * The settings dialog: model endpoint, API key (never shown; "stored" when one is set and an
 * empty field keeps it), model, tool-call mode, SearXNG URL and the private-network switch.
 * Save shows the backend's validation error next to the field it names.
 */
export function SettingsDialog({ onClose, onSaved }: SettingsDialogProps) {
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
  });
  // The upload limit as typed (validated on save; the backend accepts 1–1024).
  const [limitText, setLimitText] = useState(String(DEFAULT_MAX_UPLOAD_MB));
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<SettingsErrors | null>(null);
  const [saved, setSaved] = useState(false);
  const extra = useConversationSettingsForm(loaded === null, form.model);

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
        });
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

  const set = <K extends keyof SettingsInput>(k: K, v: SettingsInput[K]) => {
    setForm((f) => ({ ...f, [k]: v }));
    setSaved(false);
    if (error) setError({ ...error, fields: { ...error.fields, [k]: undefined } });
  };

  const submit = (e: SyntheticEvent) => {
    e.preventDefault();
    const limit = parseUploadLimit(limitText);
    if (limit === null) {
      setError({ fields: { max_upload_mb: `enter a whole number of MB from 1 to ${String(MAX_UPLOAD_MB_LIMIT)}` }, general: '' });
      return;
    }
    setSaving(true);
    setError(null);
    saveSettings({ ...form, max_upload_mb: limit, ...extra.input }).then(
      (s) => {
        extra.saved();
        setSaving(false);
        setSaved(true);
        setLoaded(s);
        setForm((f) => ({ ...f, api_key: '', clear_api_key: false }));
        onSaved(s);
      },
      (err: unknown) => {
        setSaving(false);
        setError(parseSettingsErrors(err instanceof Error ? err.message : String(err)));
      },
    );
  };

  const fieldError = (f: SettingsField) =>
    error?.fields[f] ? (
      <p className="field-error" id={`err-${f}`} role="alert">
        {error.fields[f]}
      </p>
    ) : null;
  const invalid = (f: SettingsField) => ({
    'aria-invalid': Boolean(error?.fields[f]),
    'aria-describedby': error?.fields[f] ? `err-${f}` : undefined,
  });

  const keyStored = loaded?.api_key_set === true && !form.clear_api_key;

  return (
    <Modal
      title="Settings"
      onClose={onClose}
      className="modal-settings"
      footer={
        <>
          {saved ? <span className="saved-note">Saved</span> : null}
          <button type="button" className="btn" onClick={onClose}>
            Close
          </button>
          <button type="submit" form="settings-form" className="btn btn-primary" disabled={saving || loaded === null || extra.pending}>
            {saving ? <Spinner size={13} /> : null}
            Save
          </button>
        </>
      }
    >
      {loadError ? (
        <p className="field-error" role="alert">
          Could not load the settings: {loadError}
        </p>
      ) : null}
      <form id="settings-form" className="settings" onSubmit={submit} noValidate>
        {error?.general ? (
          <div className="form-error" role="alert">
            {error.general}
          </div>
        ) : null}
        <fieldset disabled={loaded === null}>
          <legend>Model</legend>
          <label className="field">
            <span className="label">Base URL</span>
            <input
              className="input"
              type="url"
              value={form.base_url}
              placeholder="https://api.openai.com/v1"
              spellCheck={false}
              onChange={(e) => set('base_url', e.target.value)}
              {...invalid('base_url')}
            />
            <span className="hint">Any OpenAI-compatible endpoint, local or remote.</span>
            {fieldError('base_url')}
          </label>
          <label className="field">
            <span className="label">
              API key
              {keyStored ? <span className="badge badge-ok">stored</span> : null}
            </span>
            <input
              className="input"
              type="password"
              value={form.api_key}
              autoComplete="off"
              placeholder={keyStored ? 'Stored — leave empty to keep it' : 'sk-…'}
              onChange={(e) => set('api_key', e.target.value)}
              {...invalid('api_key')}
            />
            {loaded?.api_key_set ? (
              <label className="check small">
                <input
                  type="checkbox"
                  checked={form.clear_api_key}
                  onChange={(e) => set('clear_api_key', e.target.checked)}
                />
                Remove the stored key
              </label>
            ) : null}
            {fieldError('api_key')}
          </label>
          <label className="field">
            <span className="label">Model</span>
            <input
              className="input"
              value={form.model}
              placeholder="gpt-4o-mini"
              spellCheck={false}
              onChange={(e) => set('model', e.target.value)}
              {...invalid('model')}
            />
            {fieldError('model')}
          </label>
          <div className="field" role="radiogroup" aria-label="Tool-call mode">
            <span className="label">Tool-call mode</span>
            <div className="segmented">
              {(['native', 'xml'] as const).map((m) => (
                <label key={m} className={form.tool_call_mode === m ? 'active' : ''}>
                  <input
                    type="radio"
                    name="tool_call_mode"
                    value={m}
                    checked={form.tool_call_mode === m}
                    onChange={() => set('tool_call_mode', m)}
                  />
                  {m === 'native' ? 'Native tools' : 'XML in text'}
                </label>
              ))}
            </div>
            <span className="hint">Use XML for models or servers without function calling.</span>
            {fieldError('tool_call_mode')}
          </div>
        </fieldset>
        <fieldset disabled={loaded === null}>
          <legend>Web</legend>
          <label className="field">
            <span className="label">SearXNG URL</span>
            <input
              className="input"
              type="url"
              value={form.searxng_url}
              placeholder="http://localhost:8888"
              spellCheck={false}
              onChange={(e) => set('searxng_url', e.target.value)}
              {...invalid('searxng_url')}
            />
            <span className="hint">The search engine the search agent queries.</span>
            {fieldError('searxng_url')}
          </label>
          <label className="check">
            <input
              type="checkbox"
              checked={form.allow_private_network}
              onChange={(e) => set('allow_private_network', e.target.checked)}
            />
            <span>
              Allow private network addresses
              <span className="hint block">Lets the crawl agent fetch pages on localhost and your LAN. Off by default.</span>
            </span>
          </label>
        </fieldset>
        <fieldset disabled={loaded === null}>
          <legend>Files</legend>
          <label className="field">
            <span className="label">Upload limit</span>
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
              <span className="muted">MB per file</span>
            </span>
            <span className="hint">Larger files are refused when you drop or add them (1–{MAX_UPLOAD_MB_LIMIT} MB).</span>
            {fieldError('max_upload_mb')}
          </label>
        </fieldset>
        {extra.sections}
        {loaded?.data_dir ? (
          <p className="hint">
            Data folder: <code>{loaded.data_dir}</code>
          </p>
        ) : null}
      </form>
    </Modal>
  );
}
