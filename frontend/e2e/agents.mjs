// Settings → Agents against the real Go backend in browser mode, driven by
// app/browser/agents_e2e_test.go (TestBrowserE2EAgents): node e2e/agents.mjs URL, with
// AF_QUESTION (asked at the end; the scripted research answers it). Checks:
//   1. Settings → Agents lists the built-in agents read-only with their tools (screenshot
//      /tmp/ui-agents-top.png);
//   2. a new agent "reviewer" is created from the template and opens in the editor;
//   3. saved with an unknown tool, its problem shows with its line (in the editor and the
//      list) and the text is kept (screenshot /tmp/ui-agents-error.png);
//   4. fixed and saved, it is listed as ready (screenshot /tmp/ui-agents.png);
//   5. an agent "drafty" left with a problem makes the next run show a warning naming its
//      file and line under the question, and the run completes (screenshot
//      /tmp/ui-agents-run-warning.png).
// Exits non-zero on the first failure.
import { readFileSync } from 'node:fs';
import { assert, checker, launch, screenshot } from './browser.mjs';

const url = process.argv[2];
const question = process.env.AF_QUESTION;
if (!url || !question) {
  console.error('usage: AF_QUESTION=.. node e2e/agents.mjs URL');
  process.exit(2);
}

const catalogue = (ns) => JSON.parse(readFileSync(new URL(`../src/locales/en/${ns}.json`, import.meta.url), 'utf8'));
const ag = catalogue('agents');
const chat = catalogue('chat');

const REVIEWER_BAD = `---
name: reviewer
description: Reviews a draft artifact for unsupported claims.
tools: [read_artifact, no_such_tool]
model: reviewer-model
max_rounds: 4
---

You are reviewer. Read the artifact you are given and list its unsupported claims.
`;
const REVIEWER = REVIEWER_BAD.replace('[read_artifact, no_such_tool]', '[read_artifact]');
const DRAFTY_BAD = `---
name: drafty
description: Not finished yet.
max_rounds: lots
---

Draft.
`;

const { page, errors, close } = await launch();
const check = checker(page, close);
await page.goto(url);
await page.locator('nav.sidebar').waitFor();

/** Opens Settings and returns the Agents section, scrolled into view. */
async function openAgents() {
  await page.locator('.btn-settings').click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  const section = dialog.locator('[data-testid="agents-section"]');
  await section.locator('[data-testid="built-in-agents"] li').first().waitFor();
  await section.scrollIntoViewIfNeeded();
  return { dialog, section };
}

/** Creates agent `name` in `section` and waits for its editor. */
async function create(section, name) {
  await section.getByRole('textbox', { name: ag.newLabel }).fill(name);
  await section.getByRole('button', { name: ag.create, exact: true }).click();
  const editor = section.getByRole('textbox', { name: ag.editorLabel.replace('{{file}}', `${name}.md`) });
  await editor.waitFor();
  return editor;
}

let section;
let dialog;
await check('Settings → Agents lists the built-in agents read-only with their tools', async () => {
  ({ dialog, section } = await openAgents());
  const builtIn = section.locator('[data-testid="built-in-agents"]');
  const text = await builtIn.innerText();
  for (const want of ['lead_agent', 'search_agent', 'crawl_agent', 'web_search', 'web_fetch']) assert(text.includes(want), `built-in agents lack ${want}: ${text}`);
  assert((await builtIn.locator('button').count()) === 0, 'a built-in agent can be edited');
  await section.locator('legend').scrollIntoViewIfNeeded();
  await screenshot(page, 'agents-top');
});

let editor;
await check('a new agent is created from the template and opens in the editor', async () => {
  editor = await create(section, 'reviewer');
  const text = await editor.inputValue();
  assert(text.startsWith('---\nname: reviewer\n'), `the editor holds ${JSON.stringify(text.slice(0, 60))}`);
  await section.locator('[data-testid="user-agent"][data-file="reviewer.md"]').getByText(ag.ready, { exact: true }).waitFor();
});

await check('saved with an unknown tool, the problem shows with its line and the text is kept', async () => {
  await editor.fill(REVIEWER_BAD);
  await section.getByRole('button', { name: ag.save, exact: true }).click();
  const problems = section.locator('#agent-editor-problems');
  await problems.waitFor();
  const text = await problems.innerText();
  assert(/Line 4:\s*tools: unknown tool "no_such_tool"/.test(text), `editor problems: ${text}`);
  assert((await editor.inputValue()) === REVIEWER_BAD, 'the editor lost the text');
  const row = section.locator('[data-testid="user-agent"][data-file="reviewer.md"]');
  await row.locator('[data-line="4"]').waitFor();
  assert((await row.innerText()).includes('skipped: 1 problem'), `list row: ${await row.innerText()}`);
  await problems.scrollIntoViewIfNeeded();
  await screenshot(page, 'agents-error');
});

await check('fixed and saved, it is listed as ready', async () => {
  await editor.fill(REVIEWER);
  await section.getByRole('button', { name: ag.save, exact: true }).click();
  await section.getByText(ag.savedValid, { exact: true }).waitFor();
  assert((await section.locator('#agent-editor-problems').count()) === 0, 'problems still shown');
  const row = section.locator('[data-testid="user-agent"][data-file="reviewer.md"]');
  await row.getByText(ag.ready, { exact: true }).waitFor();
  const text = await row.innerText();
  assert(text.includes('reviewer-model') && text.includes('read_artifact') && text.includes('up to 4 tool rounds'), `list row: ${text}`);
  await section.getByRole('button', { name: ag.closeEditor, exact: true }).click();
  await section.locator('[data-testid="user-agents"]').scrollIntoViewIfNeeded();
  await screenshot(page, 'agents');
});

await check('an agent left broken is skipped by the next run, which says so under the question', async () => {
  const drafty = await create(section, 'drafty');
  await drafty.fill(DRAFTY_BAD);
  await section.getByRole('button', { name: ag.save, exact: true }).click();
  await section.locator('#agent-editor-problems').waitFor();
  await dialog.getByRole('button', { name: 'Close', exact: true }).first().click();
  await dialog.waitFor({ state: 'hidden' });
  await page.getByRole('textbox', { name: chat.composer.label }).fill(question);
  await page.keyboard.press('Enter');
  const warnings = page.locator('.exchange').last().locator('[data-testid="run-warnings"]');
  await warnings.waitFor({ timeout: 60_000 });
  const text = await warnings.innerText();
  assert(/drafty\.md:4: max_rounds: "lots" is not a whole number/.test(text), `run warnings: ${text}`);
  const figures = page.locator('.exchange').last().locator('.figures');
  await figures.waitFor({ timeout: 120_000 });
  assert((await page.locator('.error-box').count()) === 0, 'the run failed');
  await screenshot(page, 'agents-run-warning');
});

await check('no page errors', async () => {
  assert(errors.length === 0, `page errors:\n${errors.join('\n')}`);
});

await close();
console.log(`${check.passed} checks passed`);
