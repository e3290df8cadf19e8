// Settings → MCP servers and an MCP tool call in a run, against the real Go backend in browser
// mode with real MCP servers, driven by app/browser/mcptools_e2e_test.go
// (TestBrowserE2EMCPTools): node e2e/mcp-tools.mjs URL, with AF_QUESTION (asked; the scripted
// search agent calls mcp__everything__echo). config.json names "everything"
// (server-everything over stdio) and "broken" (a program that prints a line on stderr and
// exits at once). Checks:
//   1. both are listed, not started, with their command lines, agents and permission;
//   2. Test on everything starts it and lists its tools (none called): running with N tools;
//   3. Test on broken: failed, with the error and the lines it wrote to its log; View log
//      shows the log; Escape on Remove's question keeps the server and the dialog;
//   4. switching get-env off persists over a reload (the Go test reads config.json);
//   5. Add server and Paste JSON say why they are desktop-only in the browser;
//   6. the run: the permission prompt names the server and the tool, Approve, and the
//      activity shows "echo · everything" with the arguments and, expanded, the result.
// Screenshots /tmp/ui-mcp-settings.png (a running and a failed server),
// /tmp/ui-mcp-permission.png and /tmp/ui-mcp-activity.png. Exits non-zero on the first failure.
import { readFileSync } from 'node:fs';
import { assert, checker, launch, screenshot } from './browser.mjs';

const url = process.argv[2];
const question = process.env.AF_QUESTION;
if (!url || !question) {
  console.error('usage: AF_QUESTION=.. node e2e/mcp-tools.mjs URL');
  process.exit(2);
}
const catalogue = (ns) => JSON.parse(readFileSync(new URL(`../src/locales/en/${ns}.json`, import.meta.url), 'utf8'));
const mcp = catalogue('mcp');
const errorsCat = catalogue('errors');

const { page, errors, close } = await launch();
const check = checker(page, close);
await page.goto(url);

/** Opens Settings and returns the dialog and its MCP servers section. */
async function openSettings() {
  await page.locator('.btn-settings').click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  const section = dialog.getByTestId('mcp-servers');
  await section.locator('.mcp-server, .mcp-empty').first().waitFor({ timeout: 10_000 });
  return { dialog, section };
}
const card = (section, name) => section.locator(`[data-server="${name}"]`);

let settings;
await check('both servers are listed, not started, with their command lines, agents and permission', async () => {
  await page.locator('nav.sidebar').waitFor();
  settings = await openSettings();
  const { section } = settings;
  await section.scrollIntoViewIfNeeded();
  assert((await section.locator('legend').first().textContent()) === mcp.legend, 'no MCP servers legend');
  for (const name of ['everything', 'broken']) {
    const c = card(section, name);
    await c.waitFor();
    assert((await c.locator('.mcp-state').textContent()) === mcp.state.stopped, `${name}: ${await c.locator('.mcp-state').textContent()}`);
    assert((await c.locator('.mcp-meta').textContent())?.includes('search_agent, crawl_agent'), `${name} agents`);
    assert((await c.locator('.mcp-meta').textContent())?.includes(mcp.permission.confirm), `${name} permission`);
  }
  const where = (await card(section, 'everything').locator('.mcp-where').textContent()) ?? '';
  assert(where.includes('server-everything') && where.endsWith(' stdio'), `everything runs ${where}`);
});

let toolCount = 0;
await check('Test on everything starts it and lists its tools, calling none', async () => {
  const c = card(settings.section, 'everything');
  await c.getByRole('button', { name: mcp.test.button, exact: true }).click();
  await c.locator('.mcp-test.ok').waitFor({ timeout: 90_000 });
  const result = (await c.locator('.mcp-test').textContent()) ?? '';
  assert(/^Found \d+ tools in .+; none was called\.$/.test(result), `test result "${result}"`);
  toolCount = Number(/Found (\d+)/.exec(result)?.[1]);
  assert(toolCount >= 5, `only ${String(toolCount)} tools`);
  await page.waitForFunction(() => document.querySelector('[data-server="everything"]')?.getAttribute('data-state') === 'running', null, { timeout: 10_000 });
  assert((await c.locator('.mcp-state').textContent()) === `Running · ${String(toolCount)} tools`, `state ${await c.locator('.mcp-state').textContent()}`);
  const names = await c.locator('.mcp-tools [data-tool]').evaluateAll((els) => els.map((e) => e.getAttribute('data-tool')));
  assert(names.length === toolCount && names.includes('echo') && names.includes('get-env'), `tools ${JSON.stringify(names)}`);
});

await check('Test on broken: failed, with the error and the lines of its log', async () => {
  const c = card(settings.section, 'broken');
  await c.getByRole('button', { name: mcp.test.button, exact: true }).click();
  await c.locator('.mcp-test.err').waitFor({ timeout: 30_000 });
  await page.waitForFunction(() => document.querySelector('[data-server="broken"]')?.getAttribute('data-state') === 'failed', null, { timeout: 10_000 });
  assert((await c.locator('.mcp-state').textContent()) === mcp.state.failed, 'state not Failed');
  const error = (await c.locator('.mcp-failure .mcp-error').textContent()) ?? '';
  assert(error.length > 0, 'no error text');
  const tail = (await c.locator('.mcp-failure .mcp-log-tail').textContent()) ?? '';
  assert(tail.includes('cannot start: no API key configured'), `log tail "${tail}"`);
  await c.getByRole('button', { name: mcp.viewLog }).click();
  const log = (await c.locator('pre.mcp-log').textContent()) ?? '';
  assert(log.includes('cannot start: no API key configured'), `log "${log}"`);
  const font = await c.locator('pre.mcp-log').evaluate((e) => getComputedStyle(e).fontFamily);
  assert(/mono/i.test(font), `log font ${font}`);
  await c.getByRole('button', { name: mcp.hideLog }).click();
  // Remove asks first; Escape answers the question, not the Settings dialog.
  await c.getByRole('button', { name: mcp.remove, exact: true }).click();
  await c.locator('.mcp-confirm').waitFor();
  await page.keyboard.press('Escape');
  await c.locator('.mcp-confirm').waitFor({ state: 'detached' });
  assert(await settings.dialog.isVisible(), 'Escape on the question closed Settings');
  assert((await card(settings.section, 'broken').count()) === 1, 'broken was removed');
});

await check('Settings shows a running and a failed server (screenshot)', async () => {
  // The running server's tools fold so both servers fit in the shot.
  const c = card(settings.section, 'everything');
  await c.getByRole('button', { name: `${String(toolCount)} tools`, exact: true }).click();
  await c.locator('.mcp-tools').waitFor({ state: 'detached' });
  await settings.section.evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await screenshot(page, 'mcp-settings');
});

await check('switching get-env off persists over a reload', async () => {
  const c = card(settings.section, 'everything');
  await c.getByRole('button', { name: `${String(toolCount)} tools`, exact: true }).click();
  const sw = c.getByRole('switch', { name: 'Offer get-env' });
  assert(await sw.isChecked(), 'get-env off before the switch');
  await sw.click({ force: true });
  await page.waitForFunction(() => document.querySelector('[data-tool="get-env"]')?.classList.contains('off') === true, null, { timeout: 10_000 });
  await page.reload();
  await page.locator('nav.sidebar').waitFor();
  settings = await openSettings();
  const again = card(settings.section, 'everything');
  await again.getByRole('button', { name: `${String(toolCount)} tools`, exact: true }).click();
  assert(!(await again.getByRole('switch', { name: 'Offer get-env' }).isChecked()), 'get-env is on again after the reload');
  assert(await again.getByRole('switch', { name: 'Offer echo' }).isChecked(), 'echo went off');
});

await check('Add server and Paste JSON say why they are desktop-only', async () => {
  const { section } = settings;
  const want = `${errorsCat.code.desktop_only} ${mcp.desktopOnlyWhy}`;
  await section.getByRole('button', { name: mcp.add, exact: true }).click();
  const note = section.locator('.mcp-desktop-only[role="alert"]');
  await note.waitFor();
  assert((await note.textContent()) === want, `note "${await note.textContent()}"`);
  assert((await section.locator('.mcp-form').count()) === 0, 'the form opened in the browser');
  await section.getByRole('button', { name: mcp.paste }).click();
  assert((await section.locator('.mcp-import').count()) === 0, 'the paste box opened in the browser');
  await page.keyboard.press('Escape');
  await settings.dialog.waitFor({ state: 'detached' });
});

await check('an MCP tool call: the permission prompt names the server and the tool', async () => {
  await page.getByRole('textbox', { name: 'Research question' }).fill(question);
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Allow echo from everything?' });
  await dialog.waitFor({ timeout: 90_000 });
  const what = (await dialog.locator('.perm-what').textContent()) ?? '';
  assert(what === 'search_agent wants to use the tool echo of the MCP server everything with:', `asks "${what}"`);
  assert(((await dialog.locator('.perm-json').textContent()) ?? '').includes('"message": "hello from ArtifactFlow"'), 'arguments not shown');
  await screenshot(page, 'mcp-permission');
  await dialog.getByRole('button', { name: /^Approve/ }).click();
  await dialog.waitFor({ state: 'detached' });
});

await check('the activity shows "echo · everything" with its arguments and result', async () => {
  const exchange = page.locator('.exchange').last();
  await exchange.locator('.figures').waitFor({ timeout: 90_000 });
  const activity = exchange.locator('.activity');
  if ((await activity.getAttribute('class'))?.includes('open') !== true) await activity.locator('.activity-head').click();
  const row = activity.locator('.step.kind-tool').filter({ has: page.locator('.step-server', { hasText: 'everything' }) });
  await row.waitFor();
  assert((await row.locator('.step-tool').textContent()) === 'echo', 'tool name');
  assert((await row.locator('.step-detail').textContent()) === '“hello from ArtifactFlow”', `detail ${await row.locator('.step-detail').textContent()}`);
  assert((await row.locator('.step-icon.done').count()) === 1, 'the call is not done');
  await row.locator('.step-head').click();
  const result = (await row.locator('.step-detail-text').textContent()) ?? '';
  assert(result.includes('hello from ArtifactFlow'), `result "${result}"`);
  await row.evaluate((el) => el.scrollIntoView({ block: 'center' }));
  await screenshot(page, 'mcp-activity');
});

await check('no page errors', async () => {
  assert(errors.length === 0, errors.join('\n'));
});

console.log(`${String(check.passed)} passed, 0 failed`);
await close();
