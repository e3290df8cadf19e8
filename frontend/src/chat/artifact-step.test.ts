import { describe, expect, it } from 'vitest';
import { artifactStepView } from './artifact-step';

describe('artifactStepView', () => {
  it.each([
    {
      name: 'create shows the title, id, version and content',
      tool: 'create_artifact',
      params: { id: 'research_report', title: 'Moon distance', content: '# Moon distance\n\n384,400 km' },
      result: '<artifact version="1"><id>research_report</id> created</artifact>',
      want: { id: 'research_report', title: 'Moon distance', version: 1, verb: 'created', preview: '# Moon distance\n\n384,400 km' },
    },
    {
      name: 'update shows the replaced and inserted text',
      tool: 'update_artifact',
      params: { id: 'task_plan', old_str: '- [ ] Search', new_str: '- [x] Search' },
      result: '<artifact version="3"><id>task_plan</id> updated</artifact>',
      want: { id: 'task_plan', title: '', version: 3, verb: 'updated', preview: '− - [ ] Search\n+ - [x] Search' },
    },
    {
      name: 'an escaped id is shown as written',
      tool: 'rewrite_artifact',
      params: { id: 'a&b', content: 'x' },
      result: '<artifact version="2"><id>a&amp;b</id> rewritten</artifact>',
      want: { id: 'a&b', title: '', version: 2, verb: 'rewritten', preview: 'x' },
    },
    {
      name: 'read shows the text read and the paging note',
      tool: 'read_artifact',
      params: { id: 'r' },
      result: '<artifact id="r" version="4" content_type="text/markdown" title="Say \\"hi\\"" total_length="5" offset="0">\nhello\n</artifact>\n(showing characters 0-5 of 9)',
      want: { id: 'r', title: 'Say "hi"', version: 4, verb: 'read', preview: 'hello\n(showing characters 0-5 of 9)' },
    },
  ])('$name', ({ tool, params, result, want }) => {
    const got = artifactStepView(tool, params, result);
    expect(got).toEqual(want);
    expect(got?.preview).not.toContain('<artifact');
  });

  it.each([
    { name: 'another tool', tool: 'web_search', result: '<artifact version="1"><id>x</id> created</artifact>' },
    { name: 'an error result', tool: 'create_artifact', result: 'artifact "x" already exists' },
  ])('leaves $name alone', ({ tool, result }) => {
    expect(artifactStepView(tool, {}, result)).toBeNull();
  });
});
