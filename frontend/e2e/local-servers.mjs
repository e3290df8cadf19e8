// Local server detection and a model per agent endpoint against the real Go backend in
// browser mode, driven by app/browser/localservers_e2e_test.go
// (TestBrowserE2ELocalServers): node e2e/local-servers.mjs URL, with AF_QUESTION, on a data
// dir whose config.json sets no model, and "Find local servers" pointed at stand-ins on
// 127.0.0.1 (one answering like Ollama's /api/tags, one like LM Studio's /v1/models — the
// scripted model server — and a closed port). The first launch's note says Settings looks
// for local servers; the dialog lists the two that answered by itself, one click on the
// LM Studio model fills the base URL and model, Save stores them, and the question then
// runs to completion on that server. Saves /tmp/ui-local-servers.png. Exits non-zero on
// the first failure.
import { assert, checker, launch, screenshot } from './browser.mjs';

const url = process.argv[2];
const question = process.env.AF_QUESTION;
if (!url || !question) {
  console.error('usage: AF_QUESTION=.. node e2e/local-servers.mjs URL');
  process.exit(2);
}

const { page, errors, close } = await launch();
const check = checker(page, close);
await page.goto(url);

await check('the first launch looks for local servers in Settings by itself', async () => {
  await page.getByText('Settings looks for a model server on this computer', { exact: false }).waitFor();
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.waitFor();
  const list = dialog.getByRole('list', { name: 'Local servers found' });
  await list.waitFor({ timeout: 10_000 });
  const names = await list.locator('[data-local-server]').evaluateAll((els) => els.map((e) => e.getAttribute('data-local-server')));
  assert(JSON.stringify(names) === JSON.stringify(['Ollama', 'LM Studio']), `servers listed: ${JSON.stringify(names)}`);
  await list.getByRole('button', { name: 'Use qwen3:8b on Ollama' }).waitFor();
  await screenshot(page, 'local-servers');
});

await check('one click fills the base URL and model, and Save stores them', async () => {
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('button', { name: 'Use test-model on LM Studio' }).click();
  // The top-level fields come first (the agents' sections have their own, further down).
  const fieldNamed = (label) => dialog.locator('label.field', { has: page.locator('span.label', { hasText: new RegExp(`^${label}$`) }) }).first().locator('input');
  const base = fieldNamed('Base URL');
  const baseValue = await base.inputValue();
  assert(/^http:\/\/127\.0\.0\.1:\d+\/v1$/.test(baseValue), `base URL ${baseValue}, want the server found on 127.0.0.1`);
  const model = fieldNamed('Model');
  assert((await model.inputValue()) === 'test-model', `model ${await model.inputValue()}`);
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.getByText('Saved', { exact: true }).waitFor();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
});

await check('the question runs on the server found', async () => {
  await page.getByRole('textbox', { name: 'Research question' }).fill(question);
  await page.keyboard.press('Enter');
  const figures = page.locator('.exchange').last().locator('.figures');
  const failed = page.locator('.error-box');
  const quiet = (p) => p.then(() => true, () => false);
  const finished = await Promise.race([quiet(figures.waitFor({ timeout: 120_000 })), quiet(failed.waitFor({ timeout: 120_000 }))]);
  if (await failed.count()) throw new Error(`the run failed: ${await failed.first().textContent()}`);
  assert(finished, 'the run did not finish within 120 s');
});

assert(errors.length === 0, `page errors: ${errors.join('; ')}`);
console.log(`${String(check.passed)} checks passed`);
await close();
