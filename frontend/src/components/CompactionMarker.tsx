import { useState } from 'react';
import { LEAD_AGENT, type Compaction } from '../events';
import { formatCount, formatDuration } from '../format';
import { CompressIcon } from './conversation-icons';
import { AlertIcon, ChevronIcon, Spinner } from './icons';
import { Markdown } from './Markdown';

/** The one-line text of a compaction marker, e.g. "Context compacted: 41k → 3k tokens". */
export function compactionLabel(c: Pick<Compaction, 'agent' | 'status' | 'tokensBefore' | 'tokensAfter'>): string {
  const who = c.agent && c.agent !== LEAD_AGENT ? ` for ${c.agent}` : '';
  switch (c.status) {
    case 'running':
      return `Compacting the context${who}…`;
    case 'done':
      return `Context compacted${who}: ${formatCount(c.tokensBefore)} → ${formatCount(c.tokensAfter)} tokens`;
    case 'failed':
      return `Context compaction failed${who} — the agent went on with the full history`;
  }
}

/**
 * A marker in the conversation where the agent's context was compacted (compaction_start /
 * compaction_summary): the earlier messages stay visible above it; for the agent they were
 * replaced by the summary, which the marker expands to show. A failed compaction shows as
 * a warning with its error.
 */
export function CompactionMarker({ c }: { c: Compaction }) {
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
            {open ? 'Hide' : c.status === 'done' ? 'Show summary' : 'Details'}
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
                What the agent keeps of the {c.messages > 0 ? `${String(c.messages)} earlier messages` : 'earlier history'} — everything above stays here for you.
                {c.durationMs > 0 ? ` Summarized in ${formatDuration(c.durationMs)}.` : ''}
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
