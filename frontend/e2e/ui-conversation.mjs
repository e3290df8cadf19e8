// UI check of the conversation features in headless Chromium: serves dist/ with `vite
// preview`, installs e2e/fake-backend.js and then e2e/fake-conversation.js (which adds
// branches, history paging, search, queued messages, permissions and drafts), and asserts
// what a user relies on. Screenshots go to /tmp/ui4-*.png (light and dark, 1280x860 and the
// 960x600 minimum). Exits non-zero on the first failure.
//
//   npm run e2e                      (builds first, runs e2e/ui.mjs, then this)
//   node e2e/ui-conversation.mjs     (uses the existing dist/)
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { preview } from 'vite';
import { assert, checker, launch } from './browser.mjs';

const here = dirname(fileURLToPath(import.meta.url));

const server = await preview({ root: join(here, '..'), logLevel: 'warn', preview: { host: '127.0.0.1', port: 0, open: false } });
const url = server.resolvedUrls?.local[0];
if (!url) throw new Error('vite preview did not report a URL');

const { page, errors: pageErrors, close } = await launch({ init: [join(here, 'fake-backend.js'), join(here, 'fake-conversation.js')] });
const shutdown = async (code) => {
  await close();
  await server.close().catch(() => {});
  process.exit(code);
};
const check = checker(page, () => shutdown(1));
/** Saves /tmp/ui4-<name>.png after moving the mouse away and letting transitions settle. */
const shot = async (name) => {
  await page.mouse.move(0, 0);
  await page.waitForTimeout(300);
  await page.screenshot({ path: `/tmp/ui4-${name}.png` });
  console.log(`     screenshot /tmp/ui4-${name}.png`);
};
const calls = (service, method) =>
  page.evaluate(([s, m]) => window.__fake.calls.filter((c) => c.service === s && c.method === m).map((c) => c.args), [service, method]);
const ctl = (patch) => page.evaluate((p) => Object.assign(window.__fakeConv, p), patch);
const open = async (title) => {
  await page.getByRole('button', { name: new RegExp(`^${title}`) }).first().click();
  await page.locator('.chat-title', { hasText: title }).waitFor();
};
const composer = () => page.getByRole('textbox', { name: 'Research question' });
const exchanges = () => page.locator('.exchange');

await page.goto(url);
await page.locator('nav.sidebar').waitFor();

await check('branch navigator ‹ 2/2 › switches the shown answer', async () => {
  await open('Grid storage');
  const first = exchanges().first();
  await first.locator('.answer', { hasText: 'Answer two' }).waitFor();
  const nav = first.getByRole('group', { name: 'Branches' });
  assert((await nav.locator('.branch-pos').textContent()) === '2/2', 'navigator does not read 2/2');
  assert((await exchanges().count()) === 2, 'the follow-up question is not shown on branch 2');
  await shot('branches');
  await nav.getByRole('button', { name: 'Previous branch' }).click();
  await first.locator('.answer', { hasText: 'Answer one' }).waitFor();
  assert((await nav.locator('.branch-pos').textContent()) === '1/2', 'navigator does not read 1/2');
  const switches = await calls('ConversationService', 'SwitchBranch');
  assert(JSON.stringify(switches.at(-1)) === '["c-branch","m-b1"]', `SwitchBranch calls: ${JSON.stringify(switches)}`);
  await page.waitForFunction(() => document.querySelectorAll('.exchange').length === 1);
  // Keyboard: ArrowRight on the navigator goes to the next branch.
  await nav.getByRole('button', { name: 'Next branch' }).focus();
  await page.keyboard.press('ArrowRight');
  await first.locator('.answer', { hasText: 'Answer two' }).waitFor();
  await page.waitForFunction(() => document.querySelectorAll('.exchange').length === 2);
  assert(JSON.stringify((await calls('ConversationService', 'SwitchBranch')).at(-1)) === '["c-branch","m-b1r"]', 'ArrowRight did not switch');
});

await check('context meter shows tokens used / window, amber near the threshold', async () => {
  const meter = page.locator('.chat-head .ctx-meter');
  await meter.waitFor();
  assert((await meter.locator('.ctx-figures').textContent()) === '47.5k / 64k', `meter reads ${await meter.textContent()}`);
  assert((await meter.getAttribute('class')).includes('level-near'), 'meter is not amber at 47.5k of a 51.2k threshold');
  assert((await meter.getByRole('meter').getAttribute('aria-valuenow')) === '47500', 'meter value');
});

await check('edit and resend calls Send with edit_of and makes a new branch', async () => {
  await ctl({ fetches: 0, holdRuns: false });
  const first = exchanges().first();
  await first.getByRole('button', { name: 'Edit question' }).click();
  const editor = page.getByRole('textbox', { name: 'Edited question' });
  await editor.waitFor();
  assert((await editor.inputValue()).startsWith('Which grid storage technology'), 'editor does not hold the question');
  await page.keyboard.press('Escape');
  await editor.waitFor({ state: 'detached' });
  assert((await calls('ChatService', 'Stop')).length === 0, 'Esc in the editor stopped something');
  await first.getByRole('button', { name: 'Edit question' }).click();
  await editor.fill('Which grid storage scales best for 8-hour storage?');
  await shot('edit');
  await page.keyboard.press('Control+Enter');
  await page.locator('.question', { hasText: '8-hour storage' }).waitFor();
  const sends = await calls('ChatService', 'Send');
  const req = sends.at(-1)[0];
  assert(req.edit_of === 'm-b1r' && req.conversation_id === 'c-branch' && req.content === 'Which grid storage scales best for 8-hour storage?', `Send: ${JSON.stringify(req)}`);
  // While it runs, branch, edit and regenerate are off.
  await page.locator('.chat-head .pill-running').waitFor();
  assert(await exchanges().first().getByRole('button', { name: 'Edit question' }).isDisabled(), 'Edit enabled during a run');
  await page.locator('.exchange .figures').first().waitFor({ timeout: 20000 });
  await page.locator('.branch-pos', { hasText: '3/3' }).waitFor();
  assert((await exchanges().count()) === 1, 'the new branch shows more than its question');
});

await check('regenerate runs the question again as a new branch', async () => {
  await page.getByRole('button', { name: 'Regenerate' }).first().click();
  const regs = await calls('ChatService', 'Regenerate');
  assert(regs.length === 1 && regs[0][0] === 'c-branch' && regs[0][1].startsWith('m-x'), `Regenerate calls: ${JSON.stringify(regs)}`);
  await page.locator('.branch-pos', { hasText: '4/4' }).waitFor({ timeout: 20000 });
  await page.locator('.exchange .figures').first().waitFor({ timeout: 20000 });
  assert((await page.locator('.exchange .question').first().textContent()).includes('8-hour storage'), 'regenerated with another question');
});

await check('a message sent during a run is queued, then consumed', async () => {
  await ctl({ fetches: 0, holdRuns: true });
  await open('EU battery passport');
  await composer().fill('Which data must the passport hold?');
  await page.keyboard.press('Enter');
  await page.locator('.question', { hasText: 'Which data must the passport hold' }).waitFor();
  await page.waitForFunction(() => window.__fakeConv.isHolding());
  // The composer stays usable: Enter adds to the run, Stop stays.
  await composer().fill('Please include the carbon footprint rules.');
  await page.getByRole('button', { name: 'Stop', exact: true }).waitFor();
  await page.keyboard.press('Enter');
  const bubble = page.locator('.added-msg', { hasText: 'carbon footprint rules' });
  await bubble.waitFor();
  await page.locator('.added-msg.status-queued .badge-queued').waitFor();
  const queued = await calls('ChatService', 'Queue');
  assert(JSON.stringify(queued.at(-1)) === '["c-live","Please include the carbon footprint rules."]', `Queue calls: ${JSON.stringify(queued)}`);
  assert((await composer().inputValue()) === '', 'the composer kept the queued text');
  assert((await page.locator('.added-msg').count()) === 1, 'the queued message shows twice');
  await shot('queued');
  await ctl({ holdRuns: false });
  await page.evaluate(() => window.__fakeConv.release());
  await page.locator('.added-msg.status-delivered', { hasText: 'carbon footprint rules' }).waitFor();
  await page.locator('.exchange').last().locator('.figures').waitFor({ timeout: 20000 });
  assert((await page.locator('.added-msg').count()) === 1, 'the delivered message shows twice');
  await page.locator('.exchange').last().getByRole('button', { name: /Activity/ }).click();
  await page.locator('.step.kind-note', { hasText: 'Your added message reached lead_agent' }).waitFor();
});

await check('permission dialog: approve (Enter), deny (Esc), always allow, with a countdown', async () => {
  await ctl({ fetches: 4, permTimeoutMs: 30_000 });
  await composer().fill('Who checks the passport data?');
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Allow web_fetch?' });
  await dialog.waitFor();
  await dialog.locator('.perm-url', { hasText: 'https://environment.ec.europa.eu/topics/waste-and-recycling/batteries_en' }).waitFor();
  const t1 = await dialog.locator('.perm-countdown-text').textContent();
  assert(/Denied automatically in 0:(29|30)/.test(t1), `countdown reads "${t1}"`);
  await page.waitForTimeout(1300);
  const t2 = await dialog.locator('.perm-countdown-text').textContent();
  assert(/Denied automatically in 0:2[6-9]/.test(t2) && t2 !== t1, `countdown did not move: "${t1}" then "${t2}"`);
  await shot('permission');
  await page.keyboard.press('Enter');
  await dialog.locator('.perm-url', { hasText: 'battery-passport-faq' }).waitFor();
  await page.keyboard.press('Escape');
  await dialog.locator('.perm-url', { hasText: 'gba-passport-pilot' }).waitFor();
  await dialog.getByRole('button', { name: 'Always allow' }).click();
  await dialog.waitFor({ state: 'detached' });
  const responds = (await calls('ChatService', 'Respond')).map((a) => `${a[0]} ${a[2]}`);
  assert(JSON.stringify(responds) === JSON.stringify(['c-live approve', 'c-live deny', 'c-live always_allow']), `Respond calls: ${JSON.stringify(responds)}`);
  await page.locator('.exchange').last().locator('.figures').waitFor({ timeout: 20000 });
  assert(!(await dialog.count()), 'asked again after always allow');
  await page.locator('.exchange').last().getByRole('button', { name: /Activity/ }).click();
  for (const t of ['example.org/battery-passport-faq: denied', ': always allowed', 'batteries_en: allowed']) {
    await page.locator('.exchange').last().locator('.step.kind-note', { hasText: t }).first().waitFor();
  }
});

await check('settings: tools auto/ask, permission wait and model context', async () => {
  await page.keyboard.press('Control+,');
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.waitFor();
  const fetchRow = dialog.getByRole('radiogroup', { name: 'web_fetch permission' });
  await fetchRow.waitFor();
  // The body takes the dialog's height and scrolls alone: the dialog itself never scrolls
  // (hidden radios once made it, and focusing a field pushed the footer out of place).
  const box = await dialog.evaluate((d) => ({ overflow: d.scrollHeight - d.clientHeight, body: d.querySelector('.modal-body')?.clientHeight ?? 0 }));
  assert(box.overflow <= 1 && box.body > 300, `settings dialog layout: ${JSON.stringify(box)}`);
  // Always allow stored web_fetch as auto.
  assert(await fetchRow.getByRole('radio', { name: 'Auto' }).isChecked(), 'web_fetch is not auto after always allow');
  await fetchRow.getByText('Ask').click();
  await dialog.getByRole('radiogroup', { name: 'web_search permission' }).getByText('Ask').click();
  await dialog.getByRole('textbox', { name: /Context window/ }).fill('128000');
  await dialog.getByRole('textbox', { name: /Compact at/ }).fill('75');
  await dialog.getByRole('textbox', { name: /Wait for an answer/ }).fill('45');
  await dialog.locator('.modal-body').evaluate((el) => el.scrollTo(0, el.scrollHeight));
  await shot('settings-tools');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.getByText('Saved').waitFor();
  const input = (await calls('SettingsService', 'Save')).at(-1)[0];
  assert(input.tool_permissions?.web_fetch === 'confirm' && input.tool_permissions?.web_search === 'confirm', `tool_permissions ${JSON.stringify(input.tool_permissions)}`);
  assert(input.context_window === 128000 && input.compact_at_percent === 75 && input.permission_timeout_seconds === 45, `saved ${JSON.stringify(input)}`);
  assert(input.base_url === 'http://localhost:11434/v1', 'the other settings were not sent along');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  // The meter follows the new window and threshold.
  await page.locator('.chat-head .ctx-figures', { hasText: '/ 128k' }).waitFor();
  // Each model keeps its own context: another model's name shows its values (none stored:
  // auto and 80%), and Save waits until they are there; the first model's come back.
  await page.keyboard.press('Control+,');
  const windowBox = dialog.getByRole('textbox', { name: /Context window/ });
  const percentBox = dialog.getByRole('textbox', { name: /Compact at/ });
  await dialog.locator('.hint code', { hasText: 'qwen3:14b' }).waitFor();
  assert((await windowBox.inputValue()) === '128000' && (await percentBox.inputValue()) === '75', 'stored context not shown');
  await dialog.getByRole('combobox', { name: /^Model/ }).fill('llama3.1:8b');
  assert(await dialog.getByRole('button', { name: 'Save' }).isDisabled(), 'Save enabled before the typed model\'s context arrived');
  await dialog.locator('.hint code', { hasText: 'llama3.1:8b' }).waitFor();
  assert((await windowBox.inputValue()) === '' && (await percentBox.inputValue()) === '80', `llama context: "${await windowBox.inputValue()}" ${await percentBox.inputValue()}%`);
  assert((await windowBox.getAttribute('placeholder'))?.includes('64'), 'auto window not shown as the placeholder');
  await dialog.getByRole('combobox', { name: /^Model/ }).fill('qwen3:14b');
  await dialog.locator('.hint code', { hasText: 'qwen3:14b' }).waitFor();
  await dialog.getByRole('button', { name: 'Save' }).waitFor();
  assert((await windowBox.inputValue()) === '128000' && (await percentBox.inputValue()) === '75', 'qwen3:14b context lost after switching models');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  // Back to the defaults the later checks expect.
  await page.keyboard.press('Control+,');
  await dialog.getByRole('radiogroup', { name: 'web_search permission' }).getByText('Auto').click();
  await dialog.getByRole('textbox', { name: /Context window/ }).fill('');
  await dialog.getByRole('textbox', { name: /Compact at/ }).fill('80');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.getByText('Saved').waitFor();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
});

await check('an unanswered permission request times out and the dialog closes', async () => {
  await ctl({ fetches: 1, permTimeoutMs: 1500 });
  await composer().fill('One more check, please.');
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Allow web_fetch?' });
  await dialog.waitFor();
  await dialog.waitFor({ state: 'detached', timeout: 5000 });
  await page.locator('.exchange').last().locator('.figures').waitFor({ timeout: 20000 });
  await page.locator('.exchange').last().getByRole('button', { name: /Activity/ }).click();
  await page.locator('.exchange').last().locator('.step.kind-note', { hasText: 'not answered in time' }).waitFor();
  await ctl({ permTimeoutMs: 30_000 });
});

await check('compaction marker with the summary; the earlier messages stay visible', async () => {
  await open('Microplastics');
  const marker = page.locator('.compaction-marker.status-done');
  await marker.waitFor();
  assert((await marker.textContent()).includes('Context compacted: 41.2k → 3k tokens'), `marker reads ${await marker.textContent()}`);
  assert((await exchanges().count()) === 3, 'the compacted messages are not all shown');
  await page.locator('.question', { hasText: 'What do we know about microplastics' }).waitFor();
  await page.locator('.answer', { hasText: 'Mason et al.' }).waitFor();
  await marker.getByRole('button', { name: /Show summary/ }).click();
  await marker.locator('.compaction-summary', { hasText: 'Primary request and intent' }).waitFor();
  const failed = page.locator('.compaction-marker.status-failed');
  assert((await failed.textContent()).includes('Context compaction failed for search_agent'), 'no warning for the failed compaction');
  await failed.getByRole('button', { name: /Details/ }).click();
  await failed.locator('.compaction-error', { hasText: 'empty summary' }).waitFor();
  const meter = page.locator('.chat-head .ctx-meter');
  assert((await meter.locator('.ctx-figures').textContent()) === '4.2k / 64k', `meter after compaction reads ${await meter.textContent()}`);
  assert((await meter.getAttribute('class')).includes('level-ok'), 'meter not ok after compaction');
  const figures = await exchanges().last().locator('.figures').textContent();
  assert(figures.includes('1 step') && figures.includes('46.7k tokens') && figures.includes('45.4k in') && figures.includes('1 compaction'), `figures read "${figures}"`);
  await marker.scrollIntoViewIfNeeded();
  await shot('compaction');
});

await check('scrolling to the top of a long conversation loads older events, no duplicates', async () => {
  await open('Reading list');
  await page.locator('.question', { hasText: 'Long question number 60:' }).waitFor();
  await page.locator('.history-more').waitFor();
  const count0 = await exchanges().count();
  assert(count0 === 20, `first page shows ${count0} exchanges, want 20`);
  const hist = () => calls('ConversationService', 'History').then((cs) => cs.filter((a) => a[0] === 'c-long').map((a) => a[1]));
  assert(JSON.stringify((await hist())[0]) === '{"limit":200,"latest":true}', `first History call ${JSON.stringify(await hist())}`);
  const scrollTop = () => page.locator('.chat-scroll').evaluate((el) => el.scrollTop);
  const toTop = () => page.locator('.chat-scroll').evaluate((el) => el.scrollTo(0, 0));
  const question = (n) => page.locator('.question', { hasText: `Long question number ${String(n)}:` });
  // Above 30 exchanges the list is virtualized (only those near the view are in the page),
  // so each older page is awaited by the exchange next to the one that was at the top.
  await toTop();
  await question(40).waitFor();
  assert((await scrollTop()) > 200, 'the view jumped to the top after older messages loaded');
  // The exchange that was at the top (question 41) stays where the reader saw it.
  const q41 = await question(41).evaluate((q) => {
    const box = q.closest('.chat-scroll').getBoundingClientRect();
    return q.getBoundingClientRect().top - box.top;
  });
  assert(q41 >= -5 && q41 < 200, `question 41 is ${String(q41)} px from the top of the view after older messages loaded`);
  await toTop();
  await question(20).waitFor();
  await toTop();
  await question(1).waitFor();
  await page.locator('.history-more').waitFor({ state: 'detached' });
  const befores = (await hist()).filter((r) => r.before_seq).map((r) => r.before_seq);
  assert(JSON.stringify(befores) === '[401,201]', `before_seq cursors ${JSON.stringify(befores)}`);
  // Find (Ctrl+F) renders every loaded exchange, so all 60 can be read in order.
  await page.keyboard.press('Control+f');
  await page.locator('.find-bar').waitFor();
  await page.waitForFunction(() => document.querySelectorAll('.exchange').length === 60);
  const questions = await page.locator('.exchange .question').allTextContents();
  assert(questions.length === 60 && new Set(questions).size === 60, `questions: ${questions.length}, unique ${new Set(questions).size}`);
  const nums = questions.map((q) => Number(/number (\d+):/.exec(q)?.[1]));
  assert(nums.every((n, i) => n === i + 1), `questions out of order: ${nums.join(',')}`);
  await page.keyboard.press('Escape');
  await page.locator('.find-bar').waitFor({ state: 'detached' });
  await shot('history');
});

await check('search shows highlighted snippets and opens the conversation', async () => {
  const box = page.getByRole('searchbox', { name: 'Search conversations' });
  const before = (await calls('ConversationService', 'Search')).length;
  await box.click();
  await page.keyboard.type('pumped hydro', { delay: 25 });
  const hit = page.locator('.search-hit', { hasText: 'Grid storage' });
  await hit.waitFor();
  const searches = (await calls('ConversationService', 'Search')).slice(before);
  assert(searches.length === 1 && searches[0][0] === 'pumped hydro', `Search calls while typing: ${JSON.stringify(searches)}`);
  const marks = await hit.locator('mark').allTextContents();
  assert(marks.some((m) => m.toLowerCase() === 'pumped') && marks.some((m) => m.toLowerCase() === 'hydro'), `marks: ${JSON.stringify(marks)}`);
  assert(!(await page.locator('.conv-list').isVisible()), 'the conversation list shows under the results');
  await shot('search');
  await page.keyboard.press('ArrowDown');
  assert(await page.evaluate(() => document.activeElement?.classList.contains('search-hit')), 'ArrowDown did not move into the results');
  await page.keyboard.press('Enter');
  await page.locator('.chat-title', { hasText: 'Grid storage' }).waitFor();
  // Markup in a query is text, never HTML.
  await box.fill('<img src=x onerror=alert(1)>');
  await page.locator('.search-results .sidebar-note', { hasText: 'No research matches' }).waitFor();
  assert((await page.locator('.search-results img').count()) === 0, 'markup from the query was rendered');
  await box.focus();
  await page.keyboard.press('Escape');
  assert((await box.inputValue()) === '', 'Esc did not clear the search');
  await page.locator('.conv-list').waitFor();
});

await check('recovered drafts banner: preview, keep and discard; interrupted run marked', async () => {
  await open('Battery recycling');
  const banner = page.getByRole('region', { name: 'Recovered drafts' });
  await banner.waitFor();
  assert((await banner.textContent()).includes('A research run was interrupted before it could save 2 artifacts'), 'banner headline');
  await page.locator('.run-interrupted', { hasText: 'Interrupted' }).waitFor();
  await banner.getByRole('button', { name: /Recycling targets vs. reality/ }).click();
  await banner.locator('.draft-preview', { hasText: 'Lithium is furthest behind' }).waitFor();
  await shot('drafts');
  await banner.locator('.draft', { hasText: 'recycling_report' }).getByRole('button', { name: 'Keep' }).click();
  await banner.locator('.draft', { hasText: 'recycling_report' }).waitFor({ state: 'detached' });
  assert((await banner.textContent()).includes('save 1 artifact'), 'headline did not count down');
  const kept = await calls('ArtifactService', 'KeepDraft');
  assert(JSON.stringify(kept) === '[["c-drafts","recycling_report","m-d2"]]', `KeepDraft calls ${JSON.stringify(kept)}`);
  await page.locator('.artifact-row', { hasText: 'recycling_report' }).waitFor();
  await banner.getByRole('button', { name: 'Discard' }).click();
  await banner.waitFor({ state: 'detached' });
  const dropped = await calls('ArtifactService', 'DiscardDraft');
  assert(JSON.stringify(dropped) === '[["c-drafts","task_plan","m-d2"]]', `DiscardDraft calls ${JSON.stringify(dropped)}`);
});

await check('dark theme and the 960x600 minimum window', async () => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await open('Grid storage');
  await page.locator('.branch-nav').first().waitFor();
  await shot('branches-dark');
  await open('Microplastics');
  await page.locator('.compaction-marker.status-done').getByRole('button', { name: /Show summary/ }).click();
  await page.locator('.compaction-marker.status-done').scrollIntoViewIfNeeded();
  await shot('compaction-dark');
  await page.getByRole('searchbox', { name: 'Search conversations' }).fill('battery');
  await page.locator('.search-hit').first().waitFor();
  await open('EU battery passport');
  await ctl({ fetches: 1 });
  await page.keyboard.press('Control+,');
  const settings = page.getByRole('dialog', { name: 'Settings' });
  await settings.getByRole('radiogroup', { name: 'web_fetch permission' }).getByText('Ask').click();
  await settings.getByRole('button', { name: 'Save' }).click();
  await settings.getByText('Saved').waitFor();
  await page.keyboard.press('Escape');
  await settings.waitFor({ state: 'detached' });
  await composer().fill('Is the passport public?');
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Allow web_fetch?' });
  await dialog.waitFor();
  await shot('permission-dark');
  await page.setViewportSize({ width: 960, height: 600 });
  await page.waitForTimeout(200);
  await shot('permission-960-dark');
  await dialog.getByRole('button', { name: /Approve/ }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.locator('.exchange').last().locator('.figures').waitFor({ timeout: 20000 });
  await shot('live-960-dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.getByRole('searchbox', { name: 'Search conversations' }).fill('');
  await open('Grid storage');
  const [l, m, r] = await Promise.all(['nav.sidebar', 'main.chat', 'aside.panel'].map((s) => page.locator(s).boundingBox()));
  assert(Math.abs(r.x + r.width - 960) < 1, `right column ends at ${r.x + r.width}, not 960`);
  assert(l.width >= 220 && m.width >= 380 && r.width >= 320, `columns ${l.width}/${m.width}/${r.width}`);
  await shot('branches-960');
  await open('Battery recycling');
  await shot('interrupted-960');
  await page.setViewportSize({ width: 1280, height: 860 });
});

await check('no page errors', async () => {
  assert(pageErrors.length === 0, pageErrors.join('\n'));
});

console.log(`${String(check.passed)} passed, 0 failed`);
await shutdown(0);
