// @vitest-environment jsdom
// The cost of citation chips on a long report: `npx vitest bench --run src/sources/citations.bench.ts`.
import { bench, describe } from 'vitest';
import type { CiteResolver } from './citations';
import { renderMarkdown } from '../markdown/markdown';

// A 55 KB report: 60 sections of 8 paragraphs, each citing [1], [2, 3] and [4-6] (2,880
// chips, 480 of them unresolved) and a code span that must be left alone.
const para = 'The Moon is 384,400 km away on average [1], measured by laser ranging [2, 3] since 1969 [4-6]. See `arr[1]` too.\n\n';
const report = ('## Section\n\n' + para.repeat(8)).repeat(60);
const resolve: CiteResolver = (n) => (n < 6 ? { title: `Source ${String(n)}` } : undefined);

describe('renderMarkdown, 55 KB report', () => {
  bench('without chips', () => {
    renderMarkdown(report);
  });
  bench('with chips', () => {
    renderMarkdown(report, { cite: resolve });
  });
});
