// Settings → Tools: the user's MCP servers (docs/ARCHITECTURE.md, "MCP tools"). Self-contained:
// it loads and saves through SettingsService's MCP methods on its own (a change applies at
// once, not on the dialog's Save) and renders nothing on a backend without them.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toApiError } from '../api/call';
import {
  DEFAULT_MCP_AGENTS,
  importMcpServers,
  listMcpServers,
  mcpAgentChoices,
  mcpServerLog,
  removeMcpServer,
  saveMcpServer,
  setMcpToolEnabled,
  testMcpServer,
  type McpImportResult,
  type McpServer,
  type McpTestResult,
  type McpTool,
} from '../api/mcp';
import { isBrowserMode } from '../api/runtime';
import { describeError, errorMessage } from '../shared/errors';
import { formatDuration } from '../shared/format';
import { mcpInputOf } from './mcp-form';
import { Spinner } from '../shared/icons';
import { McpServerForm } from './McpServerForm';
import './mcp.css';

/** What the section shows below the list: nothing, the server form (adding or editing), or the paste box. */
type Panel = { kind: 'none' } | { kind: 'form'; server: McpServer | null } | { kind: 'import' };

/** The desktop-only explanation: the error code's sentence and why, in the UI's language. */
function DesktopOnly() {
  const { t } = useTranslation('mcp');
  return (
    <p className="form-error mcp-desktop-only" role="alert">
      {errorMessage('desktop_only')} {t('desktopOnlyWhy')}
    </p>
  );
}

/**
 * The MCP servers section of Settings: each server with its transport, command or URL,
 * state (not started, starting, running with N tools, failed with the error and its log's
 * last lines, off), the agents offered its tools, its permission and an on/off switch; per
 * server Test (lists the tools, calls none), the tools with a switch each, its log, Edit and
 * Remove (confirmed). Below: Add server (McpServerForm) and Paste JSON (the mcpServers block
 * of Claude Desktop or Cursor), each saying what it stored or why not. In browser mode adding
 * and changing a server is refused (desktop_only, explained); the rest works there too.
 */
export function ToolsSettings() {
  const { t } = useTranslation('mcp');
  const [servers, setServers] = useState<McpServer[] | null>(null);
  const [loadError, setLoadError] = useState('');
  const [unsupported, setUnsupported] = useState(false);
  const [panel, setPanel] = useState<Panel>({ kind: 'none' });
  const [agents, setAgents] = useState<string[]>([...DEFAULT_MCP_AGENTS]);
  const [desktopNote, setDesktopNote] = useState(false);
  const [imported, setImported] = useState<McpImportResult | null>(null);
  const browser = isBrowserMode();
  const sectionRef = useRef<HTMLFieldSetElement>(null);
  // Where focus goes back to once the form or the paste box has closed: the button that
  // opened it, found again after the section is drawn anew.
  const returnTo = useRef<{ button: 'add' | 'paste' } | { button: 'edit'; name: string } | null>(null);

  const reload = useCallback(() => {
    listMcpServers().then(
      (list) => {
        setServers(list);
        setLoadError('');
      },
      (e: unknown) => {
        const err = toApiError(e);
        if (err.code === 'unsupported') setUnsupported(true);
        else setLoadError(describeError(err));
      },
    );
  }, []);

  useEffect(() => {
    reload();
    void mcpAgentChoices().then(setAgents);
  }, [reload]);

  // A server some run is starting: look again until it has started or failed.
  const starting = servers?.some((s) => s.state === 'starting') === true;
  useEffect(() => {
    if (!starting) return;
    const id = window.setTimeout(reload, 1000);
    return () => window.clearTimeout(id);
  }, [starting, servers, reload]);

  // Once the panel has closed and the section is drawn: focus the button that opened it
  // (an edited server's Edit; the add button when that server is gone, renamed or removed).
  useEffect(() => {
    const back = returnTo.current;
    const root = sectionRef.current;
    if (panel.kind !== 'none' || back === null || root === null) return;
    returnTo.current = null;
    const card = back.button === 'edit' ? Array.from(root.querySelectorAll<HTMLElement>('[data-server]')).find((c) => c.dataset.server === back.name) : undefined;
    const target = card?.querySelector<HTMLElement>('[data-mcp-edit]') ?? root.querySelector<HTMLElement>(back.button === 'paste' ? '[data-mcp-paste]' : '[data-mcp-add]');
    target?.focus();
  }, [panel]);

  if (unsupported) return null;

  const open = (next: Exclude<Panel, { kind: 'none' }>) => {
    if (browser) {
      setDesktopNote(true);
      return;
    }
    if (next.kind === 'import') returnTo.current = { button: 'paste' };
    else returnTo.current = next.server === null ? { button: 'add' } : { button: 'edit', name: next.server.name };
    setDesktopNote(false);
    setImported(null);
    setPanel(next);
  };
  const close = () => setPanel({ kind: 'none' });
  const names = (servers ?? []).map((s) => s.name);

  return (
    <fieldset className="mcp-section" data-testid="mcp-servers" ref={sectionRef}>
      <legend>{t('legend')}</legend>
      <p className="hint tools-intro">{t('intro')}</p>
      {browser ? <p className="hint">{t('browserHint')}</p> : null}
      {loadError !== '' ? (
        <p className="field-error" role="alert">
          {t('loadFailed', { error: loadError })}
        </p>
      ) : null}
      {servers === null && loadError === '' ? (
        <p className="hint">
          <Spinner size={12} /> {t('loading')}
        </p>
      ) : null}
      {servers !== null && servers.length === 0 ? <p className="hint mcp-empty">{t('empty')}</p> : null}
      {servers !== null && servers.length > 0 ? (
        <ul className="mcp-servers">
          {servers.map((s) =>
            panel.kind === 'form' && panel.server?.name === s.name ? (
              <li key={s.name} className="mcp-server editing">
                <McpServerForm server={s} agents={agents} taken={names} onSaved={() => (close(), reload())} onCancel={close} />
              </li>
            ) : (
              <ServerCard key={s.name} server={s} browser={browser} onChanged={reload} onEdit={() => open({ kind: 'form', server: s })} />
            ),
          )}
        </ul>
      ) : null}
      {panel.kind === 'form' && panel.server === null ? (
        <div className="mcp-server editing">
          <McpServerForm server={null} agents={agents} taken={names} onSaved={() => (close(), reload())} onCancel={close} />
        </div>
      ) : null}
      {panel.kind === 'import' ? (
        <ImportBox
          onDone={(r) => {
            setImported(r);
            close();
            reload();
          }}
          onCancel={close}
        />
      ) : null}
      {panel.kind === 'none' ? (
        <div className="mcp-add">
          <button type="button" className="btn btn-sm" data-mcp-add onClick={() => open({ kind: 'form', server: null })}>
            {t('add')}
          </button>
          <button type="button" className="btn btn-sm" data-mcp-paste onClick={() => open({ kind: 'import' })}>
            {t('paste')}
          </button>
        </div>
      ) : null}
      {desktopNote ? <DesktopOnly /> : null}
      {imported !== null ? <ImportedNote result={imported} /> : null}
    </fieldset>
  );
}

/** What an import stored, and the keys it dropped. */
function ImportedNote({ result }: { result: McpImportResult }) {
  const { t } = useTranslation('mcp');
  return (
    <div className="mcp-imported" role="status">
      <p className="test-result ok">{t('imported', { count: result.imported.length, names: result.imported.join(', ') })}</p>
      {result.ignored.length > 0 ? <p className="hint">{t('ignoredKeys', { keys: result.ignored.join(', ') })}</p> : null}
    </div>
  );
}

/** Props of ServerCard. */
interface ServerCardProps {
  server: McpServer;
  browser: boolean;
  /** Called after anything changed the server (the list loads again). */
  onChanged: () => void;
  /** Opens the form (its Edit button has the focus again when the form closes). */
  onEdit: () => void;
}

/** The state's dot and words: "Running · 13 tools", "Failed", "Not started — starts at first use". */
function StateLine({ server, testing }: { server: McpServer; testing: boolean }) {
  const { t } = useTranslation('mcp');
  const state = testing ? 'starting' : server.state;
  let text: string;
  switch (state) {
    case 'running':
      text = t('state.running', { count: server.tools.length });
      break;
    case 'starting':
      text = t('state.starting');
      break;
    case 'failed':
      text = t('state.failed');
      break;
    case 'disabled':
      text = t('state.disabled');
      break;
    default:
      text = server.disabled ? t('state.disabled') : t('state.stopped');
  }
  return (
    <span className={`mcp-state state-${state}`} data-state={state}>
      {state === 'starting' ? <Spinner size={11} /> : <span className="mcp-dot" aria-hidden="true" />}
      {text}
    </span>
  );
}

/** The transport as the card names it. */
function transportLabel(s: McpServer): string {
  if (s.command !== '') return 'stdio';
  const t = s.transport !== '' ? s.transport : s.active_transport;
  return t === 'sse' ? 'SSE' : 'HTTP';
}

/** A server card's actions and what they left: the test, the log, the switches' saves, Remove. */
function useServerActions(s: McpServer, onChanged: () => void) {
  const [testing, setTesting] = useState(false);
  const [test, setTest] = useState<McpTestResult | null>(null);
  const [showTools, setShowTools] = useState(false);
  const [log, setLog] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const fail = (e: unknown) => {
    setBusy(false);
    setError(describeError(toApiError(e)));
  };
  const runTest = () => {
    setTesting(true);
    setTest(null);
    setError('');
    testMcpServer(s.name).then(
      (r) => {
        setTesting(false);
        setTest(r);
        if (r.ok) setShowTools(true);
        onChanged();
      },
      (e: unknown) => {
        setTesting(false);
        fail(e);
      },
    );
  };
  const toggleLog = () => {
    if (log !== null) setLog(null);
    else mcpServerLog(s.name).then(setLog, fail);
  };
  const setEnabled = (on: boolean) => {
    setError('');
    setBusy(true);
    saveMcpServer(s.name, { ...mcpInputOf(s), disabled: !on }).then(() => {
      setBusy(false);
      onChanged();
    }, fail);
  };
  const setTool = (tool: string, on: boolean) => {
    setError('');
    setMcpToolEnabled(s.name, tool, on).then(onChanged, fail);
  };
  const remove = (after: () => void) => {
    setBusy(true);
    removeMcpServer(s.name).then(
      () => {
        setBusy(false);
        onChanged();
      },
      (e: unknown) => {
        fail(e);
        after();
      },
    );
  };
  return { testing, test, showTools, setShowTools, log, busy, error, runTest, toggleLog, setEnabled, setTool, remove };
}

/**
 * One server: its name, transport, command line or URL, state, agents, permission and
 * on/off switch; a failed server's error and last log lines; Test with its result, the tools
 * with a switch each, the log, Edit and Remove with an inline confirmation.
 */
function ServerCard({ server: s, browser, onChanged, onEdit }: ServerCardProps) {
  const { t } = useTranslation('mcp');
  const a = useServerActions(s, onChanged);
  const [confirming, setConfirming] = useState(false);
  const [desktopNote, setDesktopNote] = useState(false);
  const removeRef = useRef<HTMLButtonElement>(null);
  const where = s.command !== '' ? [s.command, ...s.args].map((x) => (/\s/.test(x) ? JSON.stringify(x) : x)).join(' ') : s.url;
  const tools = s.tools.length > 0 ? s.tools : (a.test?.tools ?? []);
  const failed = !a.testing && s.state === 'failed';
  const headId = `mcp-${s.name}`;
  const stopConfirming = () => {
    setConfirming(false);
    removeRef.current?.focus();
  };

  return (
    <li className={`mcp-server${s.disabled ? ' off' : ''}`} data-server={s.name} data-state={s.state} aria-labelledby={headId}>
      <div className="mcp-server-head">
        <span className="mcp-name" id={headId}>
          {s.name}
        </span>
        <span className="badge">{transportLabel(s)}</span>
        <StateLine server={s} testing={a.testing} />
        <label className="switch" title={s.disabled ? t('turnOn') : t('turnOff')}>
          <input
            type="checkbox"
            role="switch"
            checked={!s.disabled}
            disabled={a.busy}
            aria-label={t('enabledAria', { name: s.name })}
            onChange={(e) => a.setEnabled(e.target.checked)}
          />
          <span className="switch-track" aria-hidden="true" />
        </label>
      </div>
      <code className="mcp-where" title={where}>
        {where}
      </code>
      <p className="mcp-meta hint">
        {t('offeredTo', { agents: s.agents.join(', ') })}
        <span className="sep">·</span>
        {s.permission === 'auto' ? t('permission.auto') : t('permission.confirm')}
        <span className="sep">·</span>
        {t('timeout', { seconds: s.timeout_seconds })}
      </p>
      {failed ? <Failure error={s.error} lines={s.log_tail} retryIn={s.retry_in_seconds} /> : null}
      {s.stdout_junk > 0 ? <p className="hint warn">{t('junk', { count: s.stdout_junk })}</p> : null}
      <div className="mcp-actions">
        <button type="button" className="btn btn-sm" onClick={a.runTest} disabled={a.testing || s.disabled}>
          {a.testing ? <Spinner size={12} /> : null}
          {t('test.button')}
        </button>
        {tools.length > 0 ? (
          <button type="button" className="btn btn-sm" aria-expanded={a.showTools} onClick={() => a.setShowTools(!a.showTools)}>
            {t('toolsButton', { count: tools.length })}
          </button>
        ) : null}
        <button type="button" className="btn btn-sm" aria-expanded={a.log !== null} onClick={a.toggleLog}>
          {a.log !== null ? t('hideLog') : t('viewLog')}
        </button>
        <button type="button" className="btn btn-sm" data-mcp-edit onClick={() => (browser ? setDesktopNote(true) : onEdit())}>
          {t('edit')}
        </button>
        <button type="button" className="btn btn-sm btn-ghost mcp-remove" ref={removeRef} onClick={() => setConfirming(true)} disabled={confirming}>
          {t('remove')}
        </button>
      </div>
      <TestResult testing={a.testing} test={a.test} failureShown={failed} />
      {confirming ? <RemoveConfirm name={s.name} busy={a.busy} onCancel={stopConfirming} onRemove={() => a.remove(stopConfirming)} /> : null}
      {desktopNote ? <DesktopOnly /> : null}
      {a.error !== '' ? (
        <p className="field-error" role="alert">
          {a.error}
        </p>
      ) : null}
      {a.showTools && tools.length > 0 ? <ToolList name={s.name} tools={tools} onSwitch={a.setTool} /> : null}
      {a.log !== null ? <LogBox name={s.name} text={a.log} /> : null}
    </li>
  );
}

/** A failed server's error, its log's last lines and when it may start again. */
function Failure({ error, lines, retryIn }: { error: string; lines: readonly string[]; retryIn: number }) {
  const { t } = useTranslation('mcp');
  return (
    <div className="mcp-failure">
      <p className="mcp-error">{error !== '' ? error : t('state.failed')}</p>
      {lines.length > 0 ? <LogTail lines={lines} /> : null}
      {retryIn > 0 ? <p className="hint">{t('retryIn', { seconds: retryIn })}</p> : null}
    </div>
  );
}

/** The last lines of a server's log, scrolled to the newest. */
function LogTail({ lines }: { lines: readonly string[] }) {
  const { t } = useTranslation('mcp');
  const ref = useRef<HTMLPreElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.scrollTop = ref.current.scrollHeight;
  }, [lines]);
  return (
    <pre className="mcp-log-tail" ref={ref} aria-label={t('logTail')}>
      {lines.join('\n')}
    </pre>
  );
}

/**
 * Test's progress, then what it found or why it failed: the error with the log's last lines,
 * or, when the card shows the failure already (`failureShown`), a pointer to it.
 */
function TestResult({ testing, test, failureShown }: { testing: boolean; test: McpTestResult | null; failureShown: boolean }) {
  const { t } = useTranslation('mcp');
  if (!testing && test === null) return null;
  const text =
    test === null
      ? t('test.running')
      : test.ok
        ? t('test.ok', { count: test.tools.length, duration: formatDuration(test.duration_ms) })
        : failureShown
          ? t('test.failedAbove')
          : t('test.failed', { error: test.error });
  return (
    <>
      <p className={`test-result mcp-test ${test === null ? '' : test.ok ? 'ok' : 'err'}`} role="status" aria-live="polite">
        {text}
      </p>
      {test !== null && !test.ok && !failureShown && test.log_tail.length > 0 ? <LogTail lines={test.log_tail} /> : null}
    </>
  );
}

/** "Remove <name>?" with Cancel (focused first; Escape too) and Remove. */
function RemoveConfirm({ name, busy, onCancel, onRemove }: { name: string; busy: boolean; onCancel: () => void; onRemove: () => void }) {
  const { t } = useTranslation('mcp');
  const cancelRef = useRef<HTMLButtonElement>(null);
  useEffect(() => cancelRef.current?.focus(), []);
  return (
    <div
      className="mcp-confirm"
      role="group"
      aria-label={t('removeTitle', { name })}
      onKeyDown={(e) => {
        if (e.key !== 'Escape') return;
        e.preventDefault();
        e.stopPropagation();
        onCancel();
      }}
    >
      <span>{t('removeQuestion', { name })}</span>
      <button type="button" className="btn btn-sm" ref={cancelRef} onClick={onCancel}>
        {t('common:cancel')}
      </button>
      <button type="button" className="btn btn-sm btn-danger" onClick={onRemove} disabled={busy}>
        {busy ? <Spinner size={12} /> : null}
        {t('remove')}
      </button>
    </div>
  );
}

/** The server's tools, each with a switch offering it to the agents or not. */
function ToolList({ name, tools, onSwitch }: { name: string; tools: readonly McpTool[]; onSwitch: (tool: string, on: boolean) => void }) {
  const { t } = useTranslation('mcp');
  return (
    <ul className="mcp-tools" aria-label={t('toolsOf', { name })}>
      {tools.map((tool) => (
        <li key={tool.name} className={tool.enabled ? 'mcp-tool' : 'mcp-tool off'} data-tool={tool.name}>
          <label className="switch">
            <input type="checkbox" role="switch" checked={tool.enabled} aria-label={t('toolAria', { tool: tool.name })} onChange={(e) => onSwitch(tool.name, e.target.checked)} />
            <span className="switch-track" aria-hidden="true" />
          </label>
          <span className="tool-name">
            <code>{tool.name}</code>
            {tool.description !== '' || tool.title !== '' ? <span className="hint">{tool.title !== '' ? tool.title : tool.description}</span> : null}
          </span>
          {tool.read_only ? <span className="badge">{t('readOnly')}</span> : null}
        </li>
      ))}
    </ul>
  );
}

/** The server's log in a scrollable, focusable monospace box, scrolled to its end. */
function LogBox({ name, text }: { name: string; text: string }) {
  const { t } = useTranslation('mcp');
  const ref = useRef<HTMLPreElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.scrollTop = ref.current.scrollHeight;
  }, [text]);
  return (
    <pre className="mcp-log" ref={ref} tabIndex={0} aria-label={t('logOf', { name })}>
      {text !== '' ? text : t('logEmpty')}
    </pre>
  );
}

// What the paste box shows before anything is typed: JSON, the same in every language.
const PASTE_EXAMPLE = '{"mcpServers": {"everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]}}}';

/** Props of ImportBox. */
interface ImportBoxProps {
  onDone: (r: McpImportResult) => void;
  onCancel: () => void;
}

/**
 * The paste box: a JSON block of servers (Claude Desktop's or Cursor's mcpServers, VS Code's
 * servers, or a bare {name: entry}) and Import (Ctrl+Enter); Escape cancels. A refused block
 * shows why, with each field the backend named.
 */
function ImportBox({ onDone, onCancel }: ImportBoxProps) {
  const { t } = useTranslation('mcp');
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string[]>([]);
  const ref = useRef<HTMLTextAreaElement>(null);
  useEffect(() => ref.current?.focus(), []);
  const submit = () => {
    if (text.trim() === '') {
      setError([t('validation.pasteEmpty')]);
      return;
    }
    setBusy(true);
    setError([]);
    importMcpServers(text).then(
      (r) => {
        setBusy(false);
        onDone(r);
      },
      (e: unknown) => {
        setBusy(false);
        const err = toApiError(e);
        const fields = Object.entries(err.fields).map(([f, m]) => (f === '' ? m : `${f}: ${m}`));
        setError(fields.length > 0 ? [errorMessage(err.code) || err.message, ...fields] : [describeError(err)]);
      },
    );
  };
  return (
    <div
      className="mcp-import"
      role="group"
      aria-label={t('pasteTitle')}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.preventDefault();
          e.stopPropagation();
          onCancel();
        } else if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
          e.preventDefault();
          submit();
        }
      }}
    >
      <label className="field">
        <span className="label">{t('pasteLabel')}</span>
        <textarea
          ref={ref}
          className="input mcp-json"
          rows={8}
          value={text}
          spellCheck={false}
          placeholder={PASTE_EXAMPLE}
          aria-invalid={error.length > 0}
          aria-describedby={error.length > 0 ? 'err-mcp-import' : 'hint-mcp-import'}
          onChange={(e) => {
            setText(e.target.value);
            setError([]);
          }}
        />
        <span className="hint" id="hint-mcp-import">
          {t('pasteHint')}
        </span>
        {error.length > 0 ? (
          <div className="field-error" id="err-mcp-import" role="alert">
            {error.map((line) => (
              <p key={line}>{line}</p>
            ))}
          </div>
        ) : null}
      </label>
      <div className="mcp-form-foot">
        <button type="button" className="btn btn-sm" onClick={onCancel}>
          {t('common:cancel')}
        </button>
        <button type="button" className="btn btn-sm btn-primary" onClick={submit} disabled={busy}>
          {busy ? <Spinner size={12} /> : null}
          {t('import')}
        </button>
      </div>
    </div>
  );
}
