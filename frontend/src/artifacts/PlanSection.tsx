// The artifact panel's task plan: a rendered checklist with its progress, and buttons to
// open it in the viewer or delete it.

import { useTranslation } from 'react-i18next';
import type { LoadedContent } from './useArtifactContent';
import type { ArtifactRow } from './rows';
import { TrashIcon } from '../declared/declared-icons';
import { DocIcon, ListCheckIcon, Spinner } from '../shared/icons';
import { Markdown } from '../markdown/Markdown';

/** Props of PlanSection. */
export interface PlanSectionProps {
  conversationId: string | null;
  /** The task plan's row; undefined while there is none. */
  plan: ArtifactRow | undefined;
  content: LoadedContent;
  running: boolean;
  /** The viewer shows the plan (its open button is then marked active). */
  selected: boolean;
  onOpen: () => void;
  onDelete: (plan: ArtifactRow) => void;
}

/** The task plan: version, unsaved dot, progress, Open and Delete, and the checklist (or why there is none). */
export function PlanSection({ conversationId, plan, content, running, selected, onOpen, onDelete }: PlanSectionProps) {
  const { t } = useTranslation('artifacts');
  return (
    <section className="plan" aria-label={t('panel.plan')}>
      <header className="panel-head">
        <ListCheckIcon size={15} />
        <h2>{t('panel.plan')}</h2>
        {plan ? <span className="muted small">v{plan.version}</span> : null}
        {plan?.unsaved ? <UnsavedDot /> : null}
        {plan ? <PlanProgress content={content.content} /> : null}
        {plan && conversationId !== null ? (
          <button
            type="button"
            className={`icon-btn plan-open${selected ? ' active' : ''}`}
            onClick={onOpen}
            aria-label={t('panel.openPlan')}
            title={t('panel.openPlanTitle')}
          >
            <DocIcon size={14} />
          </button>
        ) : null}
        {plan && conversationId !== null ? (
          <button
            type="button"
            className="icon-btn plan-delete"
            onClick={() => onDelete(plan)}
            disabled={plan.unsaved}
            aria-label={t('panel.deletePlan')}
            title={plan.unsaved ? t('panel.deletePlanBusy') : t('panel.deletePlan')}
          >
            <TrashIcon size={14} />
          </button>
        ) : null}
      </header>
      <div className="plan-body">
        {!plan ? (
          <p className="placeholder">{running ? t('panel.planWaiting') : t('panel.planEmpty')}</p>
        ) : content.loading ? (
          <p className="placeholder">
            <Spinner size={12} /> {t('common:loading')}
          </p>
        ) : content.error ? (
          <p className="error-text">{content.error}</p>
        ) : (
          <Markdown source={content.content} className="plan-md" />
        )}
      </div>
    </section>
  );
}

/** The dot that marks changes a running research has not saved yet. */
export function UnsavedDot() {
  const { t } = useTranslation('artifacts');
  return <span className="unsaved-dot" title={t('panel.unsavedTitle')} aria-label={t('panel.unsaved')} />;
}

function PlanProgress({ content }: { content: string }) {
  const { t } = useTranslation('artifacts');
  const done = (content.match(/^\s*[-*+]\s+\[(x|X|✓|✔)\]/gmu) ?? []).length;
  const total = (content.match(/^\s*[-*+]\s+\[.\]/gmu) ?? []).length;
  if (total === 0) return null;
  return (
    <span className="plan-progress" aria-label={t('panel.planProgress', { done, total })}>
      <span className="bar">
        <span style={{ width: `${String(Math.round((done / total) * 100))}%` }} />
      </span>
      {done}/{total}
    </span>
  );
}
