import { describe, expect, it } from 'vitest';
import { askedAnew, nearBottom, sendMarker } from './scroll';

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
