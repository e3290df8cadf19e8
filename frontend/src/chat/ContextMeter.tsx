import { useTranslation } from 'react-i18next';
import { contextMeter } from './context-meter';
import { currentLocale } from '../i18n/i18n';

/** Props of ContextMeter. */
export interface ContextMeterProps {
  /** Tokens in the lead agent's context (its latest LLM call's prompt_tokens); 0 when unknown. */
  used: number;
  /** The model's context window in tokens (effective_context_window); ≤ 0 hides the meter. */
  window: number;
  /** The compaction threshold in percent of the window. */
  compactAtPercent: number;
}

/**
 * The context meter of the chat header: "41k / 128k" tokens with a bar that turns amber
 * near the compaction threshold (marked on the bar) and past it. The numbers are those
 * of the lead agent's latest LLM call as the endpoint reported them.
 */
export function ContextMeter({ used, window, compactAtPercent }: ContextMeterProps) {
  const { t } = useTranslation('tools');
  const m = contextMeter(used, window, compactAtPercent);
  if (m === null) return null;
  const percent = compactAtPercent >= 1 && compactAtPercent <= 100 ? compactAtPercent : 80;
  const num = (n: number) => n.toLocaleString(currentLocale());
  const title =
    used > 0
      ? `${t('context.used', { used: num(m.used), window: num(m.window), percent: m.percent })} ` +
        (m.level === 'over' ? t('context.over', { percent }) : t('context.below', { percent, threshold: num(m.threshold) }))
      : t('context.window', { window: num(m.window), percent });
  return (
    <div className={`ctx-meter level-${m.level}`} title={title}>
      <span className="ctx-label">{t('context.label')}</span>
      <div
        className="ctx-bar"
        role="meter"
        aria-label={t('context.meter')}
        aria-valuemin={0}
        aria-valuemax={m.window}
        aria-valuenow={Math.min(m.used, m.window)}
        aria-valuetext={t('context.valueText', { label: m.label, percent: m.percent })}
      >
        <span className="ctx-fill" style={{ width: `${String(Math.round(m.fraction * 1000) / 10)}%` }} />
        <span className="ctx-threshold" style={{ left: `${String(Math.round(m.thresholdFraction * 1000) / 10)}%` }} />
      </div>
      <span className="ctx-figures">{used > 0 ? m.label : `— / ${m.label.split(' / ')[1] ?? ''}`}</span>
    </div>
  );
}
