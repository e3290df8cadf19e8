import { useCallback, useEffect, useRef, useState, type Dispatch, type ReactNode, type SetStateAction } from 'react';
import { useTranslation } from 'react-i18next';
import {
  DEFAULT_COMPACT_AT_PERCENT,
  DEFAULT_PERMISSION_TIMEOUT_SECONDS,
  getConversationSettings,
  getModelContext,
  SETTINGS_SAVED_EVENT,
  type ConversationSettings,
  type ModelContext,
  type ToolPolicy,
} from '../api/settings';
import { formatCount, formatNumber } from '../shared/format';

// i18n-keys: settings:tools.web_search settings:tools.web_fetch settings:tools.create_artifact settings:tools.update_artifact
// i18n-keys: settings:tools.rewrite_artifact settings:tools.read_artifact settings:tools.call_subagent
/**
 * The tools a user can set to auto or confirm (docs/ARCHITECTURE.md, "Contracts other code
 * relies on"), with the catalogue key of what they do (settings:tools.<name>).
 */
export const TOOLS: readonly { name: string; what: string }[] = [
  { name: 'web_search', what: 'settings:tools.web_search' },
  { name: 'web_fetch', what: 'settings:tools.web_fetch' },
  { name: 'create_artifact', what: 'settings:tools.create_artifact' },
  { name: 'update_artifact', what: 'settings:tools.update_artifact' },
  { name: 'rewrite_artifact', what: 'settings:tools.rewrite_artifact' },
  { name: 'read_artifact', what: 'settings:tools.read_artifact' },
  { name: 'call_subagent', what: 'settings:tools.call_subagent' },
];

/** The fields of SettingsInput this form owns (app.SettingsInput). */
export interface ConversationSettingsInput {
  context_window: number;
  compact_at_percent: number;
  tool_permissions: Record<string, ToolPolicy>;
  permission_timeout_seconds: number;
}

/**
 * A whole number within [min, max] from a text field, or null. An empty field gives
 * `empty` (the "automatic" value) when that is given, else null.
 */
export function parseWhole(text: string, min: number, max: number, empty?: number): number | null {
  const t = text.trim().replace(/[\s,_]/g, '');
  if (t === '') return empty ?? null;
  if (!/^\d+$/.test(t)) return null;
  const v = Number(t);
  return v >= min && v <= max ? v : null;
}

interface Texts {
  window: string;
  percent: string;
  timeout: string;
}

/** What useConversationSettingsForm gives the settings dialog. */
export interface ConversationSettingsForm {
  /**
   * The fields to add to SettingsInput on save: the stored values until the form loaded
   * (tool_permissions undefined then, which keeps the stored ones), and fields whose text
   * is invalid keep their stored value (the field is marked invalid).
   */
  input: Partial<ConversationSettingsInput>;
  /** The "Model context" and "Tools" fieldsets. */
  sections: ReactNode;
  /** Call after a successful save: the header's context meter reloads the settings. */
  saved: () => void;
  /**
   * True while the context fields still show another model than the one typed (its values
   * are on their way): saving then would store them under the wrong model.
   */
  pending: boolean;
}

/** How long the form waits after the model name was typed before it asks for its context. */
export const MODEL_CONTEXT_DELAY_MS = 250;

/**
 * The model-context and tool-permission part of the settings dialog: context window
 * (tokens; empty = by model name) and compaction threshold (%) of `model`, the model typed
 * in the dialog (a threshold per model; typing another model's name shows that model's
 * values after MODEL_CONTEXT_DELAY_MS), each tool auto or confirm, and how long a confirm
 * waits before it counts as denied (seconds).
 */
export function useConversationSettingsForm(disabled: boolean, model: string): ConversationSettingsForm {
  const [stored, setStored] = useState<ConversationSettings | null>(null);
  // The context values of the model the window/percent fields show, and that model's name.
  const [ctx, setCtx] = useState<ModelContext | null>(null);
  const [texts, setTexts] = useState<Texts>({ window: '', percent: String(DEFAULT_COMPACT_AT_PERCENT), timeout: String(DEFAULT_PERMISSION_TIMEOUT_SECONDS) });
  const [perms, setPerms] = useState<Record<string, ToolPolicy> | null>(null);
  // The context fields the user typed in: another model's values do not replace them.
  const edited = useRef({ window: false, percent: false });

  const showContext = useCallback((c: ModelContext) => {
    setCtx(c);
    setTexts((t) => ({
      ...t,
      window: edited.current.window ? t.window : c.context_window > 0 ? String(c.context_window) : '',
      percent: edited.current.percent ? t.percent : String(c.compact_at_percent),
    }));
  }, []);

  useEffect(() => {
    let stale = false;
    getConversationSettings().then(
      (s) => {
        if (stale) return;
        setStored(s);
        showContext(s);
        setTexts((t) => ({ ...t, timeout: String(s.permission_timeout_seconds) }));
        setPerms(s.tool_permissions);
      },
      () => undefined,
    );
    return () => {
      stale = true;
    };
  }, [showContext]);

  // Another model typed: show its stored context (or its defaults) once typing pauses.
  const wanted = model.trim();
  useEffect(() => {
    if (ctx === null || wanted === ctx.model) return;
    let stale = false;
    const timer = setTimeout(() => {
      getModelContext(wanted).then(
        (c) => {
          if (!stale) showContext({ ...c, model: wanted });
        },
        () => {
          // A backend that cannot tell (an older one): the defaults, so Save is not held.
          if (!stale) showContext({ model: wanted, context_window: 0, effective_context_window: 0, compact_at_percent: DEFAULT_COMPACT_AT_PERCENT });
        },
      );
    }, MODEL_CONTEXT_DELAY_MS);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [wanted, ctx, showContext]);

  const saved = useCallback(() => {
    edited.current = { window: false, percent: false }; // saved: they are the model's own now
    window.dispatchEvent(new Event(SETTINGS_SAVED_EVENT));
    getConversationSettings().then(setStored, () => undefined);
  }, []);

  const windowValue = parseWhole(texts.window, 2048, 10_000_000, 0);
  const percentValue = parseWhole(texts.percent, 50, 95);
  const timeoutValue = parseWhole(texts.timeout, 1, 3600);

  const input: Partial<ConversationSettingsInput> = {};
  if (stored !== null && ctx !== null) {
    input.context_window = windowValue ?? ctx.context_window;
    input.compact_at_percent = percentValue ?? ctx.compact_at_percent;
    input.permission_timeout_seconds = timeoutValue ?? stored.permission_timeout_seconds;
    if (perms !== null) {
      const all: Record<string, ToolPolicy> = { ...perms };
      for (const tool of TOOLS) all[tool.name] = perms[tool.name] ?? 'auto';
      input.tool_permissions = all;
    }
  }

  const pending = ctx !== null && wanted !== ctx.model;
  const off = disabled || stored === null;
  const setText = (k: keyof Texts, v: string) => {
    if (k !== 'timeout') edited.current[k] = true;
    setTexts((t) => ({ ...t, [k]: v }));
  };
  const auto = ctx && ctx.context_window === 0 ? ctx.effective_context_window : 0;

  const sections = (
    <>
      <ContextFieldset off={off} ctx={ctx} texts={texts} setText={setText} auto={auto} windowValue={windowValue} percentValue={percentValue} />
      <ToolsFieldset off={off} perms={perms} setPerms={setPerms} texts={texts} setText={setText} timeoutValue={timeoutValue} />
    </>
  );

  return { input, sections, saved, pending };
}

/** What the form's two fieldsets share: disabled while loading, the texts and their setter. */
interface FieldsetProps {
  off: boolean;
  texts: Texts;
  setText: (k: keyof Texts, v: string) => void;
}

/**
 * The Model context fieldset: the typed model's context window (empty = by model name, with
 * the automatic value as placeholder) and compaction threshold, each with its hint or error.
 */
function ContextFieldset({ off, ctx, texts, setText, auto, windowValue, percentValue }: FieldsetProps & {
  ctx: ModelContext | null;
  auto: number;
  windowValue: number | null;
  percentValue: number | null;
}) {
  const { t } = useTranslation('settings');
  return (
    <fieldset disabled={off}>
      <legend>{t('context.legend')}</legend>
      <p className="hint tools-intro">
        {ctx !== null && ctx.model !== '' ? (
          <>
            {t('context.forModel')} <code>{ctx.model}</code>
            {t('context.forModelAfter')}
          </>
        ) : (
          t('context.eachModel')
        )}
      </p>
      <label className="field">
        <span className="label">{t('context.window')}</span>
        <span className="num-unit">
          <input
            className="input num-input num-input-wide"
            inputMode="numeric"
            value={texts.window}
            placeholder={auto > 0 ? t('context.autoValue', { value: formatCount(auto) }) : t('context.auto')}
            aria-invalid={windowValue === null}
            aria-describedby="hint-context-window"
            onChange={(e) => setText('window', e.target.value)}
          />
          <span className="muted">{t('agent.tokens')}</span>
        </span>
        <span className="hint" id="hint-context-window">
          {windowValue === null
            ? t('context.windowInvalid', { min: formatNumber(2048), max: formatNumber(10_000_000) })
            : t('context.windowHint')}
        </span>
      </label>
      <label className="field">
        <span className="label">{t('context.compactAt')}</span>
        <span className="num-unit">
          <input
            className="input num-input"
            inputMode="numeric"
            value={texts.percent}
            aria-invalid={percentValue === null}
            aria-describedby="hint-compact-at"
            onChange={(e) => setText('percent', e.target.value)}
          />
          <span className="muted">{t('context.percentOfWindow')}</span>
        </span>
        <span className="hint" id="hint-compact-at">
          {percentValue === null ? t('context.percentInvalid', { min: 50, max: 95 }) : t('context.compactHint')}
        </span>
      </label>
    </fieldset>
  );
}

/** The Tools fieldset: each tool Auto or Ask, and how long a request waits for an answer. */
function ToolsFieldset({ off, perms, setPerms, texts, setText, timeoutValue }: FieldsetProps & {
  perms: Record<string, ToolPolicy> | null;
  setPerms: Dispatch<SetStateAction<Record<string, ToolPolicy> | null>>;
  timeoutValue: number | null;
}) {
  const { t } = useTranslation('settings');
  return (
    <fieldset disabled={off}>
      <legend>{t('toolsSection.legend')}</legend>
      <p className="hint tools-intro">{t('toolsSection.intro')}</p>
      <div className="tool-perms">
        {TOOLS.map((tool) => {
          const policy = perms?.[tool.name] ?? 'auto';
          return (
            <div key={tool.name} className="tool-perm" role="radiogroup" aria-label={t('toolsSection.permissionAria', { tool: tool.name })}>
              <span className="tool-name">
                <code>{tool.name}</code>
                <span className="hint">{t(tool.what)}</span>
              </span>
              <div className="segmented segmented-sm">
                {(['auto', 'confirm'] as const).map((p) => (
                  <label key={p} className={policy === p ? 'active' : ''}>
                    <input
                      type="radio"
                      name={`perm-${tool.name}`}
                      value={p}
                      checked={policy === p}
                      onChange={() => setPerms((cur) => ({ ...(cur ?? {}), [tool.name]: p }))}
                    />
                    {p === 'auto' ? t('toolsSection.auto') : t('toolsSection.ask')}
                  </label>
                ))}
              </div>
            </div>
          );
        })}
      </div>
      <label className="field">
        <span className="label">{t('toolsSection.wait')}</span>
        <span className="num-unit">
          <input
            className="input num-input"
            inputMode="numeric"
            value={texts.timeout}
            aria-invalid={timeoutValue === null}
            aria-describedby="hint-perm-timeout"
            onChange={(e) => setText('timeout', e.target.value)}
          />
          <span className="muted">{t('toolsSection.seconds')}</span>
        </span>
        <span className="hint" id="hint-perm-timeout">
          {timeoutValue === null ? t('toolsSection.waitInvalid', { max: 3600 }) : t('toolsSection.waitHint')}
        </span>
      </label>
    </fieldset>
  );
}
