// A run another process holds, seen and stopped in the window (browser mode following
// other processes' runs), driven by app/browser/otherprocess_e2e_test.go
// (TestBrowserE2EOtherProcess): node e2e/other-process.mjs URL with AF_QUESTION, the
// question `artifactflow ask` (a second Core on the same data dir) is researching; its
// model never answers until the run is stopped. Checks: the sidebar lists the conversation
// as running; opening it shows the question and the run going, with Stop; Stop ends the
// run in the other process, and the window shows it stopped, with Stop gone and the
// sidebar spinner gone; no page errors. Saves /tmp/ui-other-process.png and
// /tmp/ui-other-process-stopped.png. Exits non-zero on the first failure.
import { assert, checker, launch, screenshot } from './browser.mjs';

const url = process.argv[2];
const question = process.env.AF_QUESTION;
if (!url || !question) {
  console.error('usage: AF_QUESTION=.. node e2e/other-process.mjs URL');
  process.exit(2);
}

const { page, errors, close } = await launch();
const check = checker(page, close);
await page.goto(url);
await page.locator('main.chat').waitFor();

const row = page.locator('.conv-row', { hasText: question.slice(0, 30) });

await check('the sidebar lists the other process\'s conversation as running', async () => {
  await row.locator('.conv-running').waitFor({ timeout: 20_000 });
});

await check('opening it shows the question and the run going, with Stop', async () => {
  await row.click();
  await page.locator('.question', { hasText: question.slice(0, 30) }).waitFor();
  const stop = page.getByRole('button', { name: 'Stop', exact: true });
  await stop.waitFor({ timeout: 20_000 });
  await screenshot(page, 'other-process');
});

await check('Stop ends the run in the other process and the window shows it stopped', async () => {
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await page.locator('.exchange').last().locator('.run-stopped').waitFor({ timeout: 20_000 });
  await page.getByRole('button', { name: 'Stop', exact: true }).waitFor({ state: 'detached', timeout: 20_000 });
  await row.locator('.conv-running').waitFor({ state: 'detached', timeout: 20_000 });
  await screenshot(page, 'other-process-stopped');
});

await check('no page errors', async () => {
  assert(errors.length === 0, errors.join('\n'));
});

await close();
console.log(`${String(check.passed)} passed, 0 failed`);
