// Lines the run reducers write (activity notes) are kept as catalogue parts as well as text,
// so a run applied in one language reads in another after the user switches.
import type { RunState, TextPart } from './events';
import { i18n } from '../i18n/i18n';

/** The text of catalogue parts in language `lng` (the UI's current one when omitted). */
export function partsText(parts: readonly TextPart[], lng?: string): string {
  return parts.map((p) => i18n.t(p.key, { ...p.params, ...(lng === undefined ? {} : { lng }) })).join('');
}

/** A note's text and its parts, translated now: what a reducer puts in a NoteStep. */
export function noteText(...parts: TextPart[]): { text: string; parts: TextPart[] } {
  return { text: partsText(parts), parts };
}

/** The run with every note's line in language `lng`; the run itself when nothing changes. */
export function localizeRun(run: RunState, lng: string): RunState {
  const steps = run.steps.map((s) => {
    if (s.kind !== 'note' || s.parts === undefined) return s;
    const text = partsText(s.parts, lng);
    return text === s.text ? s : { ...s, text };
  });
  return steps.some((s, i) => s !== run.steps[i]) ? { ...run, steps } : run;
}
