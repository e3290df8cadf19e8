// The same UI against the real Go backend in browser mode (`artifactflow serve`), driven by
// app/browser_test.go (TestBrowserE2E): node e2e/real.mjs URL, with AF_QUESTION (asked),
// AF_ANSWER (expected in the final answer) and AF_FACT (expected in research_report).
// Saves /tmp/ui-real.png. Exits non-zero on the first failure.
import { assert, checker, launch, screenshot } from './browser.mjs';

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

await check('no page errors', async () => {
  assert(errors.length === 0, errors.join('\n'));
});

console.log(`${String(check.passed)} passed, 0 failed`);
await close();
