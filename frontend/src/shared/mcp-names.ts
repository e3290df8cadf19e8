// The names models see for MCP tools, mcp__<server>__<tool> (docs/ARCHITECTURE.md, "MCP
// tools"), read back for the activity and the permission prompt.

/** The prefix of the names models see for MCP tools (mcp.ToolPrefix). */
export const MCP_TOOL_PREFIX = 'mcp__';

/**
 * The server and tool of a name models see for an MCP tool, "mcp__<server>__<tool>"
 * (mcp.QualifiedName: the tool's name with characters outside [A-Za-z0-9_-] replaced, and
 * a hash suffix when it had to be changed), split at the first "__" after the prefix; null
 * for any other tool name.
 */
export function parseMcpToolName(name: string): { server: string; tool: string } | null {
  if (!name.startsWith(MCP_TOOL_PREFIX)) return null;
  const rest = name.slice(MCP_TOOL_PREFIX.length);
  const at = rest.indexOf('__');
  if (at <= 0 || at + 2 >= rest.length) return null;
  return { server: rest.slice(0, at), tool: rest.slice(at + 2) };
}

/**
 * A one-line summary of an MCP tool call's arguments for the activity: the value itself when
 * there is one string argument (quoted: true), else "name: value" pairs joined by ", "
 * (strings as they are, other values as JSON); "" for none.
 */
export function mcpArgsSummary(params: Record<string, unknown>): { text: string; quoted: boolean } {
  const entries = Object.entries(params);
  if (entries.length === 0) return { text: '', quoted: false };
  const only = entries.length === 1 ? entries[0]?.[1] : undefined;
  if (typeof only === 'string') return { text: only, quoted: true };
  const text = entries.map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', ');
  return { text, quoted: false };
}
