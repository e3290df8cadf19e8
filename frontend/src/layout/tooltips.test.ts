// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installTooltips, TOOLTIP_CLASS } from './tooltips';

describe('installTooltips', () => {
  let uninstall: () => void = () => undefined;
  beforeEach(() => {
    document.body.innerHTML =
      '<button id="a" title="Settings (Ctrl+,)"><span id="icon">*</span></button><button id="b" title="Export">E</button><p id="plain">text</p>' +
      '<dialog id="d" open><button id="in" title="Close (Esc)">x</button></dialog>';
    uninstall = installTooltips(document);
  });
  afterEach(() => uninstall());

  const el = (id: string) => document.getElementById(id) as HTMLElement;
  const fire = (target: Element, type: string) => target.dispatchEvent(new Event(type, { bubbles: true }));
  const tips = () => [...document.querySelectorAll(`.${TOOLTIP_CLASS}`)];
  const settle = () => new Promise((r) => setTimeout(r, 5));

  it('keeps the title from the engine for the length of a pointer event, and gives it back', async () => {
    let during: string | null = 'unset';
    el('a').addEventListener('pointermove', () => {
      during = el('a').getAttribute('title');
    });
    fire(el('icon'), 'pointerover');
    fire(el('icon'), 'pointermove');
    expect(during).toBeNull(); // what the engine would read for its own tooltip
    await settle();
    expect(el('a').getAttribute('title')).toBe('Settings (Ctrl+,)'); // the accessible description is back
  });

  it('shows the title in its own tooltip, which a press hides until the pointer moves elsewhere', async () => {
    fire(el('icon'), 'pointerover');
    expect(tips().map((t) => [t.textContent, t.getAttribute('role')])).toEqual([['Settings (Ctrl+,)', 'tooltip']]);
    fire(el('a'), 'pointerdown');
    expect(tips()).toEqual([]);
    await settle();
    fire(el('icon'), 'pointermove'); // still on the control: nothing comes back over a dialog it opened
    expect(tips()).toEqual([]);
    fire(el('plain'), 'pointerover');
    expect(tips()).toEqual([]);
    fire(el('b'), 'pointerover');
    expect(tips().map((t) => t.textContent)).toEqual(['Export']);
    fire(el('b'), 'keydown');
    expect(tips()).toEqual([]);
  });

  it('puts the tooltip of a control in an open dialog inside that dialog', () => {
    fire(el('in'), 'pointerover');
    expect(tips()).toHaveLength(1);
    expect(tips()[0]?.parentElement).toBe(el('d'));
  });

  it('leaves nothing behind once uninstalled', () => {
    fire(el('b'), 'pointerover');
    uninstall();
    expect(tips()).toEqual([]);
    fire(el('a'), 'pointerover');
    expect(tips()).toEqual([]);
  });
});
