import { useTranslation } from 'react-i18next';
import { AlertIcon } from '../shared/icons';
import type { WarningCode } from '../run/event-types';
import '../settings/agents.css';

/** Props of RunWarnings. */
export interface RunWarningsProps {
  /** The run's warnings as the metadata event gives them, one sentence each. */
  warnings: readonly string[];
  /** Their codes, one per warning (RunState.warningCodes): a coded warning is said in the UI's language; null or missing: its sentence. */
  codes?: readonly WarningCode[];
  /** Opens the Settings dialog, where Settings → Agents shows each file's problems. */
  onOpenSettings?: () => void;
}

/**
 * What a run did without, under its question: the agent files it skipped, each with its
 * first problem and line ("reviewer.md:3: tools: unknown tool \"foo\" (the agent is
 * skipped)"), and MCP tools an agent names that no server offered. The run went on; a link
 * opens Settings, where the files are fixed.
 */
export function RunWarnings({ warnings, codes, onOpenSettings }: RunWarningsProps) {
  const { t, i18n } = useTranslation('chat');
  const say = (w: string, i: number) => {
    const c = codes?.[i];
    const key = c ? `exchange.warningCode.${c.code}` : '';
    return c && i18n.exists(key, { ns: 'chat' }) ? t(key, c.params) : w;
  };
  return (
    <div className="run-warnings" role="status" data-testid="run-warnings">
      <AlertIcon size={14} />
      <div>
        <strong>{t('exchange.warnings', { count: warnings.length })}</strong>
        <ul>
          {warnings.map((w, i) => (
            <li key={i}>{say(w, i)}</li>
          ))}
        </ul>
        {onOpenSettings ? (
          <button type="button" className="link-like" onClick={onOpenSettings}>
            {t('exchange.warningsSettings')}
          </button>
        ) : null}
      </div>
    </div>
  );
}
