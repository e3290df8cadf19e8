// The Settings → Tools server form as typed (McpForm) and its conversion to what
// SettingsService.SaveMCPServer takes (McpServerInput), with the checks made before sending;
// the backend checks again (config.MCPServer.Validate) and its errors name the same fields.
import { toApiError } from '../api/call';
import { DEFAULT_MCP_AGENTS, DEFAULT_MCP_TIMEOUT_SECONDS, MAX_MCP_TIMEOUT_SECONDS, type McpServer, type McpServerInput } from '../api/mcp';
import { i18n } from '../i18n/i18n';

/** A server name: 1–64 ASCII letters, digits, "_" and "-" (config.json's rule). */
export const MCP_NAME_RE = /^[A-Za-z0-9_-]{1,64}$/;

/** An env variable or header name with its value as typed (MCP_SECRET_MASK = keep the stored one). */
export interface SecretRow {
  /** Stable React key of the row. */
  id: number;
  name: string;
  value: string;
}

/** How the server is reached: a local program over stdio, or a URL. */
export type McpKind = 'stdio' | 'http';

/** The server form as typed. */
export interface McpForm {
  name: string;
  /** The name the server was stored under ("" when adding one). */
  previousName: string;
  kind: McpKind;
  command: string;
  /** The arguments, one per line (blank lines dropped). */
  args: string;
  cwd: string;
  url: string;
  /** "" tries Streamable HTTP, then the legacy SSE transport; "http" or "sse" only that one. */
  transport: '' | 'http' | 'sse';
  env: SecretRow[];
  headers: SecretRow[];
  agents: string[];
  permission: 'confirm' | 'auto';
  /** Seconds, as typed. */
  timeout: string;
  /** Kept from the stored entry: the form does not change them. */
  disabled: boolean;
  disabledTools: string[];
}

/** A form field a check or the backend's error can name. */
export type McpField = 'name' | 'command' | 'args' | 'cwd' | 'url' | 'transport' | 'env' | 'headers' | 'agents' | 'permission' | 'timeout';

/** Errors by field; `general` holds what names none. */
export type McpFormErrors = Partial<Record<McpField, string>> & { general?: string };

// An absolute path on Unix ("/…") or Windows ("C:\…", "\\server\…").
const ABSOLUTE = /^(\/|[A-Za-z]:[\\/]|\\\\)/;

/** Reports whether `text` is an absolute http(s) URL with a host. */
function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.host !== '';
  } catch {
    return false;
  }
}

let nextRowId = 1;

/** A new row for the env or headers list. */
export function secretRow(name = '', value = ''): SecretRow {
  return { id: nextRowId++, name, value };
}

const rowsOf = (m: Record<string, string>): SecretRow[] =>
  Object.keys(m)
    .sort()
    .map((k) => secretRow(k, m[k] ?? ''));

/**
 * The form for a stored server (its values as the backend sends them, env and header
 * values masked), or an empty local-program form with the default agents, Ask first and
 * the default timeout when `server` is null.
 */
export function mcpFormOf(server: McpServer | null): McpForm {
  if (server === null) {
    return {
      name: '',
      previousName: '',
      kind: 'stdio',
      command: '',
      args: '',
      cwd: '',
      url: '',
      transport: '',
      env: [],
      headers: [],
      agents: [...DEFAULT_MCP_AGENTS],
      permission: 'confirm',
      timeout: String(DEFAULT_MCP_TIMEOUT_SECONDS),
      disabled: false,
      disabledTools: [],
    };
  }
  const remote = server.url !== '' && server.command === '';
  return {
    name: server.name,
    previousName: server.name,
    kind: remote ? 'http' : 'stdio',
    command: server.command,
    args: server.args.join('\n'),
    cwd: server.cwd,
    url: server.url,
    transport: server.transport === 'http' || server.transport === 'sse' ? server.transport : '',
    env: rowsOf(server.env),
    headers: rowsOf(server.headers),
    agents: [...server.agents],
    permission: server.permission === 'auto' ? 'auto' : 'confirm',
    timeout: String(server.timeout_seconds || DEFAULT_MCP_TIMEOUT_SECONDS),
    disabled: server.disabled,
    disabledTools: [...server.disabled_tools],
  };
}

/** The rows as a name → value map; errors for an empty or repeated name. */
function rowsToMap(rows: readonly SecretRow[], field: 'env' | 'headers'): { map: Record<string, string>; error: string } {
  const map: Record<string, string> = {};
  for (const r of rows) {
    const name = r.name.trim();
    if (name === '' && r.value === '') continue; // an untouched new row
    if (name === '') return { map, error: i18n.t('mcp:validation.rowName') };
    if (field === 'env' && /[=\s]/.test(name)) return { map, error: i18n.t('mcp:validation.envName', { name }) };
    if (field === 'headers' && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return { map, error: i18n.t('mcp:validation.headerName', { name }) };
    if (name in map) return { map, error: i18n.t('mcp:validation.rowTwice', { name }) };
    map[name] = r.value;
  }
  return { map, error: '' };
}

/**
 * Checks the form and builds what SaveMCPServer takes: the server's name and its input
 * (env and header values as typed, a mask kept as it is so the stored value stays; the
 * fields of the other kind left empty). `taken` are the names of the other stored servers:
 * a new name equal to one of them is an error (saving would replace that server). Returns
 * the errors by field instead when a field is not valid, so nothing is sent.
 */
export function buildMcpInput(
  form: McpForm,
  taken: readonly string[],
): { name: string; input: McpServerInput; errors: null } | { name: null; input: null; errors: McpFormErrors } {
  const errors: McpFormErrors = {};
  const name = form.name.trim();
  if (!MCP_NAME_RE.test(name)) errors.name = i18n.t('mcp:validation.name');
  else if (name !== form.previousName && taken.includes(name)) errors.name = i18n.t('mcp:validation.nameTaken', { name });
  const stdio = form.kind === 'stdio';
  const command = form.command.trim();
  const url = form.url.trim();
  if (stdio) {
    if (command === '') errors.command = i18n.t('mcp:validation.command');
    else if (/[\\/]/.test(command) && !ABSOLUTE.test(command)) errors.command = i18n.t('mcp:validation.commandRelative');
    const cwd = form.cwd.trim();
    if (cwd !== '' && !ABSOLUTE.test(cwd)) errors.cwd = i18n.t('mcp:validation.cwd');
  } else {
    if (!isHttpUrl(url)) errors.url = i18n.t('mcp:validation.url');
  }
  const env = rowsToMap(stdio ? form.env : [], 'env');
  if (env.error !== '') errors.env = env.error;
  const headers = rowsToMap(stdio ? [] : form.headers, 'headers');
  if (headers.error !== '') errors.headers = headers.error;
  if (form.agents.length === 0) errors.agents = i18n.t('mcp:validation.agents');
  const timeoutText = form.timeout.trim();
  const timeout = timeoutText === '' ? DEFAULT_MCP_TIMEOUT_SECONDS : Number(timeoutText);
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > MAX_MCP_TIMEOUT_SECONDS) {
    errors.timeout = i18n.t('mcp:validation.timeout', { max: MAX_MCP_TIMEOUT_SECONDS });
  }
  if (Object.keys(errors).length > 0) return { name: null, input: null, errors };
  return {
    name,
    errors: null,
    input: {
      command: stdio ? command : '',
      args: stdio
        ? form.args
            .split('\n')
            .map((a) => a.trim())
            .filter((a) => a !== '')
        : [],
      cwd: stdio ? form.cwd.trim() : '',
      url: stdio ? '' : url,
      env: env.map,
      headers: headers.map,
      transport: stdio ? '' : form.transport,
      agents: [...form.agents],
      permission: form.permission,
      disabled: form.disabled,
      disabled_tools: [...form.disabledTools],
      timeout_seconds: timeout,
      previous_name: form.previousName !== '' && form.previousName !== name ? form.previousName : '',
    },
  };
}

const FIELD_OF_KEY: Readonly<Record<string, McpField>> = {
  command: 'command',
  args: 'args',
  cwd: 'cwd',
  url: 'url',
  transport: 'transport',
  env: 'env',
  headers: 'headers',
  agents: 'agents',
  permission: 'permission',
  timeout_seconds: 'timeout',
};

/**
 * Sorts a SaveMCPServer error into the form's fields by its code's fields (ApiError.fields:
 * "mcp_servers.<name>.<key>…" from config.json's checks), never by its text: each key the
 * form shows goes to its field, the rest (and an error naming no field) to `general` with
 * the field named.
 */
export function mcpFormErrors(e: unknown, name: string): McpFormErrors {
  const err = toApiError(e);
  const out: McpFormErrors = {};
  const rest: string[] = [];
  const prefix = `mcp_servers.${name}`;
  for (const [field, msg] of Object.entries(err.fields)) {
    if (field === prefix) {
      out.name = msg;
      continue;
    }
    const key = field.startsWith(`${prefix}.`) ? (/^[a-z_]+/.exec(field.slice(prefix.length + 1))?.[0] ?? '') : '';
    const f = FIELD_OF_KEY[key];
    if (f !== undefined) out[f] = out[f] ? `${out[f]}; ${msg}` : msg;
    else rest.push(field === '' ? msg : `${field}: ${msg}`);
  }
  if (Object.keys(out).length === 0 && rest.length === 0) return { general: err.message };
  if (rest.length > 0) out.general = rest.join('; ');
  return out;
}

/**
 * What SaveMCPServer takes to store `server` as it is (env and header values masked, so
 * the stored ones stay): the base of a change made outside the form, such as the on/off
 * switch.
 */
export function mcpInputOf(server: McpServer): McpServerInput {
  return {
    command: server.command,
    args: [...server.args],
    cwd: server.cwd,
    url: server.url,
    env: { ...server.env },
    headers: { ...server.headers },
    transport: server.transport,
    agents: [...server.agents],
    permission: server.permission,
    disabled: server.disabled,
    disabled_tools: [...server.disabled_tools],
    timeout_seconds: server.timeout_seconds,
    previous_name: '',
  };
}
