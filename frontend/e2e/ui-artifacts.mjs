// UI checks of the artifact features: preview with highlighted code, source with line
// numbers, version history, compare (side by side and inline), restore, edit + save, a
// conflicting save, export, the upload limit setting, and uploads by drop and by the "Add
// files" button. Run from e2e/ui.mjs against the fake backend (fake-backend.js +
// fake-artifacts.js). Screenshots: /tmp/ui-history.png, ui-diff.png, ui-diff-inline.png,
// ui-edit-conflict.png, ui-upload.png (+ dark and 960x600 variants).
import { readFile } from 'node:fs/promises';
import { assert } from './browser.mjs';

/**
 * Dispatches a synthetic drag (dragenter, dragover) and, unless `hover`, a drop of `files`
 * ({name, type, text} or {name, type, size} for zero bytes, or {name, bytes: number[]}) on
 * the element at `selector`, with a DataTransfer built in the page.
 */
export async function dropFiles(page, files, { selector = 'main.chat', hover = false } = {}) {
  await page.evaluate(
    ({ files, selector, hover }) => {
      const dt = new DataTransfer();
      for (const f of files) {
        const body = f.text !== undefined ? [f.text] : f.bytes ? [new Uint8Array(f.bytes)] : [new Uint8Array(f.size ?? 0)];
        dt.items.add(new File(body, f.name, { type: f.type ?? '' }));
      }
      const target = document.querySelector(selector) ?? document.body;
      const fire = (type) => target.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
      fire('dragenter');
      fire('dragover');
      if (!hover) fire('drop');
    },
    { files, selector, hover },
  );
}

/** Runs the artifact checks; `check`, `shot` and `calls` come from ui.mjs. */
export async function artifactChecks({ page, check, shot, calls }) {
  const row = (id) => page.locator('.artifact-row', { hasText: id });
  const tab = (name) => page.getByRole('tab', { name: new RegExp(`^${name}(?!s)`) });
  const versionSelect = page.getByRole('combobox', { name: 'Version', exact: true });
  const openHeat = async () => {
    await page.getByRole('button', { name: /^Heat pump subsidies/ }).first().click();
    await page.locator('.chat-title', { hasText: 'Heat pump subsidies' }).waitFor();
    await row('research_report').waitFor();
  };
  const openHistory = async () => {
    await tab('History').click();
    await page.locator('.history-item').first().waitFor();
  };

  await check('while a run changes an artifact, Edit and Restore wait for it', async () => {
    await page.keyboard.press('Control+n');
    await page.evaluate(() => {
      window.__fake.holdRuns = true;
    });
    await page.getByRole('textbox', { name: 'Research question' }).fill('Which solid-state battery makers ship today?');
    await page.keyboard.press('Enter');
    const report = row('research_report');
    await report.locator('.unsaved-dot').waitFor();
    await report.click();
    const edit = page.getByRole('button', { name: 'Edit', exact: true });
    assert(await edit.isDisabled(), 'Edit is enabled while the run holds unsaved changes');
    assert(((await edit.getAttribute('title')) ?? '').includes('running research'), 'no explanation on Edit');
    await page.locator('.viewer-note', { hasText: 'The running research is changing this artifact' }).waitFor();
    const current = await versionSelect.locator('option').first().textContent();
    assert(/^v\d+ · draft$/.test(current?.trim() ?? ''), `version selector reads "${current}"`);
    assert(((await versionSelect.getAttribute('title')) ?? '').includes('stores only its final state'), 'the selector does not explain the draft');
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.locator('.run-stopped').last().waitFor();
    await page.evaluate(() => {
      window.__fake.holdRuns = false;
    });
    await report.locator('.unsaved-dot').waitFor({ state: 'detached' });
    await page.locator('.viewer-note').waitFor({ state: 'detached' });
    assert(await edit.isEnabled(), 'Edit stays disabled after the run');
  });

  await check('code in a preview is highlighted (shiki)', async () => {
    await openHeat();
    await row('method_notes').click();
    await page.locator('.preview pre.shiki.language-python span[class^="hl-"]').first().waitFor();
    assert((await page.locator('.preview pre.shiki.language-shellscript').count()) === 1, 'the bash block is not highlighted');
    assert((await page.locator('.preview [style]').count()) === 0, 'inline styles reached the preview');
    const text = await page.locator('.preview pre.shiki.language-python').textContent();
    assert(text.includes('def subsidy(cost: float'), `python block reads ${text}`);
    await row('subsidy_calc.py').click();
    await page.locator('.preview .code-view pre.shiki.language-python span[class^="hl-"]').first().waitFor();
    assert(await row('subsidy_calc.py').locator('.badge-upload').isVisible(), 'the uploaded code file has no upload badge');
  });

  await check('source tab shows the raw text with line numbers', async () => {
    await row('research_report').click();
    await tab('Source').click();
    const lines = page.locator('.source-view .src-line');
    await lines.first().waitFor();
    assert((await lines.count()) === 9, `source shows ${await lines.count()} lines`);
    assert((await lines.first().locator('.src-ln').textContent()) === '1', 'no line number 1');
    assert((await lines.first().locator('.src-tx').textContent()) === '# Heat pump subsidies in Germany, France and Italy', 'first source line differs');
    assert((await page.locator('.source-view .src-tx', { hasText: '| Programme |' }).count()) === 1, 'raw markdown table missing');
  });

  await check('version history lists versions with their question', async () => {
    await openHistory();
    const items = page.locator('.history-item');
    assert((await items.count()) === 2, `history lists ${await items.count()} versions`);
    const first = (await items.nth(0).textContent()) ?? '';
    const second = (await items.nth(1).textContent()) ?? '';
    assert(first.includes('v2') && first.includes('Updated') && first.includes('current'), `newest entry reads "${first}"`);
    assert(second.includes('v1') && second.includes('Created'), `oldest entry reads "${second}"`);
    for (const t of [first, second]) assert(t.includes('How do European heat pump subsidies differ'), `no question in "${t}"`);
    assert(first.includes('B'), 'no size');
    const title = await items.nth(0).locator('time').getAttribute('title');
    assert(title && /\d/.test(title), 'no exact time on hover');
    await shot('history');
  });

  await check('tabs work from the keyboard', async () => {
    await tab('History').focus();
    await page.keyboard.press('ArrowLeft');
    assert((await tab('Source').getAttribute('aria-selected')) === 'true', 'ArrowLeft did not select Source');
    assert(await tab('Source').evaluate((el) => el === document.activeElement), 'focus did not follow');
    await page.keyboard.press('Home');
    assert((await tab('Preview').getAttribute('aria-selected')) === 'true', 'Home did not select Preview');
    await page.locator('.preview h1', { hasText: 'Heat pump subsidies' }).waitFor();
  });

  await check('compare two versions side by side with word highlights', async () => {
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: /^Compare versions/ });
    await dialog.waitFor();
    assert((await dialog.getByRole('combobox', { name: 'From version' }).inputValue()) === '1', 'does not compare from v1');
    assert((await dialog.getByRole('combobox', { name: 'To version' }).inputValue()) === 'current', 'does not compare to current');
    const table = dialog.locator('table.diff-side');
    await table.waitFor();
    const added = await table.locator('td.d-tx.d-add').count();
    const removed = await table.locator('td.d-tx.d-del').count();
    assert(added >= 3 && removed >= 3, `side by side: ${added} added, ${removed} removed cells`);
    const ins = await table.locator('ins').allTextContents();
    const del = await table.locator('del').allTextContents();
    assert(ins.some((t) => t.includes('Conto Termico')), `ins: ${JSON.stringify(ins)}`);
    assert(ins.some((t) => t.includes('–65')) || ins.some((t) => t.includes('65')), `no 50–65 highlight: ${JSON.stringify(ins)}`);
    assert(del.length > 0, 'no removed words highlighted');
    // A removed line only on the left: the open question.
    const q = table.locator('tr.d-row', { hasText: 'Open question' });
    assert((await q.locator('td.d-tx.d-del').count()) === 1, 'the removed question line is not marked removed');
    const stats = (await dialog.locator('.compare-stats').textContent()) ?? '';
    assert(stats.includes(`+${added}`) || /\+\d+/.test(stats), `stats read "${stats}"`);
    assert(/−\d+/.test(stats), `stats read "${stats}"`);
    await shot('diff');
  });

  await check('compare inline, and "no differences" for the same version', async () => {
    const dialog = page.getByRole('dialog', { name: /^Compare versions/ });
    await dialog.getByText('Inline', { exact: true }).click();
    const table = dialog.locator('table.diff-inline');
    await table.waitFor();
    const plus = await table.locator('td.d-sign.d-add').count();
    const minus = await table.locator('td.d-sign.d-del').count();
    assert(plus >= 3 && minus >= 3, `inline: ${plus} added, ${minus} removed lines`);
    assert((await table.locator('ins').count()) > 0 && (await table.locator('del').count()) > 0, 'inline view lacks word highlights');
    const stats = (await dialog.locator('.compare-stats').textContent()) ?? '';
    assert(stats.includes(`+${plus}`) && stats.includes(`−${minus}`), `stats "${stats}" vs ${plus}/${minus}`);
    await shot('diff-inline');
    await dialog.getByRole('combobox', { name: 'From version' }).selectOption('current');
    await dialog.locator('.diff-empty', { hasText: 'No differences' }).waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  await check('an old version is read-only and restore makes a new version', async () => {
    await versionSelect.selectOption('1');
    const banner = page.locator('.version-banner');
    await banner.waitFor();
    assert(((await banner.textContent()) ?? '').includes('read-only'), 'no read-only label');
    await page.locator('.preview', { hasText: 'Open question' }).waitFor();
    assert(await page.getByRole('button', { name: 'Edit', exact: true }).isDisabled(), 'Edit is enabled on an old version');
    await banner.getByRole('button', { name: /Restore/ }).click();
    await page.locator('.viewer-status', { hasText: 'Restored v1 as v3' }).waitFor();
    const restores = await calls('ArtifactService', 'Restore');
    assert(JSON.stringify(restores.at(-1)) === JSON.stringify(['c-heat', 'research_report', 1, 2]), `Restore args ${JSON.stringify(restores)}`);
    await banner.waitFor({ state: 'detached' });
    await row('research_report').locator('text=v3').waitFor();
    await openHistory();
    const first = (await page.locator('.history-item').first().textContent()) ?? '';
    assert(first.includes('v3') && first.includes('Restored'), `newest entry reads "${first}"`);
    await page.locator('.history-item', { hasText: 'Restored v1' }).waitFor();
  });

  await check('edit and save creates a version', async () => {
    await tab('Preview').click();
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: /^Edit / });
    await dialog.waitFor();
    const area = dialog.getByRole('textbox', { name: /^Source of/ });
    assert(await area.evaluate((el) => el === document.activeElement), 'the editor is not focused');
    assert(((await dialog.locator('.editor-status').textContent()) ?? '').includes('No changes'), 'dirty before typing');
    await area.evaluate((el) => el.setSelectionRange(el.value.length, el.value.length));
    await area.press('End');
    await page.keyboard.type('\n\nChecked against the 2025 programme pages.');
    await dialog.locator('.editor-status .dirty', { hasText: 'Unsaved changes' }).waitFor();
    await page.keyboard.press('Control+s');
    await dialog.waitFor({ state: 'detached' });
    const saves = await calls('ArtifactService', 'Save');
    const last = saves.at(-1);
    assert(last[0] === 'c-heat' && last[1] === 'research_report' && last[2] === 3, `Save args ${JSON.stringify(last?.slice(0, 3))}`);
    assert(last[3].endsWith('Checked against the 2025 programme pages.'), 'saved text lacks the edit');
    await page.locator('.viewer-status', { hasText: 'Saved as v4' }).waitFor();
    await page.locator('.preview', { hasText: 'Checked against the 2025 programme pages.' }).waitFor();
    await openHistory();
    const first = (await page.locator('.history-item').first().textContent()) ?? '';
    assert(first.includes('v4') && first.includes('Your edit') && !first.includes('“'), `newest entry reads "${first}"`);
  });

  await check('Esc in an unchanged editor closes it; with changes it asks first', async () => {
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: /^Edit / });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await dialog.waitFor();
    await page.keyboard.type('x');
    await page.keyboard.press('Escape');
    await dialog.getByText('Discard your unsaved changes?').waitFor();
    await dialog.getByRole('button', { name: 'Keep editing' }).click();
    assert(await dialog.isVisible(), 'the editor closed');
    await dialog.getByRole('textbox', { name: /^Source of/ }).press('Backspace');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  await check('a conflicting save keeps the text and offers the latest version', async () => {
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: /^Edit / });
    await dialog.waitFor();
    const area = dialog.getByRole('textbox', { name: /^Source of/ });
    const draft = 'My own summary: Germany is the most generous.';
    await area.press('Control+Home');
    await page.keyboard.type(`${draft}\n\n`);
    // Meanwhile another run changes the report.
    await page.evaluate(() => {
      const a = window.__fake.state.artifacts['c-heat'].find((x) => x.id === 'research_report');
      window.__fake.bumpArtifact('c-heat', 'research_report', `${a.content}\n\n## Austria\nThe Raus aus Öl bonus pays up to 75 %.`, 'Add Austria to the comparison');
    });
    await page.keyboard.press('Control+s');
    const alert = dialog.locator('.notice-conflict');
    await alert.waitFor();
    const msg = (await alert.textContent()) ?? '';
    assert(msg.includes('is now at version 5') && msg.includes('reload it'), `conflict reads "${msg}"`);
    assert((await area.inputValue()).startsWith(draft), 'the user text was lost on conflict');
    assert(await dialog.isVisible(), 'the editor closed on conflict');
    await shot('edit-conflict');
    await alert.getByRole('button', { name: 'Reload latest' }).click();
    const latest = dialog.getByRole('textbox', { name: /^Latest version v5/ });
    await latest.waitFor();
    assert((await latest.inputValue()).includes('Raus aus Öl'), 'the latest version is not shown');
    assert((await area.inputValue()).startsWith(draft), 'the draft was replaced by the latest version');
    await dialog.getByRole('button', { name: 'Show differences' }).click();
    await dialog.locator('.editor-diff table.diff-inline').waitFor();
    await shot('edit-reloaded');
    // Re-apply on top of the latest: keep its Austria section and add the summary.
    await dialog.getByRole('button', { name: 'Hide differences' }).click();
    await area.fill(`${draft}\n\n${await latest.inputValue()}`);
    await dialog.getByRole('button', { name: 'Save', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    const last = (await calls('ArtifactService', 'Save')).at(-1);
    assert(last[2] === 5 && last[3].startsWith(draft) && last[3].includes('Raus aus Öl'), `re-applied save ${JSON.stringify(last.slice(0, 3))}`);
    await page.locator('.viewer-status', { hasText: 'Saved as v6' }).waitFor();
  });

  await check('export downloads the file in browser mode; the window says where it saved', async () => {
    await tab('Preview').click();
    const exportBtn = page.getByRole('button', { name: /^Export/ });
    await exportBtn.click();
    const menu = page.getByRole('menu', { name: 'Export as' });
    await menu.waitFor();
    assert(await menu.getByRole('menuitem').first().evaluate((el) => el === document.activeElement), 'menu not focused');
    const [download] = await Promise.all([page.waitForEvent('download'), menu.getByRole('menuitem', { name: /Markdown/ }).click()]);
    assert(download.suggestedFilename() === 'Heat_pump_subsidies_compared.md', `downloaded ${download.suggestedFilename()}`);
    const body = await readFile(await download.path(), 'utf8');
    assert(body.startsWith('My own summary') && body.includes('Raus aus Öl'), `downloaded ${body.slice(0, 60)}`);
    await page.locator('.viewer-status', { hasText: 'Downloaded Heat_pump_subsidies_compared.md' }).waitFor();
    // The desktop window: the save dialog wrote the file.
    await page.evaluate(() => {
      window.__fake.exportSavedPath = '/home/user/Documents/Heat_pump_subsidies_compared.docx';
    });
    await exportBtn.click();
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    await page.locator('.viewer-status', { hasText: 'Saved to /home/user/Documents/Heat_pump_subsidies_compared.docx' }).waitFor();
    const exports = await calls('ArtifactService', 'Export');
    assert(JSON.stringify(exports.map((a) => a[3])) === '["markdown","docx"]', `Export formats ${JSON.stringify(exports)}`);
    // Esc closes the menu without stopping anything.
    await exportBtn.click();
    await menu.waitFor();
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    assert(await exportBtn.evaluate((el) => el === document.activeElement), 'focus did not return to Export');
  });

  await check('settings take an upload limit', async () => {
    await page.keyboard.press('Control+,');
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.waitFor();
    const field = dialog.getByRole('textbox', { name: 'Upload limit' });
    await dialog.locator('.badge', { hasText: 'stored' }).waitFor();
    assert((await field.inputValue()) === '20', `limit shows ${await field.inputValue()}`);
    await field.fill('0');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.locator('#err-max_upload_mb', { hasText: '1 to 256' }).waitFor();
    await field.fill('1');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('Saved').waitFor();
    const saves = await calls('SettingsService', 'Save');
    assert(saves.at(-1)[0].max_upload_mb === 1, `saved ${JSON.stringify(saves.at(-1)[0])}`);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  await check('dropping files uploads them; an oversized file fails alone', async () => {
    const before = (await calls('ArtifactService', 'Upload')).length;
    await dropFiles(page, [{ name: 'notes.md', type: 'text/markdown', text: '# KfW leaflet notes\n\nThe bonus for low incomes is 30 %.\n' }], { hover: true });
    const overlay = page.locator('.drop-overlay', { hasText: 'Drop files to add them to this research' });
    await overlay.waitFor();
    await shot('drop-overlay');
    await dropFiles(page, [
      { name: 'notes.md', type: 'text/markdown', text: '# KfW leaflet notes\n\nThe bonus for low incomes is 30 %.\n' },
      { name: 'big-scan.pdf', type: 'application/pdf', size: 1.5 * 1024 * 1024 },
      { name: 'rates.go', type: 'text/x-go', text: 'package rates\n\nconst Germany = 0.30\n' },
      { name: 'photo.png', type: 'image/png', bytes: [137, 80, 78, 71, 0, 0, 0, 13] },
    ]);
    await overlay.waitFor({ state: 'detached' });
    const tray = page.getByRole('region', { name: 'Uploads' });
    await tray.waitFor();
    await tray.locator('.upload-item.status-done', { hasText: 'photo.png' }).waitFor();
    const items = tray.locator('.upload-item');
    assert((await items.count()) === 4, `tray lists ${await items.count()} files`);
    const failed = tray.locator('.upload-item.status-failed', { hasText: 'big-scan.pdf' });
    const err = (await failed.locator('.upload-error').textContent()) ?? '';
    assert(err.includes('1.5 MB') && err.includes('over the 1 MB upload limit'), `oversize error "${err}"`);
    await tray.locator('.upload-item.status-done', { hasText: 'notes.md' }).waitFor();
    await tray.locator('.upload-item.status-done', { hasText: 'rates.go' }).waitFor();
    const png = tray.locator('.upload-item.unreadable', { hasText: 'photo.png' });
    assert(((await png.textContent()) ?? '').includes('text not readable'), 'unreadable file not marked');
    assert(((await png.locator('.upload-note').textContent()) ?? '').includes('could not be read'), 'no note for the unreadable file');
    const ups = (await calls('ArtifactService', 'Upload')).slice(before);
    assert(ups.length === 3 && ups.every((a) => a[0] === 'c-heat' && a[1].length === 1), `Upload calls ${JSON.stringify(ups.map((a) => [a[0], a[1].map((f) => f.name)]))}`);
    assert(!ups.some((a) => a[1][0].name === 'big-scan.pdf'), 'the oversized file was sent');
    assert(ups[0][1][0].data === 'IyBLZlcgbGVhZmxldCBub3RlcwoKVGhlIGJvbnVzIGZvciBsb3cgaW5jb21lcyBpcyAzMCAlLgo=', 'notes.md not sent as base64 of its bytes');
    for (const id of ['notes.md', 'rates.go', 'photo.png']) await row(id).locator('.badge-upload').waitFor();
    assert((await row('photo.png').getAttribute('aria-selected')) === 'true', 'the newest upload is not selected');
    await page.locator('.preview .binary-note', { hasText: 'could not be read' }).waitFor();
    await shot('upload');
  });

  await check('"Add files" uploads through the file picker; the tray closes', async () => {
    await page.locator('[data-testid="add-files-input"]').setInputFiles({ name: 'extra notes.txt', mimeType: 'text/plain', buffer: Buffer.from('Ask the installer about the 2026 rules.\n') });
    const tray = page.getByRole('region', { name: 'Uploads' });
    await tray.locator('.upload-item.status-done', { hasText: 'extra notes.txt' }).waitFor();
    await row('extra_notes.txt').waitFor();
    await tray.locator('.upload-name', { hasText: 'rates.go' }).click();
    assert((await row('rates.go').getAttribute('aria-selected')) === 'true', 'clicking an upload does not open it');
    await page.locator('.preview pre.shiki.language-go').waitFor();
    await tray.getByRole('button', { name: 'Close the uploads tray' }).click();
    await tray.waitFor({ state: 'detached' });
  });

  await check('dropping files with no research open starts one', async () => {
    await page.keyboard.press('Control+n');
    await dropFiles(page, [{ name: 'brief.md', type: 'text/markdown', text: '# Brief\n\nCompare heat pump subsidies.\n' }], { hover: true });
    await page.locator('.drop-overlay', { hasText: 'start a new research' }).waitFor();
    await dropFiles(page, [{ name: 'brief.md', type: 'text/markdown', text: '# Brief\n\nCompare heat pump subsidies.\n' }]);
    await page.locator('.chat-title', { hasText: 'Files: brief.md' }).waitFor();
    await row('brief.md').waitFor();
    await page.locator('.preview h1', { hasText: 'Brief' }).waitFor();
    const last = (await calls('ArtifactService', 'Upload')).at(-1);
    assert(last[0] === '', `first upload went to "${last[0]}", not a new conversation`);
    await page.getByRole('button', { name: 'Close the uploads tray' }).click();
  });

  await check('dark theme: history and compare', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await openHeat();
    await row('research_report').click();
    await openHistory();
    await shot('history-dark');
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: /^Compare versions/ });
    await dialog.getByRole('combobox', { name: 'From version' }).selectOption('1');
    await dialog.locator('table.diff-side').waitFor();
    await shot('diff-dark');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await page.emulateMedia({ colorScheme: 'light' });
  });

  await check('compare stays readable in the smallest window (960x600)', async () => {
    await page.setViewportSize({ width: 960, height: 600 });
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: /^Compare versions/ });
    await dialog.getByRole('combobox', { name: 'From version' }).selectOption('1');
    const table = dialog.locator('table.diff-side');
    await table.waitFor();
    const box = await dialog.boundingBox();
    assert(box.x >= 0 && box.y >= 0 && box.x + box.width <= 960 && box.y + box.height <= 600, `dialog at ${JSON.stringify(box)}`);
    const cell = await table.locator('td.d-tx').first().boundingBox();
    assert(cell.width >= 330, `a text column is ${cell.width}px wide`);
    const scroll = await dialog.locator('.diff-scroll').boundingBox();
    assert(scroll.height >= 300, `the diff area is ${scroll.height}px high`);
    await shot('diff-narrow');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await page.setViewportSize({ width: 1280, height: 860 });
  });
}
