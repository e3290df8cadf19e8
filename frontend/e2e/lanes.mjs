// Parallel sub-agents as lanes in the activity, against the real Go backend in browser mode,
// driven by app/browser/lanes_e2e_test.go (TestBrowserE2ELanes): node e2e/lanes.mjs URL with
// AF_QUESTION. The scripted lead sends three sub-agents in one reply; each streams its report
// slowly. Checks: three lanes side by side, each under its call_subagent line, all three
// streaming at once; when the run ends, every lane is done; Stop during a second research
// (AF_SLOW_QUESTION, slow sub-agents) ends all three lanes. Saves /tmp/ui-lanes.png,
// /tmp/ui-lanes-done.png and /tmp/ui-lanes-stopped.png. Exits non-zero on the first failure.
import { assert, checker, launch } from './browser.mjs';

const url = process.argv[2];
const question = process.env.AF_QUESTION;
if (!url || !question) {
  console.error('usage: AF_QUESTION=.. node e2e/lanes.mjs URL');
  process.exit(2);
}

const { page, errors, close } = await launch();
const check = checker(page, close);
await page.goto(url);

const exchange = page.locator('.exchange').last();
const lanes = exchange.locator('.activity .lanes.parallel .lane');

await check('three sub-agents sent in one reply show as three lanes', async () => {
  await page.locator('nav.sidebar').waitFor();
  await page.getByRole('textbox', { name: 'Research question' }).fill(question);
  await page.keyboard.press('Enter');
  await exchange.locator('.activity .lanes.parallel').waitFor({ timeout: 60_000 });
  await page.waitForFunction(() => document.querySelectorAll('.exchange:last-child .lanes.parallel .lane, .lanes.parallel .lane').length >= 3, null, { timeout: 30_000 });
  assert((await lanes.count()) === 3, `${String(await lanes.count())} lanes`);
  const label = await exchange.locator('.lanes.parallel').getAttribute('aria-label');
  assert(label === '3 sub-agents working at once', `lanes labelled ${String(label)}`);
  for (let i = 0; i < 3; i++) {
    const head = (await lanes.nth(i).locator('.step').first().textContent()) ?? '';
    assert(head.includes('call_subagent') || head.includes('search_agent') || head.includes('crawl_agent'), `lane ${String(i)} starts with "${head}"`);
  }
});

await check('the three lanes stream at the same time, side by side', async () => {
  // Every lane shows streamed text of its own at one moment: they run at once.
  await page.waitForFunction(
    () => {
      const ls = [...document.querySelectorAll('.lanes.parallel .lane')];
      return ls.length === 3 && ls.every((l) => (l.querySelector('.step-stream')?.textContent ?? '').startsWith('Report on'));
    },
    null,
    { timeout: 30_000 },
  );
  const texts = await lanes.locator('.step-stream').allTextContents();
  assert(new Set(texts.map((t) => t.slice(0, 20))).size >= 1 && texts.length === 3, `streams ${JSON.stringify(texts)}`);
  const tops = await lanes.evaluateAll((ls) => ls.map((l) => Math.round(l.getBoundingClientRect().top)));
  const lefts = await lanes.evaluateAll((ls) => ls.map((l) => Math.round(l.getBoundingClientRect().left)));
  assert(tops[0] === tops[1] && lefts[0] < lefts[1], `lanes not side by side: tops ${JSON.stringify(tops)}, lefts ${JSON.stringify(lefts)}`);
  await page.screenshot({ path: '/tmp/ui-lanes.png' });
  console.log('     screenshot /tmp/ui-lanes.png');
});

await check('when the run ends every lane is done, each with its report', async () => {
  await exchange.locator('.figures').waitFor({ timeout: 60_000 });
  const activity = exchange.locator('.activity');
  if ((await activity.getAttribute('class'))?.includes('open') !== true) await activity.locator('.activity-head').click();
  await lanes.first().waitFor();
  assert((await lanes.count()) === 3, `${String(await lanes.count())} lanes after the run`);
  assert((await exchange.locator('.lanes .step-icon.running').count()) === 0, 'a lane step still runs');
  for (let i = 0; i < 3; i++) {
    const done = await lanes.nth(i).locator('.step-icon.done').count();
    assert(done >= 2, `lane ${String(i)} has ${String(done)} done steps`);
  }
  await page.screenshot({ path: '/tmp/ui-lanes-done.png' });
  console.log('     screenshot /tmp/ui-lanes-done.png');
});

await check('Stop during three streaming lanes ends them all', async () => {
  const slow = process.env.AF_SLOW_QUESTION;
  assert(slow, 'AF_SLOW_QUESTION not set');
  await page.getByRole('textbox', { name: 'Research question' }).fill(slow);
  await page.keyboard.press('Enter');
  const last = page.locator('.exchange').last();
  await page.waitForFunction(
    () => {
      const ex = [...document.querySelectorAll('.exchange')].at(-1);
      const ls = [...(ex?.querySelectorAll('.lanes.parallel .lane') ?? [])];
      return ls.length === 3 && ls.every((l) => (l.querySelector('.step-stream')?.textContent ?? '') !== '');
    },
    null,
    { timeout: 60_000 },
  );
  await page.getByRole('button', { name: 'Stop' }).click();
  // The run ends (its figures line) within a few seconds, every lane stopped, none running.
  const state = () =>
    page.evaluate(() => {
      const ex = [...document.querySelectorAll('.exchange')].at(-1);
      return {
        running: ex?.querySelectorAll('.step-icon.running').length ?? -1,
        stopped: ex?.querySelectorAll('.lane .step-icon.stopped').length ?? -1,
        lanes: ex?.querySelectorAll('.lane').length ?? -1,
        text: (ex?.textContent ?? '').slice(-300),
      };
    });
  // The ended run's flow folds to its summary: open it again.
  const activity = last.locator('.activity');
  await last.locator('.figures').waitFor({ timeout: 10_000 });
  if ((await activity.getAttribute('class'))?.includes('open') !== true) await activity.locator('.activity-head').click();
  const until = Date.now() + 10_000;
  let s = await state();
  while (!(s.running === 0 && s.stopped >= 3) && Date.now() < until) {
    await page.waitForTimeout(100);
    s = await state();
  }
  assert(s.running === 0 && s.stopped >= 3, `after Stop: ${JSON.stringify(s)}`);
  await page.screenshot({ path: '/tmp/ui-lanes-stopped.png' });
  console.log('     screenshot /tmp/ui-lanes-stopped.png');
});

await check('no page errors', async () => {
  assert(errors.length === 0, errors.join('\n'));
});

console.log(`${String(check.passed)} passed, 0 failed`);
await close();
