// The MCP server part of SettingsService (app/mcp.go, docs/ARCHITECTURE.md "MCP tools"):
// Settings → Tools lists the user's Model Context Protocol servers, adds, edits, tests and
// removes them, switches their tools and reads their logs. Each function is one bound call
// through callService plus the normalization of its answer. Env and header values never
// reach the page: the backend sends MCP_SECRET_MASK in their place, and the mask sent back
// keeps the stored value.

import * as SettingsService from '../../wailsjs/go/app/SettingsService';
import type { app } from '../../wailsjs/go/models';
import { callService, asString as s, asNumber as n, asBool as b, asObject as o, asList as list, asStrings, type Model, wire } from './call';

/** Runs the bound call SettingsService.`method` (callService). */
const call = <T>(method: string, fn: () => Promise<T>): Promise<T> => callService('SettingsService', method, fn);

/**
 * What the backend sends for a stored env or header value (app.MCPSecretMask); sent back
 * unchanged in McpServerInput it keeps that value.
 */
export const MCP_SECRET_MASK = '••••••••';

/** The agents a server's tools are offered to when its entry names none (config.DefaultMCPAgents). */
export const DEFAULT_MCP_AGENTS: readonly string[] = ['search_agent', 'crawl_agent'];

/** A server's timeout for a start or a call when its entry sets none, in seconds. */
export const DEFAULT_MCP_TIMEOUT_SECONDS = 60;

/** The longest timeout_seconds config.json accepts. */
export const MAX_MCP_TIMEOUT_SECONDS = 3600;

/**
 * One tool of a server (app.MCPToolView): `name` as the server names it, `qualified_name`
 * as the models see it (mcp__<server>__<tool>), `enabled` false when the settings switch
 * it off, `read_only` the server's readOnlyHint.
 */
export type McpTool = Model<app.MCPToolView>;

/** A server's state in this process (app.MCPServerView.state). */
export type McpState = 'stopped' | 'starting' | 'running' | 'failed' | 'disabled';

/**
 * One MCP server as Settings → Tools shows it (app.MCPServerView): its entry in config.json
 * (`command`, `args`, `cwd` for a local program; `url` for a remote server; `env` and
 * `headers` mapping each name to MCP_SECRET_MASK, or "" for an empty value; `transport` ""
 * when inferred; `agents` and `permission` ("confirm" or "auto") and `timeout_seconds` as in
 * effect) and its `state` with, when failed, the `error`, the `log_tail` lines and
 * `retry_in_seconds`; `stdout_junk` counts the stray lines it wrote on stdout; `tools` are
 * the tools listed when it last ran (none before its first start).
 */
export type McpServer = Omit<Model<app.MCPServerView>, 'state' | 'tools'> & { state: McpState; tools: McpTool[] };

/**
 * A server as the form saves it (app.MCPServerInput). An env or header value equal to
 * MCP_SECRET_MASK keeps the stored value of that name; a name left out removes it.
 * `previous_name` renames that server. `agents` [] means the default agents,
 * `permission` "" confirm, `timeout_seconds` 0 the default (60).
 */
export type McpServerInput = Model<app.MCPServerInput>;

/**
 * What Test found (app.MCPTestResult): ok with the tools the server lists, or the error and
 * its log's last lines; `duration_ms` how long the test took.
 */
export type McpTestResult = Omit<Model<app.MCPTestResult>, 'tools'> & { tools: McpTool[] };

/** What an import stored (app.MCPImportResult): the servers' names and the dropped keys ("server.key"). */
export type McpImportResult = Model<app.MCPImportResult>;

const STATES: readonly McpState[] = ['stopped', 'starting', 'running', 'failed', 'disabled'];

const strMap = (v: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(o(v)).filter((e): e is [string, string] => typeof e[1] === 'string'));

function tool(v: unknown): McpTool {
  const x = o(v);
  return {
    name: s(x.name),
    qualified_name: s(x.qualified_name),
    title: s(x.title),
    description: s(x.description),
    enabled: x.enabled !== false,
    read_only: b(x.read_only),
  };
}

const tools = (v: unknown): McpTool[] => list(v).map(tool).filter((t) => t.name !== '');

/** Normalizes an app.MCPServerView (Go may leave fields out or send null). */
export function mcpServer(v: unknown): McpServer {
  const x = o(v);
  const state = s(x.state) as McpState;
  return {
    name: s(x.name),
    command: s(x.command),
    args: asStrings(x.args),
    cwd: s(x.cwd),
    url: s(x.url),
    env: strMap(x.env),
    headers: strMap(x.headers),
    transport: s(x.transport),
    agents: asStrings(x.agents),
    permission: s(x.permission) === 'auto' ? 'auto' : 'confirm',
    disabled: b(x.disabled),
    disabled_tools: asStrings(x.disabled_tools),
    timeout_seconds: n(x.timeout_seconds) || DEFAULT_MCP_TIMEOUT_SECONDS,
    state: STATES.includes(state) ? state : 'stopped',
    active_transport: s(x.active_transport),
    error: s(x.error),
    log_tail: asStrings(x.log_tail),
    stdout_junk: n(x.stdout_junk),
    retry_in_seconds: n(x.retry_in_seconds),
    tools: tools(x.tools),
  };
}

/**
 * The MCP servers of config.json by name, each with its state in this process
 * (SettingsService.MCPServers); starts none. Rejects with ApiError ("unsupported" on a
 * backend without MCP servers, settings_file_invalid for a config.json it cannot read).
 */
export async function listMcpServers(): Promise<McpServer[]> {
  return list(await call('MCPServers', () => SettingsService.MCPServers()))
    .map(mcpServer)
    .filter((x) => x.name !== '');
}

/**
 * Stores server `name` as `input` (SettingsService.SaveMCPServer): created, replaced, or
 * renamed from input.previous_name. Rejects with ApiError: invalid_settings with fields
 * "mcp_servers.<name>.<key>" naming each bad key, desktop_only in browser mode (a server
 * names a program this computer runs).
 */
export async function saveMcpServer(name: string, input: McpServerInput): Promise<void> {
  await call('SaveMCPServer', () => SettingsService.SaveMCPServer(name, wire<app.MCPServerInput>(input)));
}

/** Removes server `name` from config.json and stops it (SettingsService.RemoveMCPServer); not_found when absent. */
export async function removeMcpServer(name: string): Promise<void> {
  await call('RemoveMCPServer', () => SettingsService.RemoveMCPServer(name));
}

/**
 * Stores the servers of a pasted block (SettingsService.ImportMCPServers): Claude Desktop's or
 * Cursor's {"mcpServers": {…}}, VS Code's {"servers": {…}} or a bare {name: entry}.
 * Rejects with invalid_request for text that is no such block, invalid_settings naming a
 * bad key (nothing stored then), desktop_only in browser mode.
 */
export async function importMcpServers(text: string): Promise<McpImportResult> {
  const x = o(await call('ImportMCPServers', () => SettingsService.ImportMCPServers(text)));
  return { imported: asStrings(x.imported), ignored: asStrings(x.ignored) };
}

/**
 * Starts server `name` now and lists its tools, calling none (SettingsService.TestMCPServer).
 * A server that fails resolves with ok false and its error; rejects only for a server that
 * is not configured (not_found) or an unreadable config.json.
 */
export async function testMcpServer(name: string): Promise<McpTestResult> {
  const x = o(await call('TestMCPServer', () => SettingsService.TestMCPServer(name)));
  return { ok: b(x.ok), tools: tools(x.tools), error: s(x.error), log_tail: asStrings(x.log_tail), duration_ms: n(x.duration_ms) };
}

/** Server `name`'s log (SettingsService.MCPServerLog; at most 1 MiB, secrets hidden; "" before its first start). */
export async function mcpServerLog(name: string): Promise<string> {
  return s(await call('MCPServerLog', () => SettingsService.MCPServerLog(name)));
}

/**
 * Offers (`enabled`) or stops offering `tool` (its name on the server) of server `name` to
 * the agents from the next run (SettingsService.SetMCPToolEnabled: its disabled_tools).
 */
export async function setMcpToolEnabled(name: string, tool: string, enabled: boolean): Promise<void> {
  await call('SetMCPToolEnabled', () => SettingsService.SetMCPToolEnabled(name, tool, enabled));
}

/**
 * The agents a server's tools can be offered to: the built-in agents and the user's own
 * (the agent files of the data dir), the default ones first, when this build's bindings have
 * SettingsService.UserAgents (looked up by name: a build without it still compiles);
 * otherwise, or when the call fails, DEFAULT_MCP_AGENTS. Never rejects.
 */
export async function mcpAgentChoices(): Promise<string[]> {
  const fn = (SettingsService as unknown as Record<string, unknown>).UserAgents;
  if (typeof fn !== 'function') return [...DEFAULT_MCP_AGENTS];
  try {
    const x = o(await call('UserAgents', () => (fn as () => Promise<unknown>)()));
    const names = [...list(x.built_in), ...list(x.user)].map((a) => s(o(a).name)).filter((a) => a !== '');
    return [...new Set([...DEFAULT_MCP_AGENTS, ...names])];
  } catch {
    return [...DEFAULT_MCP_AGENTS];
  }
}
