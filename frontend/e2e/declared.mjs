// The artifact panel's "Links & files" and document deletion against the real Go backend
// in browser mode, driven by app/declared_e2e_test.go (TestBrowserE2EDeclared): node
// e2e/declared.mjs URL, with AF_CONV_TITLE (the seeded conversation's title), AF_LINK_URL
// and AF_LINK_TITLE (a declared link), AF_MISSING_PATH (a declared workspace file that
// does not exist), AF_MARKUP_TITLE (a link whose title is markup) and AF_DOC_TITLE (a
// document to delete). Nothing leaves the machine: the link's host is answered by the
// test itself. Saves /tmp/ui-declared.png. Exits non-zero on the first failure.
import { readFileSync } from 'node:fs';
import { assert, checker, launch, screenshot } from './browser.mjs';

const url = process.argv[2];
const env = (k) => {
  const v = process.env[k];
  if (!v) {
    console.error(`usage: AF_CONV_TITLE=.. AF_LINK_URL=.. AF_LINK_TITLE=.. AF_MISSING_PATH=.. AF_MARKUP_TITLE=.. AF_DOC_TITLE=.. node e2e/declared.mjs URL (missing ${k})`);
    process.exit(2);
  }
  return v;
};
const convTitle = env('AF_CONV_TITLE');
const linkURL = env('AF_LINK_URL');
const linkTitle = env('AF_LINK_TITLE');
const missingPath = env('AF_MISSING_PATH');
const markupTitle = env('AF_MARKUP_TITLE');
const docTitle = env('AF_DOC_TITLE');
if (!url) process.exit(2);
const linkHost = new URL(linkURL).host;

const { page, errors, close } = await launch();
const check = checker(page, close);

// Every request for the link's host, from any page: none may come from the app itself.
const hostRequests = [];
await page.context().route(`${new URL(linkURL).origin}/**`, (r) => {
  const req = r.request();
  let frame = 'navigation'; // a new tab's first request has no frame yet
  try {
    frame = req.frame().page() === page ? 'app' : 'other';
  } catch {
    /* a navigation request issued before its frame exists */
  }
  hostRequests.push({ url: req.url(), frame });
  return r.fulfill({ status: 200, contentType: 'text/plain', body: 'the link opened' });
});

await page.goto(url);
const panel = page.locator('aside.panel');
const links = panel.locator('section.declared');
const row = (text) => links.locator('.declared-item', { hasText: text });
/** BrowserOpenURL calls the page made, recorded by a wrapper around the shim's. */
const opened = () => page.evaluate(() => window.__opened ?? []);

await check('the seeded conversation opens and shows its Links & files under the documents', async () => {
  await page.locator('nav.sidebar').waitFor();
  await page.getByRole('button', { name: new RegExp(`^${convTitle}`) }).first().click();
  await links.waitFor();
  await row(linkTitle).waitFor();
  const head = (await links.locator('.declared-head').textContent()) ?? '';
  assert(head.includes('Links & files'), `section head reads "${head}"`);
  // Under the document list.
  const [docs, declared] = await Promise.all([panel.locator('ul.artifact-list').boundingBox(), links.boundingBox()]);
  assert(docs && declared && declared.y >= docs.y + docs.height - 1, 'Links & files is not under the documents');
  await page.evaluate(() => {
    window.__opened = [];
    const original = window.runtime.BrowserOpenURL;
    window.runtime.BrowserOpenURL = (u) => {
      window.__opened.push(u);
      original(u);
    };
  });
});

await check('a link shows its kind icon, title, host and source badge; titles are plain text', async () => {
  const link = row(linkTitle);
  assert((await link.locator('.declared-icon').getAttribute('aria-label')) === 'Link', 'no Link icon');
  assert((await link.locator('.declared-icon svg').count()) === 1, 'the icon is not an inline SVG');
  assert((await link.locator('.declared-where').textContent()) === linkHost, `host reads "${await link.locator('.declared-where').textContent()}"`);
  assert((await link.locator('.declared-source').textContent()) === 'tool', 'no tool badge');
  const markup = links.locator('.declared-title', { hasText: markupTitle });
  assert((await markup.textContent()) === markupTitle, 'the markup title is not shown as text');
  assert((await links.locator('img, iframe, video, audio, object, embed, a, b, strong, em, code, script').count()) === 0, 'markup or media in the list');
});

await check('a missing workspace file is greyed with its reason', async () => {
  const gone = row(missingPath);
  assert(((await gone.getAttribute('class')) ?? '').includes('missing'), 'not marked missing');
  const reason = (await gone.locator('.declared-reason').textContent()) ?? '';
  assert(reason.startsWith('Missing:') && reason.length > 'Missing: '.length, `reason reads "${reason}"`);
  assert((await gone.locator('.declared-source').textContent()) === 'hook', 'no hook badge');
  const opacity = await gone.locator('.declared-title').evaluate((el) => getComputedStyle(el).color);
  const normal = await row(linkTitle).locator('.declared-title').evaluate((el) => getComputedStyle(el).color);
  assert(opacity !== normal, 'the missing title has the same colour as an available one');
  await screenshot(page, 'declared');
});

await check('clicking a link opens it through BrowserOpenURL, in a new tab, never in the app', async () => {
  const before = hostRequests.length;
  assert(before === 0, `the link's host was contacted before any click: ${JSON.stringify(hostRequests)}`);
  const popup = page.context().waitForEvent('page', { timeout: 5_000 });
  await row(linkTitle).locator('.declared-row').click();
  const tab = await popup;
  await tab.waitForLoadState();
  assert(tab.url() === linkURL, `the new tab shows ${tab.url()}`);
  await tab.close();
  const calls = await opened();
  assert(JSON.stringify(calls) === JSON.stringify([linkURL]), `BrowserOpenURL calls: ${JSON.stringify(calls)}`);
  assert(!hostRequests.some((r) => r.frame === 'app'), `the app page itself requested the link: ${JSON.stringify(hostRequests)}`);
  await panel.waitFor();
  assert(page.url().startsWith(new URL(url).origin), `the app navigated to ${page.url()}`);
});

await check('keyboard: Tab reaches the rows, Enter opens, Shift+F10 and the Menu key open the menu', async () => {
  const btn = row(linkTitle).locator('.declared-row');
  await btn.focus();
  // The row after it is one Tab away (its ⋯ button in between).
  await page.keyboard.press('Tab');
  assert(await row(linkTitle).locator('.declared-more').evaluate((el) => el === document.activeElement), 'Tab does not reach the ⋯ button');
  await page.keyboard.press('Shift+Tab');
  assert(await btn.evaluate((el) => el === document.activeElement), 'Shift+Tab does not return to the row');
  const popup = page.context().waitForEvent('page', { timeout: 5_000 });
  await page.keyboard.press('Enter');
  await (await popup).close();
  assert((await opened()).length === 2, 'Enter did not open the link');
  await btn.focus();
  await page.keyboard.press('Shift+F10');
  const menu = links.getByRole('menu');
  await menu.waitFor();
  const items = await menu.getByRole('menuitem').allTextContents();
  assert(JSON.stringify(items.map((s) => s.trim())) === JSON.stringify(['Open', 'Copy link', 'Remove…']), `menu items: ${JSON.stringify(items)}`);
  assert(await menu.getByRole('menuitem').first().evaluate((el) => el === document.activeElement), 'the menu has no focus');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Escape');
  await menu.waitFor({ state: 'detached' });
  assert(await btn.evaluate((el) => el === document.activeElement), 'Escape does not return focus to the row');
  await page.keyboard.press('ContextMenu');
  await menu.waitFor();
  await page.keyboard.press('Escape');
  await menu.waitFor({ state: 'detached' });
});

await check('a workspace file does not open from browser mode, with a clear message', async () => {
  await row(missingPath).locator('.declared-row').click();
  const alert = links.getByRole('alert');
  await alert.waitFor();
  const text = (await alert.textContent()) ?? '';
  assert(text.includes('browser mode does not open files'), `the message reads "${text}"`);
  await alert.getByRole('button', { name: 'Dismiss' }).click();
  // Its menu offers the path and the folder.
  await row(missingPath).locator('.declared-more').click();
  const items = await links.getByRole('menu').getByRole('menuitem').allTextContents();
  assert(JSON.stringify(items.map((s) => s.trim())) === JSON.stringify(['Open', 'Copy path', 'Reveal in folder', 'Remove…']), `menu items: ${JSON.stringify(items)}`);
  await page.keyboard.press('Escape');
});

await check('removing a declared link asks first, then the row goes', async () => {
  const markup = links.locator('.declared-item', { hasText: markupTitle });
  await markup.locator('.declared-more').click();
  await links.getByRole('menuitem', { name: /Remove/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Remove this link?' });
  await dialog.waitFor();
  await dialog.getByRole('button', { name: 'Remove', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  await markup.waitFor({ state: 'detached' });
  assert((await row(linkTitle).count()) === 1, 'the other link went too');
});

await check('deleting a document asks first, then it leaves the panel, also after a reload', async () => {
  const doc = panel.locator('.artifact-row', { hasText: docTitle });
  await doc.click();
  await panel.getByRole('button', { name: 'Delete', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete this artifact?' });
  await dialog.waitFor();
  const text = (await dialog.textContent()) ?? '';
  assert(text.includes(docTitle) && text.includes('all its versions'), `the dialog reads "${text}"`);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });
  assert((await doc.count()) === 1, 'Cancel deleted the document');
  await panel.getByRole('button', { name: 'Delete', exact: true }).click();
  await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  await doc.waitFor({ state: 'detached' });
  await page.reload();
  await page.getByRole('button', { name: new RegExp(`^${convTitle}`) }).first().click();
  await row(linkTitle).waitFor();
  assert((await panel.locator('.artifact-row', { hasText: docTitle }).count()) === 0, 'the document is back after a reload');
  assert((await links.locator('.declared-item', { hasText: markupTitle }).count()) === 0, 'the removed link is back after a reload');
});

// A script beside the app, as the local API's clients are: it finds the local API through
// <data-dir>/api.json (AF_API_JSON), POSTs a link while the conversation is open, and the
// row appears live (no reload); its DELETE removes it live too.
await check('a script posting through api.json adds a row live; its DELETE removes it', async () => {
  const apiPath = env('AF_API_JSON');
  const conv = env('AF_CONV_ID');
  const { url: api, token } = JSON.parse(readFileSync(apiPath, 'utf8'));
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  const title = 'Scheduler task from a script';
  const res = await fetch(`${api}/session/${conv}/artifacts`, {
    method: 'POST', headers,
    body: JSON.stringify({ clientId: 'e2e-script', title, url: 'https://scheduler.example.invalid/task/42', kind: 'link' }),
  });
  const raw = await res.text();
  assert(res.status === 200, `POST answered ${res.status}: ${raw}`);
  const body = JSON.parse(raw);
  const id = body.changes?.[0]?.artifactId;
  assert(body.changes?.[0]?.action === 'created' && id, `POST changes: ${JSON.stringify(body)}`);
  await row(title).waitFor();
  assert((await row(title).textContent())?.includes('scheduler.example.invalid'), 'the row does not show the host');
  const del = await fetch(`${api}/session/${conv}/artifacts/${id}`, { method: 'DELETE', headers: { ...headers, 'X-Client-Id': 'e2e-script' } });
  const delBody = await del.text();
  assert(del.status === 200, `DELETE answered ${del.status}: ${delBody}`);
  await row(title).waitFor({ state: 'detached' });
});

await check('no page errors', async () => {
  assert(errors.length === 0, errors.join('\n'));
});

console.log(`${String(check.passed)} passed, 0 failed`);
await close();
