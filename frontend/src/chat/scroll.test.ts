import { describe, expect, it } from 'vitest';
import { askedAnew, jumpShown, nearBottom, sendMarker } from './scroll';

describe('nearBottom', () => {
  it.each([
    { name: 'at the bottom', h: 1000, top: 600, client: 400, want: true },
    { name: 'within the slack', h: 1000, top: 560, client: 400, want: true },
    { name: 'scrolled up', h: 1000, top: 100, client: 400, want: false },
    { name: 'content shorter than the view', h: 300, top: 0, client: 400, want: true },
  ])('$name', ({ h, top, client, want }) => {
    expect(nearBottom(h, top, client)).toBe(want);
  });
});

describe('following a new question', () => {
  it('jumps when a question is sent, then again when its run (or a regenerate) starts, not while it streams', () => {
    let last = sendMarker('', undefined);
    const steps: [string, string | undefined, boolean][] = [
      ['', undefined, false], // nothing asked
      ['How far is the Moon?', undefined, true], // Send pressed: the pending question
      ['', 'm1', true], // its run is listed
      ['', 'm1', false], // streaming
      ['', undefined, false], // finished
      ['', 'm2', true], // Regenerate started a new run
    ];
    for (const [pending, running, want] of steps) {
      const next = sendMarker(pending, running);
      expect(askedAnew(last, next)).toBe(want);
      last = next;
    }
  });
});

describe('jumpShown', () => {
  // A 400 px view of 1000 px of content; the last run's foot starts 96 px above the end.
  it.each([
    { name: 'at the end', fromBottom: 0, tail: 96, want: false },
    { name: 'within the slack', fromBottom: 40, tail: 96, want: false },
    { name: 'the figures still in view where the button would float', fromBottom: 60, tail: 96, want: false },
    { name: 'the figures just under the button', fromBottom: 82, tail: 96, want: true },
    { name: 'far up', fromBottom: 500, tail: 96, want: true },
    { name: 'no foot (a run going on): the slack alone', fromBottom: 60, tail: 0, want: true },
  ])('$name', ({ fromBottom, tail, want }) => {
    expect(jumpShown(1000, 1000 - 400 - fromBottom, 400, tail)).toBe(want);
  });
});
