// The Settings dialog's side list of sections: a table of contents beside the one long form,
// which names each section, scrolls to it on a click, marks the one in view and the ones
// holding an invalid field.
import { useCallback, useEffect, useRef, useState, type KeyboardEvent, type ReactNode, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';

/** Marks an element of the settings form as one section of the side list; its value is the section's name. */
export const SECTION_ATTR = 'data-settings-section';

/** Props of SettingsSection. */
export interface SettingsSectionProps {
  /** The section's name in the side list (in the UI's language). */
  title: string;
  children: ReactNode;
}

/**
 * Groups several fieldsets of the settings form as one section of the side list, named
 * title. A top-level <fieldset> with a <legend> is a section on its own (named by its
 * legend) and needs no wrapper.
 */
export function SettingsSection({ title, children }: SettingsSectionProps) {
  return (
    <section className="settings-section" {...{ [SECTION_ATTR]: title }} aria-label={title}>
      {children}
    </section>
  );
}

/** One entry of the side list: the section's element, its name, and whether a field in it is invalid. */
export interface SectionEntry {
  el: HTMLElement;
  title: string;
  invalid: boolean;
}

/**
 * The sections of form, in order: each direct child marked with SECTION_ATTR (a
 * SettingsSection), and each direct child <fieldset> with a <legend> (named by the legend's
 * text); a direct child <form> is looked into the same way (the dialog's body holds the
 * settings form and, beside it, sections with forms of their own). So a section is listed by being rendered in the form: adding one to the dialog is
 * the one line that renders it.
 */
export function sectionsOf(form: HTMLElement): SectionEntry[] {
  const out: SectionEntry[] = [];
  for (const el of Array.from(form.children)) {
    if (!(el instanceof HTMLElement)) continue;
    if (el.tagName === 'FORM') {
      out.push(...sectionsOf(el));
      continue;
    }
    const marked = el.getAttribute(SECTION_ATTR);
    const legend = el.tagName === 'FIELDSET' ? el.querySelector(':scope > legend')?.textContent.trim() : undefined;
    const title = marked ?? legend;
    if (!title) continue;
    out.push({ el, title, invalid: el.querySelector('[aria-invalid="true"]') !== null });
  }
  return out;
}

/**
 * The section in view in scroller: the last one whose top is at or above the scroller's top
 * (give or take slack px), the first when none is; the last one once the scroller is at its
 * end (a short last section never reaches the top). -1 with no sections.
 */
export function activeSection(tops: readonly number[], scrollerTop: number, atEnd: boolean, slack = 24): number {
  if (tops.length === 0) return -1;
  if (atEnd) return tops.length - 1;
  let active = 0;
  tops.forEach((top, i) => {
    if (top <= scrollerTop + slack) active = i;
  });
  return active;
}

/** Whether two entries list the same section in the same state. */
const sameEntry = (a: SectionEntry, b: SectionEntry | undefined) => b !== undefined && a.el === b.el && a.title === b.title && a.invalid === b.invalid;

/** Props of SettingsNav. */
export interface SettingsNavProps {
  /** The settings form whose sections are listed. */
  formRef: RefObject<HTMLElement | null>;
}

/**
 * The side list of the settings form's sections (sectionsOf): a click (or Enter) scrolls
 * the section to the top of the dialog's scrolling body; the section in view is marked
 * (aria-current); a section holding an invalid field shows a dot and says so to screen
 * readers. The list follows the form as sections appear (after loading) and fields turn
 * invalid or valid. It is one stop of the Tab order (the section in view), and the arrow
 * keys, Home and End move through it; render it after the form, so Tab from the dialog's
 * top reaches the first field first (the stylesheet puts the list on the left).
 */
export function SettingsNav({ formRef }: SettingsNavProps) {
  const { t } = useTranslation('settings');
  const [entries, setEntries] = useState<SectionEntry[]>([]);
  const [active, setActive] = useState(0);

  const scroller = useCallback(() => formRef.current?.closest<HTMLElement>('.modal-body') ?? null, [formRef]);
  const update = useCallback(() => {
    const form = formRef.current;
    if (!form) return;
    const list = sectionsOf(form);
    setEntries((was) => (was.length === list.length && was.every((e, i) => sameEntry(e, list[i])) ? was : list));
    const sc = scroller();
    // Not laid out yet (the dialog opens after its contents mount): every top would read 0
    // and mark the last section; the ResizeObserver below asks again once it has a size.
    if (!sc || sc.clientHeight === 0) return;
    const top = sc.getBoundingClientRect().top;
    const atEnd = sc.scrollHeight - sc.scrollTop - sc.clientHeight < 2 && sc.scrollTop > 0;
    setActive(activeSection(list.map((e) => e.el.getBoundingClientRect().top), top, atEnd));
  }, [formRef, scroller]);

  useEffect(() => {
    const form = formRef.current;
    const sc = scroller();
    if (!form) return;
    update();
    const mo = new MutationObserver(update);
    mo.observe(form, { childList: true, subtree: true, attributes: true, attributeFilter: ['aria-invalid'], characterData: true });
    sc?.addEventListener('scroll', update, { passive: true });
    const ro = typeof ResizeObserver === 'function' && sc ? new ResizeObserver(update) : null;
    if (sc) ro?.observe(sc);
    return () => {
      mo.disconnect();
      ro?.disconnect();
      sc?.removeEventListener('scroll', update);
    };
  }, [formRef, scroller, update]);

  const go = (e: SectionEntry) => {
    const sc = scroller();
    if (!sc) return;
    const offset = e.el.getBoundingClientRect().top - sc.getBoundingClientRect().top;
    sc.scrollTop += offset - 4;
  };
  const list = useRef<HTMLUListElement>(null);
  const onKey = (ev: KeyboardEvent<HTMLUListElement>) => {
    const buttons = Array.from(list.current?.querySelectorAll('button') ?? []);
    const at = buttons.findIndex((b) => b === document.activeElement);
    const to = ev.key === 'ArrowDown' ? at + 1 : ev.key === 'ArrowUp' ? at - 1 : ev.key === 'Home' ? 0 : ev.key === 'End' ? buttons.length - 1 : null;
    const entry = to === null ? undefined : entries[to];
    if (to === null || entry === undefined) return;
    ev.preventDefault();
    buttons[to]?.focus();
    setActive(to);
    go(entry);
  };

  if (entries.length < 2) return null;
  return (
    <nav className="settings-nav" aria-label={t('nav.label')}>
      <ul ref={list} onKeyDown={onKey}>
        {entries.map((e, i) => (
          <li key={`${e.title}/${String(i)}`}>
            <button
              type="button"
              className={`settings-nav-item${i === active ? ' active' : ''}`}
              aria-current={i === active ? 'true' : undefined}
              tabIndex={i === active ? 0 : -1}
              aria-label={e.invalid ? t('nav.invalid', { section: e.title }) : undefined}
              onClick={() => go(e)}
            >
              <span className="settings-nav-title">{e.title}</span>
              {e.invalid ? <span className="settings-nav-dot" aria-hidden="true" /> : null}
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
