import type { KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import '../i18n/i18n'; // the UI's language, set up before the first render
import { ChevronIcon } from '../shared/icons';

/** Props of BranchNav. */
export interface BranchNavProps {
  /** 0-based position of the branch shown. */
  index: number;
  /** How many branches there are at this point (≥ 2 to be shown). */
  count: number;
  /** No switching while a run is going in the conversation or a switch is under way. */
  disabled: boolean;
  /** Called with the 0-based position of the branch to show. */
  onGo: (index: number) => void;
}

/**
 * The branch navigator of a message with siblings: ‹ 2/3 ›. The buttons move to the
 * previous and next branch; with focus on either, ArrowLeft/ArrowRight do the same and
 * Home/End go to the first and last branch. Renders nothing for a single branch.
 */
export function BranchNav({ index, count, disabled, onGo }: BranchNavProps) {
  const { t } = useTranslation('sidebar');
  if (count < 2) return null;
  const go = (i: number) => {
    if (!disabled && i >= 0 && i < count && i !== index) onGo(i);
  };
  const onKey = (e: KeyboardEvent) => {
    const target = e.key === 'ArrowLeft' ? index - 1 : e.key === 'ArrowRight' ? index + 1 : e.key === 'Home' ? 0 : e.key === 'End' ? count - 1 : null;
    if (target === null) return;
    e.preventDefault();
    go(target);
  };
  return (
    <div className="branch-nav" role="group" aria-label={t('branch.group')} onKeyDown={onKey}>
      <button
        type="button"
        className="icon-btn branch-prev"
        aria-label={t('branch.previous')}
        title={disabled ? t('branch.wait') : t('branch.previousTitle')}
        disabled={disabled}
        aria-disabled={index === 0 || undefined}
        onClick={() => go(index - 1)}
      >
        <ChevronIcon size={14} style={{ transform: 'rotate(180deg)' }} />
      </button>
      <span className="branch-pos" aria-live="polite" aria-label={t('branch.position', { index: index + 1, total: count })}>
        {index + 1}/{count}
      </span>
      <button
        type="button"
        className="icon-btn branch-next"
        aria-label={t('branch.next')}
        title={disabled ? t('branch.wait') : t('branch.nextTitle')}
        disabled={disabled}
        aria-disabled={index === count - 1 || undefined}
        onClick={() => go(index + 1)}
      >
        <ChevronIcon size={14} />
      </button>
    </div>
  );
}
