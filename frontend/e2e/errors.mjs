// Typed errors in the window against the real Go backend in browser mode, driven by
// app/errors_e2e_test.go (TestBrowserE2EErrors): node e2e/errors.mjs URL with AF_QUESTION.
// The backend's model endpoint is a closed port. Checks: a rejected bound call carries the
// AppError JSON (code not_found) through the shim; the failed run shows the error box
// chosen by its code (model_unreachable) with "Open settings", which opens the settings,
// and "Retry"; the sidebar marks the conversation "Failed"; opening a conversation deleted
// behind the page's back shows the not_found wording. Saves /tmp/ui-errors.png. Exits
// non-zero on the first failure.
import { assert, checker, launch, screenshot } from './browser.mjs';

const url = process.argv[2];
const question = process.env.AF_QUESTION;
if (!url || !question) {
  console.error('usage: AF_QUESTION=.. node e2e/errors.mjs URL');
  process.exit(2);
}

const { page, errors, close } = await launch();
const check = checker(page, close);
await page.goto(url);
await page.locator('main.chat').waitFor();

await check('a bound call rejects with the AppError JSON of its code', async () => {
  const rejected = await page.evaluate(() =>
    window.go.app.ConversationService.Get('no-such-conversation').then(
      () => null,
      (e) => (e instanceof Error ? e.message : String(e)),
    ),
  );
  const body = JSON.parse(rejected ?? 'null');
  assert(body?.code === 'not_found' && typeof body.message === 'string', `rejected with ${String(rejected)}`);
});

await check('a run against a dead endpoint shows its code, "Open settings" and "Retry"', async () => {
  await page.getByRole('textbox', { name: 'Research question' }).fill(question);
  await page.keyboard.press('Enter');
  const box = page.locator('.exchange .run-error');
  await box.waitFor({ timeout: 90_000 });
  const code = await box.getAttribute('data-error-code');
  assert(code === 'model_unreachable', `error code ${String(code)}, want model_unreachable`);
  const title = ((await box.locator('strong').textContent()) ?? '').trim();
  assert(title === 'The model could not be reached', `title "${title}"`);
  await box.getByRole('button', { name: 'Retry' }).waitFor();
  await screenshot(page, 'errors');
  await box.getByRole('button', { name: 'Open settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.waitFor();
  await dialog.getByRole('button', { name: 'Close' }).first().click();
  await dialog.waitFor({ state: 'detached' });
});

await check('the sidebar marks the conversation as failed', async () => {
  const badge = page.locator('.conv-row .conv-badge-failed');
  await badge.waitFor({ timeout: 10_000 });
  const text = ((await badge.textContent()) ?? '').trim();
  assert(text === 'Failed', `badge "${text}"`);
});

await check('a conversation deleted behind the page shows the not_found wording', async () => {
  await page.getByRole('button', { name: 'New research' }).click();
  const id = await page.evaluate(async () => {
    const list = await window.go.app.ConversationService.List();
    await window.go.app.ConversationService.Delete(list[0].id);
    return list[0].id;
  });
  assert(typeof id === 'string' && id !== '', 'no conversation to delete');
  await page.locator('.conv-row .conv-open').first().click();
  const box = page.locator('.error-box', { hasText: 'Could not open this research' });
  await box.waitFor({ timeout: 10_000 });
  const text = (await box.textContent()) ?? '';
  assert(text.includes('no longer exists'), `the box reads "${text}"`);
  assert(!text.includes('store:'), `the box shows the Go error chain: "${text}"`);
});

await check('no page errors besides the refused calls this test makes', async () => {
  // The browser logs each bound call the backend refuses (status 500): expected here.
  const unexpected = errors.filter((e) => !/status of 500 \(Internal Server Error\) \(http:\/\/[^)]+\/api\/bind\//.test(e));
  assert(unexpected.length === 0, `page errors:\n${unexpected.join('\n')}`);
});
await close();
console.log(`${String(check.passed)} checks passed`);
