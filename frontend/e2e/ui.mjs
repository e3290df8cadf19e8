// UI check in headless Chromium: serves dist/ with `vite preview`, installs the fake backend
// (e2e/fake-backend.js) before the app loads, replays a scripted research run and asserts what
// a user relies on. Screenshots go to /tmp/ui-*.png. Exits non-zero on the first failure.
//
//   npm run e2e            (builds first)
//   node e2e/ui.mjs        (uses the existing dist/)
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { preview } from 'vite';
import { assert, checker, launch, screenshot } from './browser.mjs';
import { artifactChecks } from './ui-artifacts.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const QUESTION = 'What are the main approaches to solid-state batteries, and which companies lead each?';

const server = await preview({ root: join(here, '..'), logLevel: 'warn', preview: { host: '127.0.0.1', port: 0, open: false } });
const url = server.resolvedUrls?.local[0];
if (!url) throw new Error('vite preview did not report a URL');

const { page, errors: pageErrors, close } = await launch({ init: [join(here, 'fake-backend.js'), join(here, 'fake-artifacts.js')] });
const shutdown = async (code) => {
  await close();
  await server.close().catch(() => {});
  process.exit(code);
};
const check = checker(page, () => shutdown(1));
const shot = (name) => screenshot(page, name);
const calls = (service, method) =>
  page.evaluate(([s, m]) => window.__fake.calls.filter((c) => c.service === s && c.method === m).map((c) => c.args), [service, method]);

await page.goto(url);

await check('three columns fill the window', async () => {
  await page.locator('nav.sidebar').waitFor();
  const boxes = await Promise.all(['nav.sidebar', 'main.chat', 'aside.panel'].map((s) => page.locator(s).boundingBox()));
  assert(boxes.every(Boolean), 'a column is missing');
  const [l, m, r] = boxes;
  assert(l.x === 0 && Math.abs(l.x + l.width - m.x) < 1 && Math.abs(m.x + m.width - r.x) < 1, 'columns are not side by side');
  assert(Math.abs(r.x + r.width - 1280) < 1, `right column ends at ${r.x + r.width}, not 1280`);
  assert([l, m, r].every((b) => b.height >= 859), 'a column does not fill the height');
});

await check('conversation list and empty state', async () => {
  await page.getByRole('button', { name: /^Heat pump subsidies/ }).waitFor();
  assert(await page.getByText('What would you like to research?').isVisible(), 'no empty state');
  assert((await page.locator('.example').count()) >= 3, 'no example questions');
  await shot('empty');
});

await check('keyboard navigation in the list', async () => {
  await page.getByRole('button', { name: /^Heat pump subsidies/ }).focus();
  await page.keyboard.press('ArrowDown');
  const focused = await page.evaluate(() => document.activeElement?.textContent ?? '');
  assert(focused.includes('SQLite vs DuckDB'), `ArrowDown focused "${focused}"`);
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Enter');
  await page.locator('.chat-title', { hasText: 'Heat pump subsidies' }).waitFor();
});

await check('past conversation loads its activity lazily', async () => {
  await page.locator('.question', { hasText: 'heat pump subsidies differ' }).waitFor();
  await page.waitForFunction(() => window.__fake.calls.some((c) => c.method === 'Events' && c.args[1] === 'm-heat'));
  await page.locator('.figures', { hasText: '24.4k tokens' }).waitFor();
  await page.locator('.plan-md .task-done').first().waitFor();
  await page.getByRole('button', { name: /Activity/ }).click();
  await page.locator('.step', { hasText: 'web_search' }).waitFor();
  await shot('past');
});

await check('a failed past run shows its error', async () => {
  await page.getByRole('button', { name: /^Latest EU AI Act/ }).click();
  await page.locator('.error-box', { hasText: 'invalid API key' }).waitFor();
});

await check('new research streams an answer', async () => {
  await page.keyboard.press('Control+n');
  await page.getByText('What would you like to research?').waitFor();
  const box = page.getByRole('textbox', { name: 'Research question' });
  // Focus follows the render by a frame: wait for it (a busy machine once lagged here).
  const focused = await box
    .evaluate((el) => new Promise((done) => {
      const t0 = performance.now();
      const poll = () => (el === document.activeElement ? done(true) : performance.now() - t0 > 2000 ? done(false) : requestAnimationFrame(poll));
      poll();
    }));
  assert(focused, 'composer not focused within 2 s of Ctrl+N');
  await box.fill(QUESTION);
  // Record every state a web_search line goes through, however briefly it lasts.
  await page.evaluate(() => {
    window.__seen = new Set();
    new MutationObserver(() => {
      for (const li of document.querySelectorAll('.step.kind-tool')) {
        if (li.textContent.includes('web_search')) window.__seen.add(li.className);
      }
    }).observe(document.body, { subtree: true, childList: true, attributes: true });
  });
  await page.keyboard.press('Enter');
  await page.locator('.question', { hasText: 'solid-state batteries' }).waitFor();
  await page.locator('.chat-head .pill-running').waitFor();
  await page.locator('.conv-row .conv-running').first().waitFor();
});

await check('activity lines appear live', async () => {
  await page.locator('.step.kind-tool', { hasText: 'create_artifact' }).waitFor();
  const line = page.locator('.step.kind-tool', { hasText: 'web_search' });
  await line.locator('.step-icon.done').waitFor();
  const seen = await page.evaluate(() => [...window.__seen]);
  assert(seen.some((c) => c.includes('status-running')) && seen.some((c) => c.includes('status-done')), `web_search states: ${seen.join(', ')}`);
  const text = (await line.textContent()) ?? '';
  assert(text.includes('search_agent') && text.includes('“solid-state battery'), `web_search line reads "${text}"`);
  assert(text.includes('5 results') && text.includes('1.2s'), `web_search line lacks figures: "${text}"`);
  const depth = await line.getAttribute('data-depth');
  assert(depth === '1', `search_agent's tool is at depth ${depth}, want 1 (nested under the lead)`);
  await page.locator('.step.kind-tool', { hasText: 'web_fetch' }).waitFor();
  assert(await page.locator('.step', { hasText: 'example.org/review-2025' }).first().isVisible(), 'web_fetch line lacks the URL');
});

await check('task plan renders live with its markers', async () => {
  await page.locator('.plan-md .task-done').first().waitFor();
  assert((await page.locator('.plan-md li.task').count()) === 4, 'task plan does not list 4 items');
  assert((await page.locator('.plan-md').textContent()).includes('Search for recent overviews'), 'plan text missing');
  assert(!(await page.locator('.plan-md').textContent()).includes('[✓]'), 'raw [✓] marker shown');
});

await check('report artifact appears with an unsaved dot', async () => {
  const row = page.locator('.artifact-row', { hasText: 'research_report' });
  await row.waitFor();
  await row.locator('.unsaved-dot').waitFor();
  assert((await row.textContent()).includes('agent'), 'no source badge');
  await page.locator('.preview h1', { hasText: 'Solid-state batteries' }).waitFor();
});

await check('answer streams and completes', async () => {
  const answer = page.locator('.answer.streaming');
  await answer.waitFor();
  const first = ((await answer.textContent()) ?? '').length;
  await page.waitForFunction((n) => (document.querySelector('.answer.streaming')?.textContent?.length ?? 0) > n + 20, first);
  await shot('running');
  await page.locator('.figures', { hasText: '22.7k tokens' }).waitFor({ timeout: 20000 });
  const text = (await page.locator('.exchange').last().locator('.answer').textContent()) ?? '';
  assert(text.startsWith('There are three main families'), `answer starts "${text.slice(0, 40)}"`);
  assert(!text.includes('There are three main famThere'), 'reset chunk did not discard the partial text');
  assert(!(await page.locator('.answer.streaming').count()), 'answer still marked streaming');
  assert((await page.locator('.figures').last().textContent()).includes('7 steps'), 'no step count');
  assert(!(await page.locator('.artifact-row .unsaved-dot').count()), 'unsaved dot remains after complete');
  assert((await page.locator('.step .step-icon.running').count()) === 0, 'a spinner remains after complete');
  await shot('complete');
});

await check('links open in the system browser', async () => {
  const before = page.url();
  await page.locator('.exchange').last().locator('.answer a', { hasText: '2025 review' }).click();
  const opened = await calls('runtime', 'BrowserOpenURL');
  // Exactly once: the window-wide navigation guard and the Markdown component share one handler.
  assert(opened.filter((a) => a[0] === 'https://example.org/review-2025').length === 1, `BrowserOpenURL calls: ${JSON.stringify(opened)}`);
  assert(page.url() === before, `the window navigated to ${page.url()}`);
});

await check('Stop calls ChatService.Stop and shows Stopped', async () => {
  await page.evaluate(() => {
    window.__fake.holdRuns = true;
  });
  const box = page.getByRole('textbox', { name: 'Research question' });
  await box.fill('And which of them is closest to mass production?');
  await page.keyboard.press('Enter');
  await page.locator('.exchange').last().locator('.step.kind-tool', { hasText: 'web_search' }).waitFor();
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await page.locator('.run-stopped', { hasText: 'Stopped' }).waitFor();
  const stops = await calls('ChatService', 'Stop');
  assert(stops.length === 1 && typeof stops[0][0] === 'string' && stops[0][0].startsWith('c-new-'), `Stop calls: ${JSON.stringify(stops)}`);
  assert((await page.locator('.step .step-icon.running').count()) === 0, 'a spinner remains after stop');
  await page.getByRole('button', { name: 'Send' }).waitFor();
  await shot('stopped');
});

await check('Esc stops a run too', async () => {
  const box = page.getByRole('textbox', { name: 'Research question' });
  await box.fill('One more question');
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Stop', exact: true }).waitFor();
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => window.__fake.calls.filter((c) => c.method === 'Stop').length === 2);
  await page.locator('.run-stopped').nth(1).waitFor();
  await page.evaluate(() => {
    window.__fake.holdRuns = false;
  });
});

await check('settings show validation errors from the backend', async () => {
  await page.keyboard.press('Control+,');
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.waitFor();
  await dialog.locator('.badge', { hasText: 'stored' }).waitFor();
  const base = dialog.getByRole('textbox', { name: /Base URL/ });
  await base.fill('localhost:11434');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.locator('#err-base_url', { hasText: 'must be an absolute http(s) URL' }).waitFor();
  assert((await base.getAttribute('aria-invalid')) === 'true', 'base URL not marked invalid');
  await shot('settings');
  await base.fill('http://localhost:11434/v1');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.getByText('Saved').waitFor();
  const saves = await calls('SettingsService', 'Save');
  assert(saves.at(-1)[0].api_key === '', 'an empty API key field was not sent as empty (keep)');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
});

await check('settings: endpoint preset, model list, test connection, per-agent models and search provider', async () => {
  await page.keyboard.press('Control+,');
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.waitFor();
  const preset = dialog.getByRole('combobox', { name: /^Endpoint preset/ });
  await preset.waitFor();
  assert((await preset.inputValue()) === 'Ollama', `preset shows "${await preset.inputValue()}" for the Ollama URL`);
  // The model field suggests the endpoint's /v1/models list and stays free text.
  await page.waitForFunction(() => document.querySelectorAll('datalist#endpoint-models option').length === 2);
  await shot('settings-endpoint');
  const model = dialog.getByRole('combobox', { name: /^Model/ });
  assert((await model.getAttribute('list')) === 'endpoint-models', 'the model field offers no list');
  await dialog.getByText('2 models offered by the endpoint').waitFor();
  // Test connection, from the keyboard.
  await dialog.getByRole('button', { name: 'Test connection' }).focus();
  await page.keyboard.press('Enter');
  await dialog.locator('.test-result.ok', { hasText: 'qwen3:14b answered in 312 ms' }).waitFor();
  await model.fill('missing');
  await dialog.getByRole('button', { name: 'Test connection' }).click();
  await dialog.locator('.test-result.err', { hasText: '404 Not Found: model "missing" not found' }).waitFor();
  await model.fill('qwen3:14b');
  // A preset fills the base URL; an unreachable endpoint's list error is shown, not thrown.
  await preset.selectOption('DeepSeek');
  const base = dialog.getByRole('textbox', { name: /Base URL/ });
  assert((await base.inputValue()) === 'https://api.deepseek.com/v1', `base URL after the preset: ${await base.inputValue()}`);
  await dialog.getByText(/Could not list the endpoint’s models: .*no such host/).waitFor();
  await preset.selectOption('Ollama');
  // Per-agent models: an out-of-range value is refused next to its field, nothing is sent.
  const savesBefore = (await calls('SettingsService', 'Save')).length;
  await dialog.getByRole('combobox', { name: 'Lead agent: model' }).fill('qwen3:32b');
  const temp = dialog.getByRole('textbox', { name: 'Lead agent: temperature' });
  await temp.fill('3');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.locator('#err-lead-temperature', { hasText: '0 to 2' }).waitFor();
  assert((await temp.getAttribute('aria-invalid')) === 'true', 'temperature not marked invalid');
  assert((await calls('SettingsService', 'Save')).length === savesBefore, 'an invalid temperature was sent');
  await temp.fill('0.2');
  await dialog.getByRole('combobox', { name: 'Sub-agents: model' }).fill('llama3.1:8b');
  await dialog.getByRole('textbox', { name: 'Sub-agents: max tokens' }).fill('2048');
  // Search: Tavily needs a key; its Test says so until one is typed.
  const provider = dialog.getByRole('combobox', { name: /^Search provider/ });
  const labels = await provider.locator('option').allTextContents();
  assert(labels.includes('DuckDuckGo — no key needed') && labels.includes('Wikipedia — no key needed'), `provider options: ${labels.join(' | ')}`);
  await provider.selectOption('tavily');
  await dialog.getByRole('button', { name: 'Test Tavily' }).click();
  await dialog.locator('.test-result.err', { hasText: 'needs an API key' }).waitFor();
  await dialog.getByLabel(/^Tavily API key/).fill('tvly-e2e');
  await dialog.getByRole('button', { name: 'Test Tavily' }).click();
  await dialog.locator('.test-result.ok', { hasText: '5 results in 380 ms' }).waitFor();
  await shot('settings-models');
  await provider.scrollIntoViewIfNeeded();
  await shot('settings-search');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.getByText('Saved').waitFor();
  const input = (await calls('SettingsService', 'Save')).at(-1)[0];
  assert(input.lead?.model === 'qwen3:32b' && input.lead?.temperature === 0.2 && input.lead?.top_p === null, `lead ${JSON.stringify(input.lead)}`);
  assert(input.sub_agents?.model === 'llama3.1:8b' && input.sub_agents?.max_tokens === 2048, `sub_agents ${JSON.stringify(input.sub_agents)}`);
  assert(input.search?.provider === 'tavily' && input.search?.keys?.tavily === 'tvly-e2e', `search ${JSON.stringify(input.search)}`);
  // The key is stored, never shown: the field is empty again with a "stored" badge.
  const key = dialog.getByLabel(/^Tavily API key/);
  assert((await key.inputValue()) === '', 'the key field still holds the key after saving');
  await dialog.locator('.badge', { hasText: 'stored' }).nth(0).waitFor();
  // Back to what the later checks expect.
  await provider.selectOption('searxng');
  await dialog.getByRole('combobox', { name: 'Lead agent: model' }).fill('');
  await temp.fill('');
  await dialog.getByRole('combobox', { name: 'Sub-agents: model' }).fill('');
  await dialog.getByRole('textbox', { name: 'Sub-agents: max tokens' }).fill('');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.getByText('Saved').waitFor();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
});

await check('settings: a side list of sections scrolls to each and marks the one in view; Test connection says why it waits', async () => {
  await page.keyboard.press('Control+,');
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.waitFor();
  const nav = dialog.getByRole('navigation', { name: 'Settings sections' });
  await nav.waitFor();
  const names = (await nav.getByRole('button').allTextContents()).map((x) => x.trim());
  for (const want of ['Language', 'Model', 'Lead agent', 'Files', 'Tools']) assert(names.includes(want), `the side list lacks ${want}: ${names.join(' | ')}`);
  const body = dialog.locator('.modal-body');
  for (const name of ['Files', 'Model', 'Tools']) {
    await nav.getByRole('button', { name, exact: true }).click();
    await page.waitForFunction(
      (n) => document.querySelector('.settings-nav [aria-current="true"]')?.textContent?.trim() === n,
      name,
      { timeout: 5000 },
    );
    const gap = await body.evaluate((el, n) => {
      const legend = [...el.querySelectorAll('fieldset > legend')].find((l) => l.textContent?.trim() === n);
      return legend ? legend.closest('fieldset').getBoundingClientRect().top - el.getBoundingClientRect().top : 9999;
    }, name);
    // The last section may not reach the top: it is then in view, at most a body's height down.
    const height = await body.evaluate((el) => el.clientHeight);
    assert(name === 'Tools' ? gap < height : Math.abs(gap) < 24, `${name} is ${String(gap)} px from the top of the dialog after its entry was clicked`);
  }
  await shot('settings-nav');
  await nav.getByRole('button', { name: 'Model', exact: true }).click();
  const model = dialog.getByRole('combobox', { name: /^Model/ });
  const before = await model.inputValue();
  await model.fill('');
  const test = dialog.getByRole('button', { name: 'Test connection' });
  assert(await test.isDisabled(), 'Test connection is enabled with no model');
  await dialog.locator('.test-result.why', { hasText: 'Type a model name to test the connection.' }).waitFor();
  await shot('settings-test-why');
  await model.fill(before);
  assert(await test.isEnabled(), 'Test connection stays disabled with a model typed');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
});

await check('a missing model offers to open settings', async () => {
  await page.keyboard.press('Control+n');
  await page.evaluate(() => {
    // As the backend rejects (app.FormatBoundError): an Error whose message is the AppError's JSON.
    window.__fake.failNextSend = new Error(
      JSON.stringify({ code: 'model_not_configured', message: 'No model is configured: choose an endpoint and a model in Settings.' }),
    );
  });
  await page.getByRole('textbox', { name: 'Research question' }).fill('Anything');
  await page.keyboard.press('Enter');
  const box = page.locator('.error-box', { hasText: 'No model is configured' });
  await box.waitFor();
  await shot('nomodel');
  await box.getByRole('button', { name: 'Open settings' }).click();
  await page.getByRole('dialog', { name: 'Settings' }).waitFor();
  await page.keyboard.press('Escape');
});

await check('rename and delete from the item menu', async () => {
  await page.getByRole('button', { name: /Actions for SQLite vs DuckDB/ }).click();
  await page.getByRole('menuitem', { name: 'Rename' }).click();
  const input = page.getByRole('textbox', { name: 'Conversation title' });
  await input.fill('Local analytics engines');
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: /^Local analytics engines/ }).first().waitFor();
  await page.getByRole('button', { name: /Actions for Local analytics engines/ }).click();
  await page.getByRole('menuitem', { name: /Delete/ }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete research?' });
  await confirm.waitFor();
  assert((await calls('ConversationService', 'Delete')).length === 0, 'deleted before confirmation');
  await confirm.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('button', { name: /^Local analytics engines/ }).first().waitFor({ state: 'detached' });
});

// Versions, compare, edit, restore, export and uploads: e2e/ui-artifacts.mjs.
await artifactChecks({ page, check, shot, calls });

await check('dark theme', async () => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.getByRole('textbox', { name: 'Research question' }).fill('');
  await page.getByRole('button', { name: /^What are the main approaches/ }).first().click();
  await page.locator('.figures', { hasText: '22.7k tokens' }).waitFor();
  await page.locator('.artifact-row', { hasText: 'research_report' }).click();
  await page.locator('.exchange').first().getByRole('button', { name: /Activity/ }).click();
  await page.locator('.chat-scroll').evaluate((el) => el.scrollTo(0, 0));
  await shot('dark');
  await page.emulateMedia({ colorScheme: 'light' });
});

await check('the smallest window keeps three usable columns', async () => {
  await page.setViewportSize({ width: 1000, height: 700 });
  const [l, m, r] = await Promise.all(['nav.sidebar', 'main.chat', 'aside.panel'].map((s) => page.locator(s).boundingBox()));
  assert(m.width >= 380 && r.width >= 320 && l.width >= 220, `columns ${l.width}/${m.width}/${r.width}`);
  assert(Math.abs(r.x + r.width - 1000) < 1, 'right column overflows');
  await shot('narrow');
  await page.setViewportSize({ width: 1280, height: 860 });
});

await check('no page errors', async () => {
  assert(pageErrors.length === 0, pageErrors.join('\n'));
});

console.log(`${String(check.passed)} passed, 0 failed`);
await shutdown(0);
