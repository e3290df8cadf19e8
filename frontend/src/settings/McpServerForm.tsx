// The add / edit form of an MCP server in Settings → Tools (ToolsSettings).
import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { MAX_MCP_TIMEOUT_SECONDS, MCP_SECRET_MASK, saveMcpServer, type McpServer } from '../api/mcp';
import { buildMcpInput, mcpFormErrors, mcpFormOf, secretRow, type McpField, type McpForm, type McpFormErrors, type SecretRow } from './mcp-form';
import { Spinner, XIcon } from '../shared/icons';

// Examples shown in empty fields: names and commands, the same in every language.
const EXAMPLE = {
  name: 'everything',
  command: 'npx',
  args: '-y\n@modelcontextprotocol/server-everything',
  url: 'https://example.com/mcp',
  env: 'API_TOKEN',
  header: 'Authorization',
};

/** Props of McpServerForm. */
export interface McpServerFormProps {
  /** The server edited, or null to add one. */
  server: McpServer | null;
  /** The agents that can be offered the server's tools (its own agents are added). */
  agents: readonly string[];
  /** The names of the stored servers (a new name may not take one). */
  taken: readonly string[];
  onSaved: () => void;
  onCancel: () => void;
}

/**
 * A value typed over a stored (masked) one: the typed characters without the mask's dots,
 * so typing at the end of "••••••••" or over a part of it gives just what was typed.
 */
export function typedOverMask(previous: string, next: string): string {
  if (previous !== MCP_SECRET_MASK || next === MCP_SECRET_MASK) return next;
  return next.replaceAll('•', '');
}

/** The form's state, its setter (which clears the named fields' errors) and its Save. */
function useServerForm(server: McpServer | null, taken: readonly string[], onSaved: () => void) {
  const [form, setForm] = useState<McpForm>(() => mcpFormOf(server));
  const [errors, setErrors] = useState<McpFormErrors>({});
  const [saving, setSaving] = useState(false);
  const set = <K extends keyof McpForm>(k: K, v: McpForm[K], ...fields: McpField[]) => {
    setForm((f) => ({ ...f, [k]: v }));
    if (fields.length > 0) setErrors((e) => Object.fromEntries(Object.entries(e).filter(([f]) => !(fields as string[]).includes(f) && f !== 'general')));
  };
  const submit = () => {
    const built = buildMcpInput(form, taken.filter((n) => n !== form.previousName));
    if (built.errors !== null) {
      setErrors(built.errors);
      return;
    }
    setSaving(true);
    setErrors({});
    saveMcpServer(built.name, built.input).then(
      () => {
        setSaving(false);
        onSaved();
      },
      (e: unknown) => {
        setSaving(false);
        setErrors(mcpFormErrors(e, built.name));
      },
    );
  };
  return { form, set, errors, saving, submit };
}

/** A field's error paragraph and the aria attributes of its control. */
interface FieldHelp {
  /** aria-invalid, and aria-describedby naming the error (else `hint`, the id of the field's hint). */
  describe: (f: McpField, hint?: string) => { 'aria-invalid': boolean; 'aria-describedby': string | undefined };
  fieldError: (f: McpField) => ReactNode;
  err: (f: McpField) => string | undefined;
  /** The form's id prefix for element ids. */
  id: string;
}

function fieldHelp(id: string, errors: McpFormErrors): FieldHelp {
  const err = (f: McpField) => errors[f];
  return {
    id,
    err,
    describe: (f, hint) => ({ 'aria-invalid': Boolean(err(f)), 'aria-describedby': err(f) ? `${id}-err-${f}` : hint }),
    fieldError: (f) =>
      err(f) ? (
        <p className="field-error" id={`${id}-err-${f}`} role="alert">
          {err(f)}
        </p>
      ) : null,
  };
}

/** What the parts of the form get: the form, its setter and the field helpers. */
interface PartProps {
  form: McpForm;
  set: ReturnType<typeof useServerForm>['set'];
  h: FieldHelp;
}

/**
 * The server form: name; a local program (command, arguments one per line, folder,
 * environment variables) or a remote server (URL, transport, headers), the values of both
 * lists typed in password fields, a stored one shown as the mask and kept unless retyped;
 * the agents offered its tools; Ask first or run at once; the timeout. Enter in a field
 * saves, Escape cancels; the checks run before sending and the backend's errors show under
 * the field they name.
 */
export function McpServerForm({ server, agents, taken, onSaved, onCancel }: McpServerFormProps) {
  const { t } = useTranslation('mcp');
  const { form, set, errors, saving, submit } = useServerForm(server, taken, onSaved);
  const nameRef = useRef<HTMLInputElement>(null);
  useEffect(() => nameRef.current?.focus(), []);
  const h = fieldHelp(`mcp-form-${server?.name ?? 'new'}`, errors);
  const { id, describe, fieldError } = h;
  // Enter in a one-line field saves (and never reaches the settings form around); Escape cancels.
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const target = e.target as HTMLElement;
    const oneLine = target.tagName === 'INPUT' && (target as HTMLInputElement).type !== 'checkbox' && (target as HTMLInputElement).type !== 'radio';
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onCancel();
    } else if (e.key === 'Enter' && !e.nativeEvent.isComposing && (oneLine || e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      submit();
    }
  };

  return (
    <div className="mcp-form" role="group" aria-labelledby={`${id}-title`} onKeyDown={onKeyDown}>
      <h3 className="mcp-form-title" id={`${id}-title`}>
        {server === null ? t('form.addTitle') : t('form.editTitle', { name: server.name })}
      </h3>
      {errors.general ? (
        <div className="form-error" role="alert">
          {errors.general}
        </div>
      ) : null}
      <label className="field">
        <span className="label">{t('form.name')}</span>
        <input
          ref={nameRef}
          className="input"
          value={form.name}
          placeholder={EXAMPLE.name}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => set('name', e.target.value, 'name')}
          {...describe('name', `${id}-hint-name`)}
        />
        <span className="hint" id={`${id}-hint-name`}>
          {t('form.nameHint')}
        </span>
        {fieldError('name')}
      </label>
      <div className="field" role="radiogroup" aria-label={t('form.kind')}>
        <span className="label">{t('form.kind')}</span>
        <div className="segmented">
          {(['stdio', 'http'] as const).map((k) => (
            <label key={k} className={form.kind === k ? 'active' : ''}>
              <input type="radio" name={`${id}-kind`} value={k} checked={form.kind === k} onChange={() => set('kind', k, 'command', 'url')} />
              {k === 'stdio' ? t('form.kindStdio') : t('form.kindHttp')}
            </label>
          ))}
        </div>
      </div>
      {form.kind === 'stdio' ? <StdioFields form={form} set={set} h={h} /> : <HttpFields form={form} set={set} h={h} />}
      <UseFields form={form} set={set} h={h} agents={agents} />
      <div className="mcp-form-foot">
        <button type="button" className="btn btn-sm" onClick={onCancel}>
          {t('common:cancel')}
        </button>
        <button type="button" className="btn btn-sm btn-primary" onClick={submit} disabled={saving}>
          {saving ? <Spinner size={12} /> : null}
          {server === null ? t('form.add') : t('common:save')}
        </button>
      </div>
    </div>
  );
}

/** A local program's fields: command, arguments (one per line), folder, environment variables. */
function StdioFields({ form, set, h }: PartProps) {
  const { t } = useTranslation('mcp');
  const { id, describe, fieldError, err } = h;
  return (
    <>
      <label className="field">
        <span className="label">{t('form.command')}</span>
        <input
          className="input mono"
          value={form.command}
          placeholder={EXAMPLE.command}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => set('command', e.target.value, 'command')}
          {...describe('command', `${id}-hint-command`)}
        />
        <span className="hint" id={`${id}-hint-command`}>
          {t('form.commandHint')}
        </span>
        {fieldError('command')}
      </label>
      <label className="field">
        <span className="label">{t('form.args')}</span>
        <textarea
          className="input mono mcp-args"
          rows={3}
          value={form.args}
          placeholder={EXAMPLE.args}
          spellCheck={false}
          onChange={(e) => set('args', e.target.value, 'args')}
          {...describe('args', `${id}-hint-args`)}
        />
        <span className="hint" id={`${id}-hint-args`}>
          {t('form.argsHint')}
        </span>
        {fieldError('args')}
      </label>
      <label className="field">
        <span className="label">{t('form.cwd')}</span>
        <input
          className="input mono"
          value={form.cwd}
          placeholder={t('form.cwdPlaceholder')}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => set('cwd', e.target.value, 'cwd')}
          {...describe('cwd')}
        />
        {fieldError('cwd')}
      </label>
      <SecretRows
        field="env"
        label={t('form.env')}
        namePlaceholder={EXAMPLE.env}
        rows={form.env}
        onChange={(rows) => set('env', rows, 'env')}
        error={err('env')}
        errorId={`${id}-err-env`}
      />
    </>
  );
}

/** A remote server's fields: URL, transport, headers. */
function HttpFields({ form, set, h }: PartProps) {
  const { t } = useTranslation('mcp');
  const { id, describe, fieldError, err } = h;
  return (
    <>
      <label className="field">
        <span className="label">{t('form.url')}</span>
        <input
          className="input mono"
          type="url"
          value={form.url}
          placeholder={EXAMPLE.url}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => set('url', e.target.value, 'url')}
          {...describe('url')}
        />
        {fieldError('url')}
      </label>
      <label className="field">
        <span className="label">{t('form.transport')}</span>
        <select className="input" value={form.transport} onChange={(e) => set('transport', e.target.value as McpForm['transport'], 'transport')} {...describe('transport')}>
          <option value="">{t('form.transportAuto')}</option>
          <option value="http">{t('form.transportHttp')}</option>
          <option value="sse">{t('form.transportSse')}</option>
        </select>
        {fieldError('transport')}
      </label>
      <SecretRows
        field="headers"
        label={t('form.headers')}
        namePlaceholder={EXAMPLE.header}
        rows={form.headers}
        onChange={(rows) => set('headers', rows, 'headers')}
        error={err('headers')}
        errorId={`${id}-err-headers`}
      />
    </>
  );
}

/** How the server is used: the agents offered its tools, Ask first or run at once, the timeout. */
function UseFields({ form, set, h, agents }: PartProps & { agents: readonly string[] }) {
  const { t } = useTranslation('mcp');
  const { id, describe, fieldError, err } = h;
  const choices = [...new Set([...agents, ...form.agents])];
  return (
    <>
      <fieldset className="field mcp-agents" aria-describedby={err('agents') ? `${id}-err-agents` : undefined}>
        <legend className="label">{t('form.agents')}</legend>
        <div className="mcp-agent-list">
          {choices.map((a) => (
            <label key={a} className="check small">
              <input
                type="checkbox"
                checked={form.agents.includes(a)}
                onChange={(e) => set('agents', e.target.checked ? [...form.agents, a] : form.agents.filter((x) => x !== a), 'agents')}
              />
              <code>{a}</code>
            </label>
          ))}
        </div>
        {fieldError('agents')}
      </fieldset>
      <div className="field" role="radiogroup" aria-label={t('form.permission')}>
        <span className="label">{t('form.permission')}</span>
        <div className="segmented">
          {(['confirm', 'auto'] as const).map((p) => (
            <label key={p} className={form.permission === p ? 'active' : ''}>
              <input type="radio" name={`${id}-permission`} value={p} checked={form.permission === p} onChange={() => set('permission', p, 'permission')} />
              {p === 'confirm' ? t('form.confirm') : t('form.auto')}
            </label>
          ))}
        </div>
        {fieldError('permission')}
      </div>
      <label className="field">
        <span className="label">{t('form.timeout')}</span>
        <span className="num-unit">
          <input
            className="input num-input"
            inputMode="numeric"
            value={form.timeout}
            onChange={(e) => set('timeout', e.target.value, 'timeout')}
            {...describe('timeout', `${id}-hint-timeout`)}
          />
          <span className="muted">{t('form.seconds')}</span>
        </span>
        <span className="hint" id={`${id}-hint-timeout`}>
          {t('form.timeoutHint', { max: MAX_MCP_TIMEOUT_SECONDS })}
        </span>
        {fieldError('timeout')}
      </label>
    </>
  );
}

/** Props of SecretRows. */
interface SecretRowsProps {
  field: 'env' | 'headers';
  label: string;
  namePlaceholder: string;
  rows: readonly SecretRow[];
  onChange: (rows: SecretRow[]) => void;
  error: string | undefined;
  errorId: string;
}

/**
 * The environment variables or headers: a name and a value (a password field; a stored one
 * shows the mask and is kept unless retyped) per row, a button to remove each and one to
 * add a row.
 */
function SecretRows({ field, label, namePlaceholder, rows, onChange, error, errorId }: SecretRowsProps) {
  const { t } = useTranslation('mcp');
  const update = (i: number, patch: Partial<SecretRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const anyStored = rows.some((r) => r.value === MCP_SECRET_MASK);
  return (
    <fieldset className="field mcp-rows" data-rows={field} aria-describedby={error ? errorId : undefined}>
      <legend className="label">{label}</legend>
      {rows.map((r, i) => (
        <div key={r.id} className="mcp-row">
          <input
            className="input mono"
            value={r.name}
            placeholder={namePlaceholder}
            spellCheck={false}
            autoComplete="off"
            aria-label={t('form.rowName', { n: i + 1 })}
            aria-invalid={Boolean(error)}
            onChange={(e) => update(i, { name: e.target.value })}
          />
          <input
            className="input mono"
            type="password"
            value={r.value}
            autoComplete="off"
            placeholder={t('form.value')}
            aria-label={t('form.rowValue', { name: r.name !== '' ? r.name : String(i + 1) })}
            onFocus={(e) => {
              if (r.value === MCP_SECRET_MASK) e.target.select();
            }}
            onChange={(e) => update(i, { value: typedOverMask(r.value, e.target.value) })}
          />
          <button type="button" className="icon-btn" aria-label={t('form.removeRow', { name: r.name !== '' ? r.name : String(i + 1) })} onClick={() => onChange(rows.filter((_, j) => j !== i))}>
            <XIcon size={14} />
          </button>
        </div>
      ))}
      <div>
        <button type="button" className="btn btn-sm btn-ghost" onClick={() => onChange([...rows, secretRow()])}>
          {field === 'env' ? t('form.addEnv') : t('form.addHeader')}
        </button>
      </div>
      {anyStored ? <span className="hint">{t('form.storedHint')}</span> : null}
      {error ? (
        <p className="field-error" id={errorId} role="alert">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
