// Settings and command-line flags against the real Go backend in browser mode, driven by
// app/settings_e2e_test.go (TestBrowserE2ESettingsFlags): node e2e/settings-flags.mjs URL,
// with the backend started as `serve --model x --base-url …` over a config.json that
// stores another model. The Settings dialog shows the flag's model read-only with "Set by
// --model for this session", says the same of the base URL, and Save stores the user's own
// change (the tool-call mode) while config.json keeps its model (the Go test reads it
// afterwards). Saves /tmp/ui-settings-flags.png. Exits non-zero on the first failure.
import { assert, checker, launch, screenshot } from './browser.mjs';

const url = process.argv[2];
if (!url) {
  console.error('usage: node e2e/settings-flags.mjs URL');
  process.exit(2);
}

const { page, errors, close } = await launch();
const check = checker(page, close);
await page.goto(url);

await check('a field set by a flag is read-only and names the flag', async () => {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.waitFor();
  const note = dialog.locator('[data-set-by="model"]');
  await note.waitFor();
  assert((await note.textContent()).startsWith('Set by --model for this session'), `model note: ${await note.textContent()}`);
  const model = dialog.locator('label.field:has([data-set-by="model"]) > input');
  assert((await model.inputValue()) === 'x', `model field shows ${await model.inputValue()}, want the flag's x`);
  assert(await model.evaluate((el) => el.readOnly), 'the model field set by --model can be edited');
  await model.press('End');
  await page.keyboard.type('yz');
  assert((await model.inputValue()) === 'x', 'typing changed a field set by --model');
  await dialog.locator('[data-set-by="base_url"]', { hasText: 'Set by --base-url for this session' }).waitFor();
  // A field no flag sets stays editable and says nothing about flags.
  const lead = dialog.getByRole('combobox', { name: 'Lead agent: model' }).or(dialog.getByRole('textbox', { name: 'Lead agent: model' }));
  assert(!(await lead.evaluate((el) => el.readOnly)), 'the lead model (no flag) is read-only');
  assert((await dialog.locator('[data-set-by="lead.model"]').count()) === 0, 'a note on the lead model, which no flag sets');
  await note.scrollIntoViewIfNeeded();
  await screenshot(page, 'settings-flags');
});

await check('Save stores the user’s change and not the flag’s value', async () => {
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.locator('.segmented label', { hasText: 'XML in text' }).click();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.getByText('Saved', { exact: true }).waitFor();
  const note = dialog.locator('[data-set-by="model"]');
  await note.waitFor();
  const model = dialog.locator('label.field:has([data-set-by="model"]) > input');
  assert((await model.inputValue()) === 'x', 'after Save the model field no longer shows the flag value');
  await page.keyboard.press('Escape');
});

assert(errors.length === 0, `page errors: ${errors.join('; ')}`);
console.log(`${String(check.passed)} checks passed`);
await close();
