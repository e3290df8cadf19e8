import { useCallback, useEffect, useRef, useState, type SyntheticEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { toApiError } from '../api/call';
import {
  createAgentFile,
  deleteAgentFile,
  getAgents,
  readAgentFile,
  saveAgentFile,
  type AgentProblem,
  type AgentsOverview,
  type UserAgent,
} from '../api/agents';
import { lineSpan, suggestAgentName } from './agent-files';
import { Spinner } from '../shared/icons';
import { SECTION_ATTR } from './SettingsNav';
import './agents.css';

/** The agent file open in the editor: its text as typed and as last saved, and its problems. */
interface Editing {
  file: string;
  text: string;
  saved: string;
  /** The file's problems as of its last save (or load). */
  problems: AgentProblem[];
  saving: boolean;
  error: string;
  /** The file was saved in this editor at least once. */
  justSaved: boolean;
}

/**
 * The built-in agents whose descriptions the UI words in its own language (the backend sends
 * the English the lead agent reads); another name shows the backend's text as it is.
 */
// i18n-keys: agents:builtInDescription.lead_agent agents:builtInDescription.search_agent agents:builtInDescription.crawl_agent
const BUILT_IN: ReadonlySet<string> = new Set(['lead_agent', 'search_agent', 'crawl_agent']);

/** The agents overview: loaded once, reloaded after each change. */
function useAgents() {
  const [overview, setOverview] = useState<AgentsOverview | null>(null);
  const [error, setError] = useState('');
  const [unsupported, setUnsupported] = useState(false);
  const failed = useCallback((e: unknown) => {
    const err = toApiError(e);
    if (err.code === 'unsupported' || err.code === 'unavailable') setUnsupported(true);
    else setError(err.message);
  }, []);
  const reload = useCallback(async (): Promise<AgentsOverview | null> => {
    try {
      const v = await getAgents();
      setOverview(v);
      setError('');
      return v;
    } catch (e: unknown) {
      failed(e);
      return null;
    }
  }, [failed]);
  useEffect(() => {
    let stale = false;
    getAgents().then(
      (v) => {
        if (!stale) setOverview(v);
      },
      (e: unknown) => {
        if (!stale) failed(e);
      },
    );
    return () => {
      stale = true;
    };
  }, [failed]);
  return { overview, error, unsupported, reload };
}

/** Props of ProblemList. */
interface ProblemListProps {
  problems: AgentProblem[];
  /** Called with a problem's line when it is clicked (editor only). */
  onLine?: (line: number) => void;
  id?: string;
}

/** The problems of a file, one per line, each naming its line; clickable in the editor. */
function ProblemList({ problems, onLine, id }: ProblemListProps) {
  const { t } = useTranslation('agents');
  return (
    <ul className="agent-problems" id={id} role="alert" data-testid="agent-problems">
      {problems.map((p, i) => {
        const where = p.line > 0 ? t('line', { line: p.line }) : t('wholeFile');
        const what = p.field !== '' ? `${p.field}: ${p.message}` : p.message;
        return (
          <li key={i} data-line={p.line}>
            {onLine && p.line > 0 ? (
              <button type="button" className="link-like" onClick={() => onLine(p.line)}>
                {where}
              </button>
            ) : (
              <span className="agent-problem-line">{where}</span>
            )}{' '}
            {what}
          </li>
        );
      })}
    </ul>
  );
}

/** Props of AgentEditor. */
interface AgentEditorProps {
  editing: Editing;
  onText: (text: string) => void;
  onSave: () => void;
  onClose: () => void;
}

/**
 * The editor of one agent file: its text in a monospace text area, Save, and the file's
 * problems under it, each naming its line (a click selects that line). Close reads
 * "Discard changes" while the text differs from what was saved.
 */
function AgentEditor({ editing, onText, onSave, onClose }: AgentEditorProps) {
  const { t } = useTranslation('agents');
  const area = useRef<HTMLTextAreaElement>(null);
  const dirty = editing.text !== editing.saved;
  const goTo = (line: number) => {
    const a = area.current;
    if (!a) return;
    const [start, end] = lineSpan(a.value, line);
    a.focus();
    a.setSelectionRange(start, end);
    const lineHeight = parseFloat(getComputedStyle(a).lineHeight) || 18;
    a.scrollTop = Math.max(0, (line - 3) * lineHeight);
  };
  const hasProblems = editing.problems.length > 0;
  return (
    <div className="agent-editor" data-testid="agent-editor">
      <div className="agent-editor-head">
        <code>{editing.file}</code>
        {dirty ? <span className="hint">{t('unsaved')}</span> : null}
      </div>
      <textarea
        ref={area}
        className="input agent-textarea"
        value={editing.text}
        spellCheck={false}
        rows={18}
        aria-label={t('editorLabel', { file: editing.file })}
        aria-invalid={hasProblems}
        aria-describedby={hasProblems ? 'agent-editor-problems' : undefined}
        onChange={(e) => onText(e.target.value)}
      />
      {hasProblems ? (
        <>
          <p className="field-error">{t('skippedUntilFixed')}</p>
          <ProblemList problems={editing.problems} onLine={goTo} id="agent-editor-problems" />
        </>
      ) : editing.justSaved && !dirty ? (
        <p className="hint ok-note" role="status">
          {t('savedValid')}
        </p>
      ) : null}
      {editing.error !== '' ? (
        <p className="field-error" role="alert">
          {editing.error}
        </p>
      ) : null}
      <div className="agent-editor-actions">
        <button type="button" className="btn btn-sm" onClick={onClose}>
          {dirty ? t('discard') : t('closeEditor')}
        </button>
        <button type="button" className="btn btn-sm btn-primary" onClick={onSave} disabled={editing.saving || !dirty}>
          {editing.saving ? <Spinner size={12} /> : null}
          {t('save')}
        </button>
      </div>
    </div>
  );
}

/** Props of UserAgentRow. */
interface UserAgentRowProps {
  agent: UserAgent;
  editing: boolean;
  onEdit: () => void;
  onDelete: () => Promise<void>;
}

/** One agent file in the list: what it defines, Ready or its problems, Edit and Delete (asked twice). */
function UserAgentRow({ agent, editing, onEdit, onDelete }: UserAgentRowProps) {
  const { t } = useTranslation('agents');
  const [confirm, setConfirm] = useState(false);
  const [busy, setBusy] = useState(false);
  const ok = agent.problems.length === 0;
  return (
    <li className={ok ? 'agent-row' : 'agent-row agent-row-bad'} data-testid="user-agent" data-file={agent.file}>
      <div className="agent-row-head">
        <strong>{agent.name !== '' ? agent.name : agent.file}</strong>
        <code className="agent-file">{agent.file}</code>
        {ok ? <span className="badge badge-ok">{t('ready')}</span> : <span className="badge badge-bad">{t('skipped', { count: agent.problems.length })}</span>}
        <span className="agent-row-actions">
          {confirm ? (
            <>
              <span className="hint">{t('confirmDelete', { file: agent.file })}</span>
              <button
                type="button"
                className="btn btn-sm btn-danger"
                disabled={busy}
                onClick={() => {
                  setBusy(true);
                  void onDelete().finally(() => setBusy(false));
                }}
              >
                {t('delete')}
              </button>
              <button type="button" className="btn btn-sm" onClick={() => setConfirm(false)}>
                {t('cancel')}
              </button>
            </>
          ) : (
            <>
              <button type="button" className="btn btn-sm" onClick={onEdit} disabled={editing}>
                {t('edit')}
              </button>
              <button type="button" className="btn btn-sm" onClick={() => setConfirm(true)}>
                {t('delete')}
              </button>
            </>
          )}
        </span>
      </div>
      {agent.description !== '' ? <p className="agent-desc">{agent.description}</p> : null}
      {ok ? (
        <p className="hint">
          {t('details', { tools: agent.tools.length > 0 ? agent.tools.join(', ') : t('noTools'), model: agent.model === 'inherit' ? t('inherit') : agent.model, rounds: agent.max_rounds })}
        </p>
      ) : (
        <ProblemList problems={agent.problems} />
      )}
    </li>
  );
}

/**
 * Settings → Agents: the built-in agents (read-only, with their tools and round limits) and
 * the agents the user defines as Markdown files in the data folder's agents/ folder (the
 * sub-agent format of Claude Code and qwen-code). A file can be created from a template
 * (by name), edited and saved in the app, and deleted; each file shows Ready or its
 * problems, each naming its line, and the editor shows them after every save. Content with
 * problems is saved all the same (nothing typed is lost); runs skip such a file until it is
 * fixed, and a saved file applies from the next question on. Hidden when the backend has
 * no agent files.
 */
export function AgentsSection() {
  const { t } = useTranslation('agents');
  const { overview, error, unsupported, reload } = useAgents();
  const [name, setName] = useState('');
  const [createError, setCreateError] = useState('');
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<Editing | null>(null);

  const open = async (file: string, problems: AgentProblem[]) => {
    try {
      const text = await readAgentFile(file);
      setEditing({ file, text, saved: text, problems, saving: false, error: '', justSaved: false });
    } catch (e: unknown) {
      setCreateError(toApiError(e).message);
    }
  };
  const create = async (e: SyntheticEvent) => {
    e.preventDefault();
    const n = suggestAgentName(name);
    if (n === '') return;
    setCreating(true);
    setCreateError('');
    try {
      const file = await createAgentFile(n);
      setName('');
      const v = await reload();
      await open(file, v?.user.find((a) => a.file === file)?.problems ?? []);
    } catch (err: unknown) {
      const ae = toApiError(err);
      setCreateError(ae.fields.name ?? ae.message);
    } finally {
      setCreating(false);
    }
  };
  const save = async () => {
    if (!editing) return;
    const { file, text } = editing;
    setEditing({ ...editing, saving: true, error: '' });
    try {
      const problems = await saveAgentFile(file, text);
      setEditing((ed) => (ed && ed.file === file ? { ...ed, saved: text, problems, saving: false, justSaved: true } : ed));
      await reload();
    } catch (err: unknown) {
      const msg = toApiError(err).message;
      setEditing((ed) => (ed && ed.file === file ? { ...ed, saving: false, error: msg } : ed));
    }
  };
  const remove = async (file: string) => {
    try {
      await deleteAgentFile(file);
      if (editing?.file === file) setEditing(null);
    } catch (err: unknown) {
      setCreateError(toApiError(err).message);
    }
    await reload();
  };

  if (unsupported) return null;
  return (
    <section className="settings agents-section" aria-labelledby="agents-legend" data-testid="agents-section" {...{ [SECTION_ATTR]: t('legend') }}>
      <fieldset>
        <legend id="agents-legend">{t('legend')}</legend>
        <p className="hint block">
          {t('intro')} {overview ? <code className="agent-dir">{overview.dir}</code> : null}
        </p>
        {error !== '' ? (
          <p className="field-error" role="alert">
            {t('loadFailed', { error })}
          </p>
        ) : null}
        <h3 className="agents-heading">{t('builtIn')}</h3>
        <ul className="agent-list" data-testid="built-in-agents">
          {(overview?.built_in ?? []).map((a) => (
            <li key={a.name} className="agent-row agent-row-builtin">
              <div className="agent-row-head">
                <strong>{a.name}</strong>
                <span className="badge">{t('readOnly')}</span>
              </div>
              <p className="agent-desc">{BUILT_IN.has(a.name) ? t(`builtInDescription.${a.name}`) : a.description}</p>
              <p className="hint">{t('builtInDetails', { tools: a.tools.join(', '), rounds: a.max_rounds })}</p>
            </li>
          ))}
        </ul>
        <h3 className="agents-heading">{t('yours')}</h3>
        {overview && overview.user.length === 0 ? <p className="hint">{t('none')}</p> : null}
        <ul className="agent-list" data-testid="user-agents">
          {(overview?.user ?? []).map((a) => (
            <UserAgentRow key={a.file} agent={a} editing={editing?.file === a.file} onEdit={() => void open(a.file, a.problems)} onDelete={() => remove(a.file)} />
          ))}
        </ul>
        {editing ? (
          <AgentEditor
            editing={editing}
            onText={(text) => setEditing((ed) => (ed ? { ...ed, text } : ed))}
            onSave={() => void save()}
            onClose={() => setEditing(null)}
          />
        ) : null}
        <form className="agent-new" onSubmit={(e) => void create(e)}>
          <label className="field agent-new-field">
            <span className="label">{t('newLabel')}</span>
            <span className="agent-new-row">
              <input
                className="input"
                value={name}
                placeholder={t('newPlaceholder')}
                spellCheck={false}
                autoComplete="off"
                aria-invalid={createError !== ''}
                aria-describedby={createError !== '' ? 'agent-new-error' : undefined}
                onChange={(e) => {
                  setName(e.target.value);
                  setCreateError('');
                }}
              />
              <button type="submit" className="btn" disabled={creating || suggestAgentName(name) === '' || overview === null}>
                {creating ? <Spinner size={12} /> : null}
                {t('create')}
              </button>
            </span>
            <span className="hint">{t('newHint')}</span>
            {createError !== '' ? (
              <p className="field-error" id="agent-new-error" role="alert">
                {createError}
              </p>
            ) : null}
          </label>
        </form>
      </fieldset>
    </section>
  );
}
