// A small MCP server over stdio for the Go tests of the MCP client (backend/mcp), built on
// the official TypeScript SDK that server-everything installs here. It does what the real
// servers cannot be made to do on demand:
//
//   add-tool {name}   adds a tool and sends notifications/tools/list_changed
//   wait              answers only when cancelled: on notifications/cancelled it writes
//                     "cancelled request <id>" to stderr
//   junk              writes a line that is not JSON-RPC to stdout, then answers "ok"
//   spawn             starts a child process (sleep 300) and answers with its pid
//   crash             exits with status 3 without answering
//   env {name}        answers with the value of an environment variable ("" if unset)
//                     and writes "env NAME=value" to stderr
//
// Arguments: --junk writes a banner line to stdout before speaking MCP.
import { spawn } from 'node:child_process';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const obj = (props = {}, required = []) => ({ type: 'object', properties: props, required });
const tools = [
  { name: 'add-tool', description: 'Adds a tool', inputSchema: obj({ name: { type: 'string' } }, ['name']) },
  { name: 'wait', description: 'Answers only when cancelled', inputSchema: obj() },
  { name: 'junk', description: 'Writes junk to stdout', inputSchema: obj() },
  { name: 'spawn', description: 'Starts a child process', inputSchema: obj() },
  { name: 'crash', description: 'Exits at once', inputSchema: obj() },
  { name: 'env', description: 'Reads an environment variable', inputSchema: obj({ name: { type: 'string' } }, ['name']),
    annotations: { readOnlyHint: true } },
];
const text = (t) => ({ content: [{ type: 'text', text: String(t) }] });

if (process.argv.includes('--junk')) {
  process.stdout.write('test server starting (this banner is not JSON-RPC)\n');
}

const server = new Server({ name: 'artifactflow-test-server', version: '1.0.0' },
  { capabilities: { tools: { listChanged: true } } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
  const args = req.params.arguments ?? {};
  switch (req.params.name) {
    case 'add-tool':
      tools.push({ name: args.name, description: 'added', inputSchema: obj() });
      await server.sendToolListChanged();
      return text('added ' + args.name);
    case 'wait':
      return await new Promise((resolve) => {
        extra.signal.addEventListener('abort', () => {
          process.stderr.write(`cancelled request ${extra.requestId}\n`);
          resolve(text('cancelled'));
        });
      });
    case 'junk':
      process.stdout.write('some debug print on stdout\n');
      return text('ok');
    case 'spawn': {
      const child = spawn('sleep', ['300'], { stdio: 'ignore' });
      return text(child.pid);
    }
    case 'crash':
      process.exit(3);
      break;
    case 'env':
      process.stderr.write(`env ${args.name}=${process.env[args.name] ?? ''}\n`);
      return text(process.env[args.name] ?? '');
    default:
      if (tools.some((t) => t.name === req.params.name)) return text('called ' + req.params.name);
      throw new Error('unknown tool ' + req.params.name);
  }
});
await server.connect(new StdioServerTransport());
