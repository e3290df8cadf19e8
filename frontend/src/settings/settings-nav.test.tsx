// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { act, createRef } from 'react';
import { createRoot } from 'react-dom/client';
import { activeSection, sectionsOf, SECTION_ATTR, SettingsNav } from './SettingsNav';

describe('sectionsOf', () => {
  it('lists the form’s top-level fieldsets by legend and its marked groups, in order, with their invalid fields', () => {
    const form = document.createElement('form');
    form.innerHTML =
      '<p class="hint">Changes apply…</p>' +
      '<fieldset><legend>Language</legend><select></select></fieldset>' +
      `<section ${SECTION_ATTR}="Agents"><fieldset><legend>Lead agent</legend></fieldset><fieldset><legend>Sub-agents</legend><input aria-invalid="true"></fieldset></section>` +
      '<fieldset><input></fieldset>' +
      '<fieldset><legend> Files </legend><input aria-invalid="false"></fieldset>';
    expect(sectionsOf(form).map((e) => [e.title, e.invalid])).toEqual([
      ['Language', false],
      ['Agents', true],
      ['Files', false],
    ]);
  });
});

describe('activeSection', () => {
  it.each([
    { name: 'at the top', tops: [100, 300, 600], top: 100, atEnd: false, want: 0 },
    { name: 'the second scrolled to the top', tops: [-250, 102, 400], top: 100, atEnd: false, want: 1 },
    { name: 'between two', tops: [-500, -100, 400], top: 100, atEnd: false, want: 1 },
    { name: 'at the end, a short last section', tops: [-900, -400, 350], top: 100, atEnd: true, want: 2 },
    { name: 'no sections', tops: [], top: 100, atEnd: false, want: -1 },
  ])('$name', ({ tops, top, atEnd, want }) => {
    expect(activeSection(tops, top, atEnd)).toBe(want);
  });
});

describe('SettingsNav before its dialog is laid out', () => {
  it('marks the first section, not the last, while every top reads 0', async () => {
    // A closed dialog: nothing has a size yet (jsdom lays out nothing, like display: none).
    const body = document.createElement('div');
    body.className = 'modal-body';
    const form = document.createElement('form');
    form.innerHTML = '<fieldset><legend>Language</legend></fieldset><fieldset><legend>Model</legend></fieldset><fieldset><legend>Agents</legend></fieldset>';
    body.append(form);
    const host = document.createElement('div');
    document.body.append(body, host);
    const formRef = createRef<HTMLElement>();
    (formRef as { current: HTMLElement | null }).current = form;
    const root = createRoot(host);
    await act(async () => {
      root.render(<SettingsNav formRef={formRef} />);
      await Promise.resolve();
    });
    expect([...host.querySelectorAll('[aria-current="true"]')].map((b) => b.textContent)).toEqual(['Language']);
    act(() => root.unmount());
    body.remove();
    host.remove();
  });
});
