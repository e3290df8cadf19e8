import { useTranslation } from 'react-i18next';
import { AlertIcon } from '../shared/icons';
import '../settings/agents.css';

/** Props of RunWarnings. */
export interface RunWarningsProps {
  /** The run's warnings as the metadata event gives them, one sentence each. */
  warnings: readonly string[];
  /** Opens the Settings dialog, where Settings → Agents shows each file's problems. */
  onOpenSettings?: () => void;
}

/**
 * What a run did without, under its question: the agent files it skipped, each with its
 * first problem and line ("reviewer.md:3: tools: unknown tool \"foo\" (the agent is
 * skipped)"), and MCP tools an agent names that no server offered. The run went on; a link
 * opens Settings, where the files are fixed.
 */
export function RunWarnings({ warnings, onOpenSettings }: RunWarningsProps) {
  const { t } = useTranslation('chat');
  return (
    <div className="run-warnings" role="status" data-testid="run-warnings">
      <AlertIcon size={14} />
      <div>
        <strong>{t('exchange.warnings', { count: warnings.length })}</strong>
        <ul>
          {warnings.map((w, i) => (
            <li key={i}>{w}</li>
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
