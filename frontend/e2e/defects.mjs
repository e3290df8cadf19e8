// Fixed defects against the real Go backend in browser mode, driven by
// app/defects_e2e_test.go (TestBrowserE2EDefects): node e2e/defects.mjs URL with AF_QUESTION
// (asked) and AF_FACT (in research_report). The scripted lead writes research_report, titled
// "Moon distance", and answers "Answer N" for its Nth run. Checks, in a new conversation: the
// file chip reads the artifact's title; an artifact tool row expands to the artifact, not its
// <artifact> wrapper; the history explains the run's draft (v1) behind its one stored version
// (v2); the task plan opens with history and export like any artifact; Regenerate and then
// edit-and-resend leave no phantom copy of the question with a "Starting…" line, also after
// switching conversations; "Jump to latest" shows while scrolled up; sending while scrolled
// up scrolls to the new question. Saves /tmp/ui-defects.png and /tmp/ui-defects-follow.png.
// Exits non-zero on the first failure.
import { assert, checker, launch, screenshot } from './browser.mjs';

const url = process.argv[2];
const question = process.env.AF_QUESTION;
const fact = process.env.AF_FACT;
if (!url || !question || !fact) {
  console.error('usage: AF_QUESTION=.. AF_FACT=.. node e2e/defects.mjs URL');
  process.exit(2);
}

const { page, errors, close } = await launch();
const check = checker(page, close);
await page.goto(url);
await page.locator('main.chat').waitFor();

const exchanges = () => page.locator('.exchange');
/** Waits until the last exchange shows `answer` and its run's figures (the run ended). */
const finished = async (answer) => {
  const last = exchanges().last();
  await last.locator('.answer', { hasText: answer }).waitFor({ timeout: 60_000 });
  await last.locator('.figures').waitFor({ timeout: 60_000 });
};
/** Fails when the page shows a second copy of a question or a "Starting…" line. */
const noPhantom = async (what) => {
  // Give a stale pending question the time to come back after the refresh.
  await page.waitForTimeout(500);
  const starting = await page.locator('main.chat', { hasText: 'Starting…' }).count();
  assert(starting === 0, `${what}: a "Starting…" line is shown`);
  const n = await exchanges().count();
  const questions = await page.locator('main.chat .question').count();
  assert(n === 1 && questions === 1, `${what}: ${String(questions)} questions in ${String(n)} exchanges, want 1 in 1`);
};

await check('a question in a new conversation runs to completion', async () => {
  await page.getByRole('textbox', { name: 'Research question' }).fill(question);
  await page.keyboard.press('Enter');
  await finished('Answer 1');
  await noPhantom('after the first answer');
});

await check('the file chip under the answer names the artifact by its title', async () => {
  const chip = exchanges().last().locator('.run-artifacts .chip');
  await chip.first().waitFor();
  const text = ((await chip.first().textContent()) ?? '').trim();
  assert(text === 'Moon distance', `the chip reads "${text}", want the title "Moon distance"`);
  await chip.first().click();
  await page.locator('.preview', { hasText: fact }).waitFor();
});

await check('the report\'s history says in plain words why its first version is v2', async () => {
  await page.getByRole('tab', { name: /History/ }).click();
  const item = page.locator('.history-item', { hasText: 'v2' }).first();
  await item.locator('.history-drafts', { hasText: 'Numbered v2 after 2 steps of its run' }).waitFor();
  const words = (await page.locator('.history').textContent()) ?? '';
  assert(!/draft of its run|approximate match/.test(words), `the history speaks jargon: ${words}`);
  await screenshot(page, 'defects-history');
  const select = page.getByRole('combobox', { name: 'Version' });
  const label = ((await select.locator('option').first().textContent()) ?? '').trim();
  assert(label === 'v2 · current', `the version selector reads "${label}"`);
  await page.getByRole('tab', { name: 'Preview' }).click();
});

await check('the task plan opens in the viewer with its history and export', async () => {
  await page.getByRole('button', { name: 'Open the task plan' }).click();
  await page.locator('.preview', { hasText: 'Write the report' }).waitFor();
  await page.getByRole('tab', { name: /History/ }).click();
  await page.locator('.history-item', { hasText: 'v1' }).first().waitFor();
  assert(await page.getByRole('button', { name: /^Export/ }).first().isEnabled(), 'no Export for the task plan');
  await page.getByRole('tab', { name: 'Preview' }).click();
  await exchanges().last().locator('.run-artifacts .chip').first().click();
  await page.locator('.preview', { hasText: fact }).waitFor();
});

await check('an artifact tool row expands to the artifact, not its <artifact> wrapper', async () => {
  await exchanges().last().getByRole('button', { name: /Activity/ }).click();
  const row = page.locator('.step.kind-tool', { hasText: 'create_artifact' }).first();
  await row.locator('.step-head').click();
  const shown = (await row.textContent()) ?? '';
  assert(!shown.includes('<artifact'), `the row shows the wrapper: ${shown}`);
  for (const want of ['Moon distance', 'research_report', 'v1', fact]) assert(shown.includes(want), `the row lacks "${want}": ${shown}`);
  await screenshot(page, 'defects');
});

await check('Regenerate leaves no phantom question', async () => {
  await exchanges().last().getByRole('button', { name: 'Regenerate' }).click();
  await finished('Answer 2');
  await noPhantom('after Regenerate');
});

await check('nor after switching to a new research and back', async () => {
  await page.keyboard.press('Control+n');
  await page.locator('main.chat .exchange').first().waitFor({ state: 'detached' });
  await page.locator('nav.sidebar').getByRole('button', { name: new RegExp(`^${question.slice(0, 20)}`) }).first().click();
  await finished('Answer 2');
  await noPhantom('after switching back');
});

await check('edit and resend leaves no phantom question', async () => {
  await exchanges().first().getByRole('button', { name: 'Edit question' }).click();
  const edited = `${question} In miles, please.`;
  await page.getByRole('textbox', { name: 'Edited question' }).fill(edited);
  await page.keyboard.press('Enter');
  await finished('Answer 3');
  await page.locator('main.chat .question', { hasText: 'In miles' }).waitFor();
  await noPhantom('after edit and resend');
});

await check('the report follows the branch: 1/3 shows the version its run produced, and says so', async () => {
  // Each run changes the report once more: "(checked)" once after the first run, three times after the third.
  const heading = () => page.locator('.viewer .preview h1').textContent();
  await exchanges().last().locator('.run-artifacts .chip').first().click();
  await page.waitForFunction(() => document.querySelector('.viewer .preview h1')?.textContent === 'Moon distance (checked) (checked) (checked)');
  const nav = exchanges().first().getByRole('group', { name: 'Branches' });
  for (const pos of ['2/3', '1/3']) {
    await nav.getByRole('button', { name: 'Previous branch' }).click();
    await nav.locator('.branch-pos', { hasText: pos }).waitFor();
  }
  await finished('Answer 1');
  const banner = page.locator('.version-banner', { hasText: "produced by this branch's run" });
  await banner.waitFor();
  assert((await heading()) === 'Moon distance (checked)', `branch 1/3 shows "${String(await heading())}", want its run's "Moon distance (checked)"`);
  const selected = await page.getByRole('combobox', { name: 'Version' }).evaluate((el) => el.selectedOptions[0]?.textContent ?? '');
  const said = (await banner.textContent()) ?? '';
  const number = /v\d+/.exec(selected)?.[0] ?? '?';
  assert(said.includes(`Showing ${number},`), `the banner says "${said}", the selector shows "${selected}"`);
  await screenshot(page, 'defects-branch');
  await banner.getByRole('button', { name: 'Show latest' }).click();
  await page.waitForFunction(() => document.querySelector('.viewer .preview h1')?.textContent === 'Moon distance (checked) (checked) (checked)');
  for (const pos of ['2/3', '3/3']) {
    await nav.getByRole('button', { name: 'Next branch' }).click();
    await nav.locator('.branch-pos', { hasText: pos }).waitFor();
  }
  await finished('Answer 3');
  await page.waitForFunction(() => document.querySelector('.viewer .preview h1')?.textContent === 'Moon distance (checked) (checked) (checked)');
  assert((await page.locator('.version-banner').count()) === 0, 'a banner over the latest branch\'s own report');
});

/** The conversation's scroll position: how far from its bottom, and how much it can scroll. */
const scrollState = () =>
  page.locator('.chat-scroll').evaluate((el) => ({ fromBottom: el.scrollHeight - el.scrollTop - el.clientHeight, room: el.scrollHeight - el.clientHeight }));
const toTop = () => page.locator('.chat-scroll').evaluate((el) => el.scrollTo(0, 0));
const jump = () => page.getByRole('button', { name: 'Jump to latest' });

await check('"Jump to latest" shows while scrolled up and brings the latest back', async () => {
  await page.setViewportSize({ width: 1280, height: 520 });
  const last = exchanges().last();
  await last.getByRole('button', { name: /Activity/ }).click();
  for (const tool of ['create_artifact', 'update_artifact']) await last.locator('.step.kind-tool', { hasText: tool }).first().locator('.step-head').click();
  const { room } = await scrollState();
  assert(room > 150, `the conversation is too short to scroll (${String(room)} px)`);
  await page.locator('.chat-scroll').evaluate((el) => el.scrollTo(0, el.scrollHeight));
  await page.waitForTimeout(300);
  assert((await jump().count()) === 0, '"Jump to latest" is shown at the bottom');
  await toTop();
  await jump().waitFor();
  await jump().click();
  await page.waitForFunction(() => {
    const el = document.querySelector('.chat-scroll');
    return el !== null && el.scrollHeight - el.scrollTop - el.clientHeight < 48;
  });
  await jump().waitFor({ state: 'detached' });
  // Scrolled up a little, with the last run's figures still in view: the button never covers them.
  for (const up of [50, 60, 70, 80, 95, 120]) {
    await page.locator('.chat-scroll').evaluate((el, d) => el.scrollTo(0, el.scrollHeight - el.clientHeight - d), up);
    await page.waitForTimeout(150);
    const overlap = await page.evaluate(() => {
      const b = document.querySelector('.jump-latest')?.getBoundingClientRect();
      const f = [...document.querySelectorAll('.exchange .run-foot')].at(-1)?.getBoundingClientRect();
      if (!b || !f) return '';
      return b.bottom > f.top && b.top < f.bottom && b.right > f.left && b.left < f.right ? `button ${JSON.stringify(b)} over figures ${JSON.stringify(f)}` : '';
    });
    assert(overlap === '', `${String(up)} px above the end: ${overlap}`);
  }
  await toTop();
  await jump().waitFor();
  await jump().click();
  await jump().waitFor({ state: 'detached' });
});

await check('sending while scrolled up scrolls to the new question', async () => {
  await toTop();
  await jump().waitFor();
  await page.getByRole('textbox', { name: 'Research question' }).fill('Follow-up: and in miles?');
  await page.keyboard.press('Enter');
  const asked = page.locator('main.chat .question', { hasText: 'Follow-up' });
  await asked.waitFor();
  await page.waitForFunction(() => {
    const el = document.querySelector('.chat-scroll');
    const q = [...document.querySelectorAll('main.chat .question')].find((x) => x.textContent?.includes('Follow-up'));
    if (!el || !q) return false;
    const box = el.getBoundingClientRect();
    const r = q.getBoundingClientRect();
    return r.top >= box.top - 1 && r.top < box.bottom;
  }, undefined, { timeout: 10_000 });
  await finished('Answer 4');
  const { fromBottom } = await scrollState();
  assert(fromBottom < 48, `the view is ${String(fromBottom)} px above the end after the answer`);
  await screenshot(page, 'defects-follow');
  await page.setViewportSize({ width: 1280, height: 860 });
});

await check('no page errors', async () => {
  assert(errors.length === 0, `page errors:\n${errors.join('\n')}`);
});
await close();
console.log(`${String(check.passed)} checks passed`);
