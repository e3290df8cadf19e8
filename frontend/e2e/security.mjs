// Browser-mode security checks in Chromium, driven by app/browser_security_test.go
// (TestBrowserE2EForeignPage): node e2e/security.mjs APP_URL ATTACKER_URL.
// The user opens the app URL printed by `serve` (with ?token=); then, in the same browser, a
// page served on another port of 127.0.0.1 fires its requests at the app (the Go test
// serves it and checks what the app server answered and that config.json did not change).
// Here: the attacker's page finishes, the token leaves the address bar and sets no cookie,
// the app keeps working after a reload (the token survives in this tab) and its Content
// Security Policy lets the whole UI load without a violation. Then links (an image map's
// <area>, javascript:) and a form in the page never navigate the app's tab: an http(s) link
// opens in a new tab (browser mode's BrowserOpenURL). Exits non-zero on a failure.
import { assert, checker, launch, waitEnabled } from './browser.mjs';

const [appURL, attackerURL] = process.argv.slice(2);
if (!appURL || !attackerURL) {
  console.error('usage: node e2e/security.mjs APP_URL ATTACKER_URL');
  process.exit(2);
}

const { page, errors, close } = await launch();
const check = checker(page, close);

await check('the user opens the app with the printed URL', async () => {
  await page.goto(appURL);
  await page.locator('nav.sidebar').waitFor();
  await page.locator('aside.panel').waitFor();
});

await check('a page on another port tries the reported requests', async () => {
  const evil = await page.context().newPage();
  await evil.goto(attackerURL);
  await evil.waitForFunction(() => window.__done === true, null, { timeout: 20_000 });
  const results = await evil.evaluate(() => window.__results);
  console.log(`     the foreign page's view: ${JSON.stringify(results)}`);
  assert(results.events !== 'open', 'the foreign page opened the event stream');
  await evil.close();
});

await check('the token leaves the address bar and no cookie holds it', async () => {
  assert(!page.url().includes('token='), `the address bar still reads ${page.url()}`);
  const cookies = await page.context().cookies();
  assert(cookies.length === 0, `cookies: ${JSON.stringify(cookies)}`);
});

await check('the app still works after a reload, without the token in the URL', async () => {
  await page.reload();
  await page.locator('nav.sidebar').waitFor();
  await page.getByRole('button', { name: /^Settings/ }).first().click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  const model = dialog.getByRole('combobox', { name: /^Model/ }).first();
  await model.waitFor();
  await waitEnabled(model);
  assert((await model.inputValue()) === 'test-model', `the settings read model "${await model.inputValue()}"`);
  await page.keyboard.press('Escape');
});

await check('links, image maps and forms never navigate the app', async () => {
  const appURLNow = page.url();
  // Served here: nothing leaves the machine.
  await page.context().route('https://example.invalid/**', (r) => r.fulfill({ status: 200, contentType: 'text/plain', body: 'opened' }));
  await page.evaluate(() => {
    const box = document.createElement('div');
    box.id = 'nav-probe';
    box.innerHTML =
      '<img usemap="#probe" width="40" height="20" style="display:block" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">' +
      '<map name="probe"><area id="web" shape="rect" coords="0,0,19,19" href="https://example.invalid/area">' +
      '<area id="js" shape="rect" coords="20,0,39,19" href="javascript:document.title=\'hijacked\'"></map>' +
      '<form id="f" action="https://example.invalid/form"><input name="q" value="secret"></form>';
    document.body.prepend(box);
  });
  const popup = page.context().waitForEvent('page', { timeout: 5_000 });
  await page.locator('#nav-probe img').click({ position: { x: 5, y: 5 } });
  const opened = await popup;
  assert(opened.url().startsWith('https://example.invalid/area'), `the area opened ${opened.url()}`);
  await opened.close();
  await page.locator('#nav-probe img').click({ position: { x: 30, y: 5 } });
  await page.evaluate(() => document.getElementById('f').requestSubmit());
  await page.waitForTimeout(300);
  assert(page.url() === appURLNow, `the app's tab went to ${page.url()}`);
  assert((await page.title()) !== 'hijacked', 'a javascript: area ran');
  await page.locator('nav.sidebar').waitFor();
  await page.evaluate(() => document.getElementById('nav-probe').remove());
});

await check('no page errors and no Content Security Policy violations', async () => {
  assert(errors.length === 0, errors.join('\n'));
});

console.log(`${String(check.passed)} passed, 0 failed`);
await close();
