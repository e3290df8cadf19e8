import { describe, expect, it } from 'vitest';
import { pendingText, settlePending, type PendingQuestion } from './pending';

const sent: PendingQuestion = { conversationId: 'c1', messageId: 'm1', content: 'How far is the Moon?' };

describe('settlePending', () => {
  it.each([
    { name: 'nothing pending', pending: null, keys: ['m1'], want: null },
    { name: 'Send not answered yet', pending: { ...sent, messageId: '', newestAtSend: 'm0' }, keys: ['m0'], want: 'same' },
    { name: 'Send not answered yet, first question', pending: { ...sent, messageId: '' }, keys: [], want: 'same' },
    { name: 'Send not answered but the run listed the exchange', pending: { ...sent, messageId: '', newestAtSend: 'm0' }, keys: ['m0', 'm1'], want: null },
    { name: 'Send not answered but the first exchange is listed', pending: { ...sent, messageId: '' }, keys: ['m1'], want: null },
    { name: 'exchange not listed yet', pending: sent, keys: ['m0'], want: 'same' },
    { name: 'exchange listed', pending: sent, keys: ['m0', 'm1'], want: null },
  ] as const)('$name', ({ pending, keys, want }) => {
    const got = settlePending(pending, keys);
    if (want === 'same') expect(got).toBe(pending);
    else expect(got).toBeNull();
  });
});

describe('the phantom question', () => {
  it('does not come back once its exchange was listed and a regenerate moved to another branch', () => {
    // Send answered: shown as pending until the exchange m1 is listed.
    expect(pendingText(sent, 'c1', [])).toBe(sent.content);
    const settled = settlePending(sent, ['m1']);
    expect(pendingText(settled, 'c1', ['m1'])).toBe('');
    // Regenerate made the sibling m2 the active branch: m1 is no longer listed.
    expect(pendingText(settled, 'c1', ['m2'])).toBe('');
    // Switching away and back changes nothing.
    expect(pendingText(settled, 'c2', [])).toBe('');
    expect(pendingText(settled, 'c1', ['m2'])).toBe('');
  });

  it('is not shown twice when the run lists the exchange before Send answers', () => {
    const sending: PendingQuestion = { ...sent, messageId: '', newestAtSend: 'm0' };
    expect(pendingText(sending, 'c1', ['m0'])).toBe(sent.content);
    // The run's events listed the new exchange m1; Send has not answered yet.
    expect(pendingText(sending, 'c1', ['m0', 'm1'])).toBe('');
    // Older messages loaded above do not count as the new exchange.
    expect(pendingText(sending, 'c1', ['m-1', 'm0'])).toBe(sent.content);
  });

  it('is shown only in its own conversation', () => {
    expect(pendingText({ ...sent, conversationId: null, messageId: '' }, null, [])).toBe(sent.content);
    expect(pendingText(sent, 'c2', [])).toBe('');
    expect(pendingText(sent, 'c1', ['m1'])).toBe('');
  });
});
