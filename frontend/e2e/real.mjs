// The same UI against the real Go backend in browser mode (`artifactflow serve`), driven by
// app/browser_test.go (TestBrowserE2E): node e2e/real.mjs URL, with AF_QUESTION (asked),
// AF_ANSWER (expected in the final answer) and AF_FACT (expected in research_report). After
// the run it edits research_report in the UI, compares the two versions and uploads a file
// by a synthetic drop. Saves /tmp/ui-real.png, ui-real-diff.png and ui-real-upload.png.
// Exits non-zero on the first failure.
import { assert, checker, launch, screenshot } from './browser.mjs';
import { dropFiles } from './ui-artifacts.mjs';

const url = process.argv[2];
const question = process.env.AF_QUESTION;
const answer = process.env.AF_ANSWER;
const fact = process.env.AF_FACT;
if (!url || !question || !answer || !fact) {
  console.error('usage: AF_QUESTION=.. AF_ANSWER=.. AF_FACT=.. node e2e/real.mjs URL');
  process.exit(2);
}

const { page, errors, close } = await launch();
const check = checker(page, close);
await page.goto(url);

await check('the app loads with its three columns', async () => {
  await page.locator('nav.sidebar').waitFor();
  await page.locator('main.chat').waitFor();
  await page.locator('aside.panel').waitFor();
});

await check('a question runs to completion', async () => {
  await page.getByRole('textbox', { name: 'Research question' }).fill(question);
  await page.keyboard.press('Enter');
  await page.locator('.question', { hasText: question.slice(0, 40) }).waitFor();
  const done = page.locator('.exchange').last().locator('.figures');
  const failed = page.locator('.error-box');
  const quiet = (p) => p.then(() => true, () => false);
  const finished = await Promise.race([quiet(done.waitFor({ timeout: 120_000 })), quiet(failed.waitFor({ timeout: 120_000 }))]);
  if (await failed.count()) throw new Error(`the run failed: ${await failed.first().textContent()}`);
  assert(finished, 'the run did not finish within 120 s');
});

await check('the answer, plan and report render', async () => {
  const text = (await page.locator('.exchange').last().locator('.answer').textContent()) ?? '';
  assert(text.includes(answer), `answer reads "${text}"`);
  assert((await page.locator('.plan-md li.task-done').count()) > 0, 'no ticked task in the plan');
  await page.locator('.artifact-row', { hasText: 'research_report' }).click();
  await page.locator('.preview', { hasText: fact }).waitFor();
});

await check('the activity flow lists the agents and tools', async () => {
  await page.locator('.exchange').last().getByRole('button', { name: /Activity/ }).click();
  for (const t of ['web_search', 'web_fetch', 'create_artifact']) {
    await page.locator('.step.kind-tool', { hasText: t }).first().waitFor();
  }
  assert((await page.locator('.step .step-icon.running').count()) === 0, 'a step still spins');
  await screenshot(page, 'real');
});

const EDIT = 'Checked by hand in the browser end-to-end test.';

await check('edit research_report in the UI and save it as a new version', async () => {
  await page.locator('.artifact-row', { hasText: 'research_report' }).click();
  const vText = await page.locator('.artifact-row.selected .artifact-meta span', { hasText: /^v\d+$/ }).textContent();
  const before = Number(vText?.slice(1));
  assert(before > 0, `research_report is at "${vText}"`);
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: /^Edit / });
  const area = dialog.getByRole('textbox', { name: /^Source of/ });
  await area.waitFor();
  const original = await area.inputValue();
  assert(original.includes(fact), 'the editor does not hold the report');
  await area.press('Control+End');
  await page.keyboard.type(`\n\n${EDIT}\n`);
  await page.keyboard.press('Control+s');
  await dialog.waitFor({ state: 'detached' });
  await page.locator('.viewer-status', { hasText: `Saved as v${before + 1}` }).waitFor();
  await page.locator('.preview', { hasText: EDIT }).waitFor();
  await page.getByRole('tab', { name: /^History/ }).click();
  const first = (await page.locator('.history-item').first().textContent()) ?? '';
  assert(first.includes(`v${before + 1}`) && first.includes('Your edit'), `newest version reads "${first}"`);
  const older = (await page.locator('.history-item').nth(1).textContent()) ?? '';
  assert(older.includes(question.slice(0, 30)), `the run's version does not name the question: "${older}"`);
  await page.getByRole('tab', { name: /^Preview/ }).click();
});

await check('compare the run version with the edit: the change is highlighted', async () => {
  await page.getByRole('button', { name: 'Compare', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: /^Compare versions/ });
  const side = dialog.locator('table.diff-side');
  await side.waitFor();
  const ins = (await side.locator('td.d-tx.d-add').allTextContents()).join('\n');
  assert(ins.includes(EDIT), `added lines: ${ins}`);
  assert((await side.locator('td.d-tx.d-del').count()) === 0, 'the edit removed nothing, yet lines show as removed');
  assert(((await dialog.locator('.compare-stats').textContent()) ?? '').includes('+'), 'no added count');
  await screenshot(page, 'real-diff');
  await dialog.getByText('Inline', { exact: true }).click();
  await dialog.locator('table.diff-inline td.d-sign.d-add').first().waitFor();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
});

await check('a dropped .md file is uploaded and listed as an upload', async () => {
  await dropFiles(page, [{ name: 'field-notes.md', type: 'text/markdown', text: '# Field notes\n\nRange measured at 21 °C.\n' }]);
  const tray = page.getByRole('region', { name: 'Uploads' });
  await tray.locator('.upload-item.status-done', { hasText: 'field-notes.md' }).waitFor();
  const row = page.locator('.artifact-row', { hasText: 'field-notes.md' });
  await row.locator('.badge-upload').waitFor();
  assert((await row.getAttribute('aria-selected')) === 'true', 'the upload is not selected');
  await page.locator('.preview h1', { hasText: 'Field notes' }).waitFor();
  await screenshot(page, 'real-upload');
});

await check('no page errors', async () => {
  assert(errors.length === 0, errors.join('\n'));
});

console.log(`${String(check.passed)} passed, 0 failed`);
await close();
