// Rating a run against the real Go backend in browser mode, driven by
// app/browser/feedback_e2e_test.go (TestBrowserE2EFeedback):
//   node e2e/feedback.mjs URL with AF_ANSWER (the stored answer) and AF_NOTE.
// The backend holds one conversation with a completed research. Checks: under the answer,
// "Good answer" and "Poor answer" are toggle buttons, not pressed; reached and pressed with
// the keyboard, "Good answer" becomes pressed and a note field takes the focus; the note
// typed there is saved with Enter and shown; after a reload the rating and the note are
// still there; Escape closes the note field again without saving what was typed. Screenshot:
// /tmp/ui-feedback.png. Exits non-zero on the first failure.
import { assert, checker, launch, screenshot } from './browser.mjs';

const url = process.argv[2];
const { AF_ANSWER: answer, AF_NOTE: note } = process.env;
if (!url || !answer || !note) {
  console.error('usage: AF_ANSWER=.. AF_NOTE=.. node e2e/feedback.mjs URL');
  process.exit(2);
}

const { page, errors, close } = await launch();
const check = checker(page, close);

/** Opens the conversation and returns its exchange, once the answer shows. */
async function openExchange() {
  await page.locator('main.chat').waitFor();
  await page.locator('.conv-row').first().click();
  const exchange = page.locator('article.exchange', { hasText: answer.slice(0, 40) });
  await exchange.waitFor({ timeout: 30_000 });
  return exchange;
}

await page.goto(url);
let exchange = await openExchange();
const up = () => exchange.getByRole('button', { name: 'Good answer' });
const down = () => exchange.getByRole('button', { name: 'Poor answer' });
const noteField = () => exchange.getByRole('textbox', { name: 'Note on your rating (optional)' });

await check('the answer has two unpressed thumbs', async () => {
  assert((await up().getAttribute('aria-pressed')) === 'false', 'Good answer is pressed');
  assert((await down().getAttribute('aria-pressed')) === 'false', 'Poor answer is pressed');
  assert((await noteField().count()) === 0, 'a note field before any rating');
});

await check('the keyboard rates the answer and writes a note, saved with Enter', async () => {
  await up().focus();
  await page.keyboard.press('Enter');
  await noteField().waitFor();
  assert((await up().getAttribute('aria-pressed')) === 'true', 'Good answer is not pressed after Enter');
  assert(await noteField().evaluate((el) => el === document.activeElement), 'the note field does not have the focus');
  await page.keyboard.type(note);
  await page.keyboard.press('Enter');
  await noteField().waitFor({ state: 'detached' });
  const shown = ((await exchange.locator('.feedback-note').textContent()) ?? '').trim();
  assert(shown === note, `note shown "${shown}"`);
  await screenshot(page, 'feedback');
});

await check('the rating and the note are still there after a reload', async () => {
  await page.reload();
  exchange = await openExchange();
  await up().waitFor();
  assert((await up().getAttribute('aria-pressed')) === 'true', 'Good answer is not pressed after the reload');
  assert((await down().getAttribute('aria-pressed')) === 'false', 'Poor answer is pressed after the reload');
  const shown = ((await exchange.locator('.feedback-note').textContent()) ?? '').trim();
  assert(shown === note, `note after the reload "${shown}"`);
});

await check('Escape closes the note field without saving', async () => {
  await exchange.locator('.feedback-note').click();
  await noteField().waitFor();
  await noteField().fill('not meant to be kept');
  await page.keyboard.press('Escape');
  await noteField().waitFor({ state: 'detached' });
  const shown = ((await exchange.locator('.feedback-note').textContent()) ?? '').trim();
  assert(shown === note, `note after Escape "${shown}"`);
});

await check('no page errors', async () => {
  assert(errors.length === 0, `page errors:\n${errors.join('\n')}`);
});
await close();
