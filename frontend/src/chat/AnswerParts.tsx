// The pieces of an exchange around the answer: the footer of cited sources, the run's
// figures, the reasoning fold and the messages added during a run.
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { failureParts, type AnswerParts } from '../sources/citations';
import type { QueuedInput, RunState } from '../run/events';
import { formatCount, formatDuration } from '../shared/format';
import { currentLocale } from '../i18n/i18n';
import { CiteChip } from '../sources/Citations';
import { ClockIcon } from './conversation-icons';
import { AlertIcon, ChevronIcon, Spinner } from '../shared/icons';
import { Markdown } from '../markdown/Markdown';

/**
 * The footer of a finished answer: the line saying which searches and fetches failed, as
 * a warning, and the sources the answer cited, each with its chip (hover card, click to
 * open) and the engine's Markdown line (a link to the page, site and date; for a file its
 * path and page).
 */
// i18n-keys: chat:answer.searchesFailed chat:answer.fetchesFailed
export function AnswerFooter({ parts }: { parts: AnswerParts }) {
  const { t } = useTranslation('chat');
  if (parts.failures === '' && parts.sources.length === 0) return null;
  // The engine writes the line in English; each part is worded in the UI's language.
  const failed = failureParts(parts.failures);
  const failures =
    failed.length === 0
      ? parts.failures
      : failed
          .map((f) => t(f.kind === 'search' ? 'answer.searchesFailed' : 'answer.fetchesFailed', { count: f.total, failed: f.failed, error: f.error }))
          .reduce((all, part) => (all === '' ? part : all.endsWith('。') ? all + part : `${all} ${part}`), '');
  return (
    <>
      {parts.failures !== '' ? (
        <div className="answer-failures" role="note" aria-label={t('answer.failures')}>
          <AlertIcon size={15} />
          <span>{failures}</span>
        </div>
      ) : null}
      {parts.sources.length > 0 ? (
        <section className="answer-sources" aria-label={t('answer.sourcesLabel')}>
          <h3>{t('answer.sources')}</h3>
          <ol>
            {parts.sources.map((s) => (
              <li key={s.n}>
                <CiteChip n={s.n} />
                <Markdown source={s.text} className="answer-source-text" />
              </li>
            ))}
          </ol>
        </section>
      ) : null}
    </>
  );
}

/** The figures of a finished run: steps, tokens (in/out), duration, model, compactions. */
export function Figures({ run }: { run: RunState }) {
  const { t } = useTranslation('chat');
  const f = run.figures;
  if (!f) return null;
  const u = f.usage;
  const done = run.compactions.filter((c) => c.status === 'done').length;
  const n = new Intl.NumberFormat(currentLocale());
  return (
    <div className="figures" aria-label={t('figures.label')}>
      <span>{t('figures.steps', { count: f.steps })}</span>
      <span title={t('figures.tokensTitle', { prompt: n.format(u.prompt_tokens), completion: n.format(u.completion_tokens) })}>
        {t('figures.tokens', { tokens: formatCount(u.total_tokens) })}
        {u.prompt_tokens > 0 || u.completion_tokens > 0 ? (
          <span className="figures-split">
            {' '}
            {t('figures.split', { in: formatCount(u.prompt_tokens), out: formatCount(u.completion_tokens) })}
          </span>
        ) : null}
      </span>
      {f.durationMs > 0 ? <span>{formatDuration(f.durationMs)}</span> : null}
      {run.model ? <span>{run.model}</span> : null}
      {done > 0 ? <span>{t('figures.compactions', { count: done })}</span> : null}
    </div>
  );
}

/** A message the user sent while the research was going, with what became of it. */
export function AddedMessage({ q, sending = false, onReuse }: { q: QueuedInput; sending?: boolean; onReuse?: () => void }) {
  const { t } = useTranslation('chat');
  return (
    <div className={`added-msg status-${q.status}`}>
      <div className="question added-question">{q.content || t('added.placeholder')}</div>
      <div className="added-note">
        {q.status === 'delivered' ? (
          t('added.delivered')
        ) : q.status === 'queued' ? (
          <>
            {sending ? <Spinner size={11} /> : <ClockIcon size={12} />}
            <span className="badge badge-queued">{t('added.queued')}</span>
            {sending ? t('added.sending') : t('added.nextStep')}
          </>
        ) : (
          <>
            {t('added.dropped')}
            {onReuse ? (
              <button type="button" className="btn btn-sm btn-ghost" onClick={onReuse}>
                {t('added.reuse')}
              </button>
            ) : null}
          </>
        )}
      </div>
    </div>
  );
}

/** The agent's reasoning, folded unless it is streaming (the reader can open or close it). */
export function Reasoning({ text, streaming }: { text: string; streaming: boolean }) {
  const { t } = useTranslation('chat');
  const [open, setOpen] = useState<boolean | null>(null);
  const isOpen = open ?? streaming;
  return (
    <div className={`reasoning${isOpen ? ' open' : ''}`}>
      <button type="button" className="reasoning-head" aria-expanded={isOpen} onClick={() => setOpen(!isOpen)}>
        <ChevronIcon size={12} className={isOpen ? 'chev open' : 'chev'} />
        {streaming ? t('reasoning.streaming') : t('reasoning.title')}
      </button>
      {isOpen ? <div className="reasoning-text">{text}</div> : null}
    </div>
  );
}
