// Extends the fake backend (e2e/fake-backend.js, installed before this script) with what the
// artifact UI calls: ArtifactService.Versions / Version / Save / Restore / Export(WithDiagrams) /
// Upload / UploadPaths, shaped like app/types.go and with the backend's conflict and upload
// rules (backend/artifact). Versions of the scripted runs are recorded when a run ends, as
// the engine's flush does. Test hooks on window.__fake:
//   bumpArtifact(conv, id, content, question)  another run changes an artifact (a new version)
//   exportSavedPath = '/path'                    the next Export behaves like the desktop save dialog
(() => {
  'use strict';
  const fake = window.__fake;
  const st = fake.state;
  // Browser mode, as the serve shim says: drops are HTML5 events with File objects.
  window.runtime.__browserMode = true;
  const calls = fake.calls;
  const HOUR = 3600e3;
  const DAY = 24 * HOUR;
  const iso = (msAgo) => new Date(Date.now() - msAgo).toISOString();
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  const b64 = (bytes) => {
    let bin = '';
    for (const b of bytes) bin += String.fromCharCode(b);
    return btoa(bin);
  };
  const unb64 = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
  const reply = (v) => new Promise((res) => setTimeout(() => res(JSON.parse(JSON.stringify(v))), 5));
  const reject = (msg) => new Promise((_, rej) => setTimeout(() => rej(msg), 5));
  const record = (method, fn) => (...args) => {
    calls.push({ service: 'ArtifactService', method, args });
    return fn(...args);
  };

  /** conversation id -> artifact id -> stored versions, oldest first (content included). */
  const versions = {};
  const listOf = (conv, id) => ((versions[conv] ||= {})[id] ||= []);
  const question = (conv, messageId) => ((st.messages[conv] || []).find((m) => m.id === messageId) || {}).content || '';
  const addVersion = (conv, id, v) => listOf(conv, id).push({ size: enc.encode(v.content).length, message_id: '', created_at: new Date().toISOString(), ...v });
  const find = (conv, id) => (st.artifacts[conv] || []).find((a) => a.id === id);

  // ---------- seed: versions of the past conversation, and two more artifacts ----------
  const HEAT_Q = 'm-heat';
  const REPORT_V1 = `# Heat pump subsidies in Germany, France and Italy

| | Germany | France | Italy |
|---|---|---|---|
| Programme | BEG EM (KfW 458) | MaPrimeRénov' | Ecobonus |
| Base support | 30 % | flat amounts | 50 % tax credit |

Germany pays the most; France scales by income; Italy works mostly through tax credits.

Open question: do the German bonuses stack with regional programmes?`;
  const heat = st.artifacts['c-heat'];
  const report = find('c-heat', 'research_report');
  const plan = find('c-heat', 'task_plan');
  const planAt = (n) => {
    let k = 0;
    return plan.content.replace(/\[✓\]/g, () => (k++ < n ? '[✓]' : '[✗]'));
  };
  addVersion('c-heat', 'task_plan', { version: 1, update_type: 'create', source: 'agent', message_id: HEAT_Q, content: planAt(0), created_at: iso(2 * DAY + 20 * 60e3) });
  addVersion('c-heat', 'task_plan', { version: 2, update_type: 'update', source: 'agent', message_id: HEAT_Q, content: planAt(2), created_at: iso(2 * DAY + 10 * 60e3) });
  addVersion('c-heat', 'task_plan', { version: 3, update_type: 'update', source: 'agent', message_id: HEAT_Q, content: plan.content, created_at: iso(2 * DAY) });
  addVersion('c-heat', 'research_report', { version: 1, update_type: 'create', source: 'agent', message_id: HEAT_Q, content: REPORT_V1, created_at: iso(2 * DAY + 8 * 60e3) });
  addVersion('c-heat', 'research_report', { version: 2, update_type: 'update', source: 'agent', message_id: HEAT_Q, content: report.content, created_at: iso(2 * DAY) });
  addVersion('c-heat', 'kfw_notes.pdf', { version: 1, update_type: 'upload', source: 'user_upload', content: find('c-heat', 'kfw_notes.pdf').content, created_at: iso(2 * DAY + HOUR) });

  const METHOD = `# How the amounts were computed

The subsidy for a typical 10 kW air-to-water heat pump, installed for 30,000 EUR:

\`\`\`python
def subsidy(cost: float, base: float = 0.30, bonus: float = 0.0) -> float:
    """Share of the eligible cost paid back, capped at 70 %."""
    rate = min(base + bonus, 0.70)
    return round(cost * rate, 2)

print(subsidy(30_000, bonus=0.20))  # 15000.0
\`\`\`

Run it again with:

\`\`\`bash
python3 subsidy.py --cost 30000 --bonus 0.2
\`\`\``;
  const CALC = `"""Compare heat pump subsidies across countries."""
import json

RATES = {"DE": 0.30, "FR": 0.25, "IT": 0.65}


def best(cost: float) -> str:
    return max(RATES, key=lambda c: cost * RATES[c])


if __name__ == "__main__":
    print(json.dumps({"best": best(30_000)}))
`;
  const artifact = (id, title, content, contentType, source, version, updated) => ({
    id, title, content, content_type: contentType, version, source, size: enc.encode(content).length,
    preview: content.slice(0, 200), updated_at: updated, unsaved: false,
  });
  heat.push(artifact('method_notes', 'Method notes', METHOD, 'markdown', 'agent', 1, iso(2 * DAY)));
  heat.push(artifact('subsidy_calc.py', 'subsidy_calc.py', CALC, 'python', 'user_upload', 1, iso(2 * DAY + HOUR)));
  addVersion('c-heat', 'method_notes', { version: 1, update_type: 'create', source: 'agent', message_id: HEAT_Q, content: METHOD, created_at: iso(2 * DAY) });
  addVersion('c-heat', 'subsidy_calc.py', { version: 1, update_type: 'upload', source: 'user_upload', content: CALC, created_at: iso(2 * DAY + HOUR) });

  // ---------- live runs: a version per changed artifact when the run ends (the flush) ----------
  const touched = {}; // message id -> { artifact id -> snapshot }
  window.runtime.EventsOnMultiple('run:event', (e) => {
    if (e.type === 'artifact_changed') {
      (touched[e.message_id] ||= {})[e.data.artifact.id] = e.data.artifact;
    } else if (e.type === 'complete' || e.type === 'cancelled' || e.type === 'error') {
      for (const a of Object.values(touched[e.message_id] || {})) {
        const first = listOf(e.conversation_id, a.id).length === 0;
        addVersion(e.conversation_id, a.id, {
          version: a.version, update_type: first ? 'create' : a.update_type || 'update', source: 'agent',
          message_id: e.message_id, content: a.content,
        });
      }
      delete touched[e.message_id];
    }
  }, -1);


  /** A user edit or restore with the backend's conflict rules (artifact.Manager.Edit). */
  function edit(conv, id, baseVersion, content, updateType) {
    const a = find(conv, id);
    if (!a) return reject(`artifact not found: "${id}"`);
    if (a.unsaved) return reject(`conflict: the research run is changing "${id}" right now; wait for it to finish or stop it, then edit again`);
    if (a.version !== baseVersion) {
      return reject(`conflict: "${id}" is now at version ${a.version}, but your edit started from version ${baseVersion}; reload it and apply your change again`);
    }
    a.version += 1;
    a.content = content;
    a.size = enc.encode(content).length;
    a.preview = content.slice(0, 200);
    a.updated_at = new Date().toISOString();
    addVersion(conv, id, { version: a.version, update_type: updateType, source: 'user', content });
    return reply(a);
  }

  fake.bumpArtifact = (conv, id, content, q) => {
    const a = find(conv, id);
    a.version += 1;
    a.content = content;
    a.size = enc.encode(content).length;
    a.updated_at = new Date().toISOString();
    const msgs = st.messages[conv];
    const m = { id: `m-bump-${a.version}`, parent_id: '', content: q || 'Add the Austrian programme too', response: 'Done.', status: 'complete', error: '', created_at: new Date().toISOString() };
    msgs.push(m);
    addVersion(conv, id, { version: a.version, update_type: 'update', source: 'agent', message_id: m.id, content });
  };
  fake.exportSavedPath = null;

  // ---------- uploads (backend/artifact/upload.go, backend/extract) ----------
  const TYPES = { md: 'markdown', markdown: 'markdown', txt: 'text', log: 'text', csv: 'csv', json: 'json', yaml: 'yaml', yml: 'yaml', html: 'markdown', py: 'python', go: 'go', js: 'javascript', ts: 'typescript', sql: 'sql', sh: 'shell' };
  const sanitize = (name) => {
    const base = name.split(/[\\/]/).pop().trim();
    const id = base.replace(/[^\p{L}\p{N}_\-.]/gu, '_');
    return id === '' || /^\.+$/.test(id) ? 'upload' : id.slice(0, 64);
  };
  const mb = (n) => (n / 1048576).toFixed(1).replace(/\.0$/, '') + ' MB';
  let uploads = 0;

  function store(conv, file) {
    const bytes = unb64(file.data || '');
    const limit = (st.settings().max_upload_mb || 20) * 1048576;
    const title = file.name.split(/[\\/]/).pop();
    const res = { name: file.name, conversation_id: conv, size: bytes.length, readable: false };
    if (bytes.length > limit) return { ...res, error: `file too large: "${title}" is ${mb(bytes.length)} (${bytes.length} bytes); the upload limit is ${mb(limit)}` };
    const ext = (title.match(/\.([^.]+)$/) || [])[1]?.toLowerCase() || '';
    const type = TYPES[ext];
    const readable = type !== undefined && !bytes.includes(0);
    const reason = type === undefined ? `unsupported file type .${ext || '?'}` : 'binary content';
    const content = readable ? dec.decode(bytes) : `(binary file: ${title}, ${bytes.length} bytes; its text could not be read: ${reason})`;
    const list = st.artifacts[conv];
    const base = sanitize(file.name);
    let id = base;
    for (let n = 1; list.some((a) => a.id === id); n++) {
      const dot = base.lastIndexOf('.');
      id = dot > 0 ? `${base.slice(0, dot)}_${n}${base.slice(dot)}` : `${base}_${n}`;
    }
    list.push(artifact(id, title, content, readable ? type : 'binary', 'user_upload', 1, new Date().toISOString()));
    addVersion(conv, id, { version: 1, update_type: 'upload', source: 'user_upload', content });
    const notes = [];
    if (id !== base) notes.push(`saved as "${id}" because "${base}" already exists`);
    if (!readable) notes.push(`its text could not be read (${reason}); the original file is kept`);
    return { ...res, artifact_id: id, title, content_type: readable ? type : 'binary', readable, note: notes.join('; ') };
  }

  /** Export's answer: the file as the backend would make it (html: the source in <pre>). */
  const exportFile = (conv, id, version, format) => {
    const a = find(conv, id);
    if (!a) return reject(`artifact not found: "${id}"`);
    const content = version === 0 ? a.content : listOf(conv, id).find((x) => x.version === version)?.content;
    if (content === undefined) return reject(`artifact not found: "${id}" has no stored version ${version}`);
    const stem = a.title.trim().replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, '').replace(/\s+/g, '_').replace(/^[_-]+|[_-]+$/g, '') || 'artifact';
    const kinds = {
      markdown: ['.md', 'text/markdown', enc.encode(content)],
      html: ['.html', 'text/html', enc.encode(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>${a.title}</title></head><body><pre>${content.replace(/</g, '&lt;')}</pre></body></html>`)],
      docx: ['.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', new Uint8Array([0x50, 0x4b, 0x03, 0x04, ...enc.encode(content)])],
    };
    const k = kinds[format];
    if (!k) return reject(`unknown export format "${format}": use markdown, html or docx`);
    const filename = stem + k[0];
    if (fake.exportSavedPath) {
      const path = fake.exportSavedPath;
      fake.exportSavedPath = null;
      return reply({ filename, mime: k[1], saved_path: path });
    }
    return reply({ filename, mime: k[1], data: b64(k[2]) });
  };

  const svc = window.go.app.ArtifactService;
  Object.assign(svc, {
    Versions: record('Versions', (conv, id) => {
      if (!find(conv, id)) return reject(`artifact not found: "${id}"`);
      // eslint-disable-next-line no-unused-vars
      return reply(listOf(conv, id).map(({ content, ...v }) => ({ ...v, message: v.message_id ? question(conv, v.message_id).slice(0, 80) : '' })));
    }),
    Version: record('Version', (conv, id, n) => {
      const v = listOf(conv, id).find((x) => x.version === n);
      return v ? reply({ ...v, message: '' }) : reject(`artifact not found: "${id}" has no version ${n}`);
    }),
    Save: record('Save', (conv, id, base, content) => edit(conv, id, base, content, 'user_edit')),
    Restore: record('Restore', (conv, id, version, base) => {
      const v = listOf(conv, id).find((x) => x.version === version);
      if (!v) return reject(`artifact not found: "${id}" has no version ${version}`);
      return edit(conv, id, base, v.content, 'restore');
    }),
    Export: record('Export', exportFile),
    // The fake's html export is the source in <pre>, so the diagrams change nothing here.
    ExportWithDiagrams: record('ExportWithDiagrams', (conv, id, version, format) => exportFile(conv, id, version, format)),
    Upload: record('Upload', (conv, files) => {
      if (!Array.isArray(files) || files.length === 0) return reply([]);
      if (!conv) {
        conv = `c-up-${++uploads}`;
        const now = new Date().toISOString();
        st.conversations.unshift({ id: conv, title: `Files: ${files[0].name}`.slice(0, 60), created_at: now, updated_at: now, running: false });
        st.messages[conv] = [];
        st.artifacts[conv] = [];
      } else if (!st.conversations.some((c) => c.id === conv)) {
        return reject('conversation not found');
      }
      return reply(files.map((f) => store(conv, f)));
    }),
    UploadPaths: record('UploadPaths', (conv, paths) =>
      reply(paths.map((p) => ({ name: p.split('/').pop(), conversation_id: conv, size: 0, readable: false, error: 'the fake backend cannot read files by path' }))),
    ),
  });
})();
