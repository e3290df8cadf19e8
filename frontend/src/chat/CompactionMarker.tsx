import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LEAD_AGENT, type Compaction } from '../run/events';
import { formatCount, formatDuration } from '../shared/format';
import { i18n } from '../i18n/i18n';
import { CompressIcon } from './conversation-icons';
import { AlertIcon, ChevronIcon, Spinner } from '../shared/icons';
import { Markdown } from '../markdown/Markdown';

/**
 * The one-line text of a compaction marker in the UI's language, e.g. "Context compacted:
 * 41k → 3k tokens" (naming the agent when it is not the lead).
 */
export function compactionLabel(c: Pick<Compaction, 'agent' | 'status' | 'tokensBefore' | 'tokensAfter'>): string {
  const agent = c.agent && c.agent !== LEAD_AGENT ? c.agent : '';
  const before = formatCount(c.tokensBefore);
  const after = formatCount(c.tokensAfter);
  switch (c.status) {
    case 'running':
      return agent ? i18n.t('tools:compaction.runningFor', { agent }) : i18n.t('tools:compaction.running');
    case 'done':
      return agent ? i18n.t('tools:compaction.doneFor', { agent, before, after }) : i18n.t('tools:compaction.done', { before, after });
    case 'failed':
      return agent ? i18n.t('tools:compaction.failedFor', { agent }) : i18n.t('tools:compaction.failed');
  }
}

/**
 * A marker in the conversation where the agent's context was compacted (compaction_start /
 * compaction_summary): the earlier messages stay visible above it; for the agent they were
 * replaced by the summary, which the marker expands to show. A failed compaction shows as
 * a warning with its error.
 */
export function CompactionMarker({ c }: { c: Compaction }) {
  const { t } = useTranslation('tools');
  const [open, setOpen] = useState(false);
  const label = compactionLabel(c);
  const body = c.status === 'done' ? c.summary : c.error;
  const icon = c.status === 'running' ? <Spinner size={13} /> : c.status === 'failed' ? <AlertIcon size={14} /> : <CompressIcon size={14} />;
  return (
    <div className={`compaction-marker status-${c.status}`} role="note" aria-label={label}>
      <div className="compaction-rule" aria-hidden="true" />
      {body && c.status !== 'running' ? (
        <button type="button" className="compaction-head" aria-expanded={open} onClick={() => setOpen(!open)}>
          {icon}
          <span className="compaction-text">{label}</span>
          <span className="compaction-more">
            {open ? t('compaction.hide') : c.status === 'done' ? t('compaction.showSummary') : t('compaction.details')}
            <ChevronIcon size={11} className={open ? 'chev open' : 'chev'} />
          </span>
        </button>
      ) : (
        <div className="compaction-head">
          {icon}
          <span className="compaction-text">{label}</span>
        </div>
      )}
      <div className="compaction-rule" aria-hidden="true" />
      {open && body ? (
        <div className="compaction-body">
          {c.status === 'done' ? (
            <>
              <p className="compaction-note">
                {c.messages > 0 ? t('compaction.keepsMessages', { count: c.messages }) : t('compaction.keepsHistory')}
                {c.durationMs > 0 ? ` ${t('compaction.summarizedIn', { duration: formatDuration(c.durationMs) })}` : ''}
              </p>
              <Markdown source={c.summary} className="compaction-summary" />
            </>
          ) : (
            <p className="compaction-error">{c.error}</p>
          )}
        </div>
      ) : null}
    </div>
  );
}
