// Conversation features of the fake backend, for e2e/ui-conversation.mjs only. Installed with
// addInitScript AFTER e2e/fake-backend.js, it wraps the window.go.app services that script
// defines: conversations of its own (a message tree with branches, a compacted conversation,
// a long one, one with recovered drafts, one for live runs) answer here; everything else is
// passed on to fake-backend.js. It adds the conversation features' bound methods:
// ChatService.Queue / Respond / Regenerate, Send with edit_of,
// ConversationService.SwitchBranch / Search / History, ArtifactService.Drafts / KeepDraft /
// DiscardDraft, and the context/tool settings. Runs it starts emit events shaped like
// backend/events/events.go, in the engine's order (tool_start, permission_request,
// permission_result, tool_complete; queued_message at once, user_input at the lead's next
// round). Calls are recorded in window.__fake.calls like fake-backend.js's.
(() => {
  'use strict';
  const EVENT = 'run:event';
  const base = window.go.app;
  const fake = window.__fake;
  const calls = fake.calls;
  const orig = {
    ChatService: { ...base.ChatService },
    ConversationService: { ...base.ConversationService },
    ArtifactService: { ...base.ArtifactService },
    SettingsService: { ...base.SettingsService },
  };
  const now = Date.now();
  const iso = (msAgo) => new Date(now - msAgo).toISOString();
  const HOUR = 3600e3;
  const DAY = 24 * HOUR;
  const clone = (v) => JSON.parse(JSON.stringify(v));
  const reply = (v) => new Promise((res) => setTimeout(() => res(v === undefined ? null : clone(v)), 5));
  const reject = (msg) => new Promise((_, rej) => setTimeout(() => rej(msg), 5));
  const record = (service, method, fn) => (...args) => {
    calls.push({ service, method, args: clone(args) });
    return fn(...args);
  };
  const emit = (e) => window.runtime.EventsEmit(EVENT, e);
  // Runtime calls the page may make that fake-backend.js does not define (no-ops here).
  for (const name of ['OnFileDrop', 'OnFileDropOff']) if (typeof window.runtime[name] !== 'function') window.runtime[name] = () => {};
  const usage = (p, c) => ({ prompt_tokens: p, completion_tokens: c, total_tokens: p + c });

  const ctl = {
    /** Permission wait of the next requests, in ms. */
    permTimeoutMs: 30_000,
    /** When true, runs wait before the final answer until release() (queue checks). */
    holdRuns: false,
    /** Ticks (ms) between scripted events. */
    tick: 40,
    /** How many pages the crawl agent of a live run fetches (web_fetch may ask first). */
    fetches: 4,
    /** Whether a run waits at its hold point (holdRuns). */
    isHolding() {
      return Object.values(active).some((r) => r.holding);
    },
    release() {
      for (const r of Object.values(active)) r.release?.();
    },
  };
  window.__fakeConv = ctl;

  // ---------- stored conversations ----------
  const convs = {}; // id -> {id, title, created_at, updated_at, running, leaf}
  const msgs = {}; // message id -> {id, conv, parent_id, content, response, status, error, created_at}
  const events = {}; // message id -> stored events
  const seqs = {}; // conversation id -> last seq
  const arts = {}; // conversation id -> artifacts
  const drafts = {}; // conversation id -> drafts
  let counter = 0;

  function conv(id, title, agoMs) {
    convs[id] = { id, title, created_at: iso(agoMs), updated_at: iso(agoMs), running: false, leaf: '' };
    seqs[id] = 0;
    arts[id] = [];
    drafts[id] = [];
  }
  function message(convId, id, parent, content, agoMs) {
    msgs[id] = { id, conv: convId, parent_id: parent, content, response: '', status: 'complete', error: '', created_at: iso(agoMs) };
    convs[convId].leaf = id;
    events[id] = [];
    return msgs[id];
  }
  function store(msgId, type, agent, data, agoMs) {
    const m = msgs[msgId];
    const e = { type, conversation_id: m.conv, message_id: msgId, seq: ++seqs[m.conv], agent_name: agent || undefined, created_at: iso(agoMs), data };
    events[msgId].push(e);
    return e;
  }
  /** A finished run stored for msgId: one search round and an answer; `extra(add)` adds events before the answer. */
  function pastRun(msgId, answer, { prompt = 6200, agoMs = DAY, extra } = {}) {
    const m = msgs[msgId];
    const add = (type, agent, data) => store(msgId, type, agent, data, agoMs);
    add('metadata', '', { content: m.content, model: 'qwen3:14b', tool_call_mode: 'native', parent_id: m.parent_id || undefined });
    add('agent_start', 'lead_agent', { round: 0 });
    add('llm_complete', 'lead_agent', { content: '', tool_calls: [{ id: `${msgId}-t1`, name: 'web_search', params: {} }], usage: usage(prompt - 900, 60), model: 'qwen3:14b', duration_ms: 1200 });
    add('agent_complete', 'lead_agent', { content: '', routing: 'tool_call' });
    add('tool_start', 'lead_agent', { call_id: `${msgId}-t1`, tool: 'web_search', params: { query: m.content.slice(0, 60) } });
    add('tool_complete', 'lead_agent', { call_id: `${msgId}-t1`, tool: 'web_search', success: true, result: '1. A source\n2. Another source', duration_ms: 800 });
    if (extra) extra(add);
    add('agent_start', 'lead_agent', { round: 1 });
    add('llm_complete', 'lead_agent', { content: answer, usage: usage(prompt, 420), model: 'qwen3:14b', duration_ms: 3100 });
    add('agent_complete', 'lead_agent', { content: answer });
    add('complete', '', { response: answer, usage: usage(prompt * 2 - 900, 480), duration_ms: 14_200, steps: 2 });
    m.response = answer;
    m.status = 'complete';
  }

  // A conversation with two answers to its first question (regenerated) and a follow-up.
  conv('c-branch', 'Grid storage: batteries or pumped hydro?', 3 * HOUR);
  message('c-branch', 'm-b1', '', 'Which grid storage technology scales best: lithium batteries or pumped hydro?', 3 * HOUR);
  pastRun('m-b1', 'Answer one: **pumped hydro** still holds over 90 % of the stored energy worldwide and scales best for long durations.', { agoMs: 3 * HOUR });
  message('c-branch', 'm-b1r', '', msgs['m-b1'].content, 2 * HOUR);
  pastRun('m-b1r', 'Answer two: **lithium batteries** scale fastest: they are built in months, not decades, and their cost fell 90 % in ten years.', { agoMs: 2 * HOUR });
  message('c-branch', 'm-b2', 'm-b1r', 'And what does each cost per stored kWh?', HOUR);
  pastRun('m-b2', 'Batteries cost about $150–300 per kWh of capacity; pumped hydro $50–150, but only where the terrain allows.', { prompt: 47_500, agoMs: HOUR });
  convs['c-branch'].updated_at = iso(HOUR);

  // A long conversation whose agent context was compacted (once successfully, once not).
  conv('c-compact', 'Microplastics in drinking water: the evidence', 5 * HOUR);
  message('c-compact', 'm-c1', '', 'What do we know about microplastics in drinking water?', 5 * HOUR);
  pastRun('m-c1', 'Microplastics are found in most tap and bottled water samples; concentrations vary by orders of magnitude between studies.', { prompt: 30_000, agoMs: 5 * HOUR });
  message('c-compact', 'm-c2', 'm-c1', 'Which studies measured bottled water?', 4 * HOUR);
  pastRun('m-c2', 'Mason et al. (2018) tested 259 bottles from 11 brands; 93 % contained microplastics.', {
    prompt: 44_000,
    agoMs: 4 * HOUR,
    extra: (add) => {
      add('compaction_start', 'search_agent', { tokens_before: 9_800, threshold: 8_000, window: 10_000, messages: 7 });
      add('compaction_summary', 'search_agent', { success: false, error: 'the model returned an empty summary', tokens_before: 9_800, usage: usage(9_800, 0), duration_ms: 2_100 });
    },
  });
  message('c-compact', 'm-c3', 'm-c2', 'Summarize the health risks for a general reader.', 3 * HOUR);
  (() => {
    const m = msgs['m-c3'];
    const add = (type, agent, data) => store('m-c3', type, agent, data, 3 * HOUR);
    const answer = 'The health risks are **not yet established**: the particles mostly pass through the body, and the doses in studies are far above what people drink.';
    add('metadata', '', { content: m.content, model: 'qwen3:14b', tool_call_mode: 'native', parent_id: 'm-c2' });
    add('compaction_start', 'lead_agent', { tokens_before: 41_200, threshold: 40_960, window: 51_200, messages: 14 });
    add('compaction_summary', 'lead_agent', {
      success: true, tokens_before: 41_200, tokens_after: 3_050, usage: usage(41_200, 900), duration_ms: 6_400,
      kept: m.content,
      summary: '## 1. Primary request and intent\nThe user asked “What do we know about microplastics in drinking water?” and then “Which studies measured bottled water?”.\n\n## 2. Artifacts and documents\n`research_report` holds the evidence table.\n\n## 3. Tool interactions\nTwo web searches; one page fetched (Mason et al. 2018).\n\n## 4. Errors and fixes\nNone.\n\n## 5. Pending tasks\nSummarize the health risks.\n\n## 6. Current work\nWriting the risk summary.\n\n## 7. Next step\nAnswer for a general reader.',
    });
    add('agent_start', 'lead_agent', { round: 0 });
    add('llm_complete', 'lead_agent', { content: answer, usage: usage(4_200, 380), model: 'qwen3:14b', duration_ms: 4_000 });
    add('agent_complete', 'lead_agent', { content: answer });
    add('complete', '', { response: answer, usage: usage(45_400, 1_280), duration_ms: 16_800, steps: 1 });
    m.response = answer;
  })();

  // A long conversation: 60 questions, 10 events each, for history paging.
  conv('c-long', 'Reading list: sixty questions on energy policy', 20 * DAY);
  (() => {
    let parent = '';
    for (let i = 1; i <= 60; i++) {
      const id = `m-l${String(i).padStart(2, '0')}`;
      message('c-long', id, parent, `Long question number ${i}: what changed in energy policy in year ${1964 + i}?`, 20 * DAY - i * HOUR);
      pastRun(id, `In ${1964 + i} the main change was policy number ${i}.`, { prompt: 2_000 + i * 100, agoMs: 20 * DAY - i * HOUR });
      parent = id;
    }
    convs['c-long'].updated_at = iso(19 * DAY);
  })();

  // A conversation whose last run was interrupted by a crash, with two recovered drafts.
  conv('c-drafts', 'Battery recycling rules in the EU', 6 * DAY);
  message('c-drafts', 'm-d1', '', 'What does the EU battery regulation require for recycling?', 6 * DAY);
  pastRun('m-d1', 'It sets recovery targets: 90 % of cobalt, nickel and copper by 2027, lithium 50 % by 2027 and 80 % by 2031.', { agoMs: 6 * DAY });
  message('c-drafts', 'm-d2', 'm-d1', 'Write a report comparing the targets with current recycling rates.', 5 * DAY);
  (() => {
    const add = (type, agent, data) => store('m-d2', type, agent, data, 5 * DAY);
    add('metadata', '', { content: msgs['m-d2'].content, model: 'qwen3:14b', tool_call_mode: 'native', parent_id: 'm-d1' });
    add('agent_start', 'lead_agent', { round: 0 });
    add('llm_complete', 'lead_agent', { content: '', tool_calls: [{ id: 'd1', name: 'create_artifact', params: {} }], usage: usage(5_100, 700), model: 'qwen3:14b', duration_ms: 9_000 });
    add('agent_complete', 'lead_agent', { content: '', routing: 'tool_call' });
    add('tool_start', 'lead_agent', { call_id: 'd1', tool: 'create_artifact', params: { id: 'recycling_report' } });
    add('tool_complete', 'lead_agent', { call_id: 'd1', tool: 'create_artifact', success: true, result: 'created', duration_ms: 4 });
    add('agent_start', 'lead_agent', { round: 1 });
    msgs['m-d2'].status = 'interrupted';
  })();
  arts['c-drafts'] = [
    { id: 'task_plan', title: 'Task plan', content_type: 'text/markdown', version: 1, source: 'agent', size: 60, preview: '# Plan', updated_at: iso(5 * DAY), unsaved: false, content: '# Plan\n\n- [✓] Find the targets\n- [✗] Compare' },
  ];
  drafts['c-drafts'] = [
    {
      artifact_id: 'recycling_report', message_id: 'm-d2', title: 'Recycling targets vs. reality', content_type: 'text/markdown',
      content: '# Recycling targets vs. reality\n\n| Metal | 2027 target | Today |\n|---|---|---|\n| Cobalt | 90 % | ~70 % |\n| Lithium | 50 % | < 5 % |\n\nLithium is furthest behind.',
      size: 0, base_version: 0, current_version: 0, question: msgs['m-d2'].content, saved_at: iso(5 * DAY - 60e3),
    },
    {
      artifact_id: 'task_plan', message_id: 'm-d2', title: 'Task plan', content_type: 'text/markdown',
      content: '# Plan\n\n- [✓] Find the targets\n- [✓] Find current rates\n- [✗] Compare', size: 0, base_version: 1, current_version: 1,
      question: msgs['m-d2'].content, saved_at: iso(5 * DAY - 60e3),
    },
  ];
  for (const d of drafts['c-drafts']) d.size = d.content.length;

  // A conversation for live runs (permissions, queued messages, edits).
  conv('c-live', 'EU battery passport requirements', 30 * 60e3);
  message('c-live', 'm-v1', '', 'What is the EU battery passport?', 30 * 60e3);
  pastRun('m-v1', 'A digital record for each industrial and EV battery from February 2027: origin, carbon footprint and recycled content.', { agoMs: 30 * 60e3 });

  let settingsExtra = {
    context_window: 0, effective_context_window: 64_000, compact_at_percent: 80,
    tool_permissions: { web_fetch: 'confirm', web_search: 'auto' }, permission_timeout_seconds: 30,
  };

  // ---------- tree helpers ----------
  const mine = (id) => Object.prototype.hasOwnProperty.call(convs, id);
  const children = (convId, parent) => Object.values(msgs).filter((m) => m.conv === convId && m.parent_id === parent).sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  function pathTo(leaf) {
    const out = [];
    for (let m = msgs[leaf]; m; m = msgs[m.parent_id]) out.unshift(m);
    return out;
  }
  function latestLeaf(id) {
    let m = msgs[id];
    for (;;) {
      const kids = children(m.conv, m.id);
      if (kids.length === 0) return m.id;
      m = kids[kids.length - 1];
    }
  }
  function view(m) {
    const sib = children(m.conv, m.parent_id).map((x) => x.id);
    return {
      id: m.id, parent_id: m.parent_id, content: m.content, response: m.response, status: m.status, error: m.error,
      created_at: m.created_at, sibling_ids: sib, sibling_index: sib.indexOf(m.id),
    };
  }
  const summary = (c) => ({ id: c.id, title: c.title, created_at: c.created_at, updated_at: c.updated_at, running: c.running, snippet: '' });
  const detail = (id) => ({ conversation: summary(convs[id]), messages: convs[id].leaf ? pathTo(convs[id].leaf).map(view) : [] });

  // ---------- live runs ----------
  const active = {}; // conversation id -> run controller

  /** The steps of a live run: [wait, kind, ...]. */
  function script(m) {
    const s = [];
    const ev = (wait, type, agent, data) => s.push({ wait, type, agent, data });
    const answer = `Here is what I found about “${m.content.slice(0, 60)}”: the passport covers origin, carbon footprint and recycled content, checked by the notified bodies.`;
    ev(0, 'metadata', '', { content: m.content, model: 'qwen3:14b', tool_call_mode: 'native', parent_id: m.parent_id || undefined });
    s.push({ input: true });
    ev(2, 'agent_start', 'lead_agent', { round: 0 });
    ev(3, 'llm_complete', 'lead_agent', { content: '', tool_calls: [{ id: 'v1', name: 'call_subagent', params: {} }], usage: usage(5_200, 80), model: 'qwen3:14b', duration_ms: 900 });
    ev(0, 'agent_complete', 'lead_agent', { content: '', routing: 'subagent', target: 'crawl_agent' });
    ev(1, 'tool_start', 'lead_agent', { call_id: 'v1', tool: 'call_subagent', params: { agent_name: 'crawl_agent', instruction: 'Read the official pages.' } });
    ev(0, 'subagent_instruction', 'lead_agent', { target: 'crawl_agent', instruction: 'Read the official pages.' });
    ev(1, 'agent_start', 'crawl_agent', { round: 0, instruction: 'Read the official pages.' });
    const urls = ['https://environment.ec.europa.eu/topics/waste-and-recycling/batteries_en', 'https://example.org/battery-passport-faq', 'https://example.com/gba-passport-pilot', 'https://example.net/passport-data-model'].slice(0, ctl.fetches);
    urls.forEach((url, i) => {
      const id = `f${i + 1}`;
      ev(2, 'llm_complete', 'crawl_agent', { content: '', tool_calls: [{ id, name: 'web_fetch', params: { url } }], usage: usage(1_200 + i * 900, 30), model: 'qwen3:14b', duration_ms: 500 });
      ev(0, 'agent_complete', 'crawl_agent', { content: '', routing: 'tool_call' });
      s.push({ fetch: { id, url } });
      if (i < urls.length - 1) ev(1, 'agent_start', 'crawl_agent', { round: i + 1 });
    });
    ev(1, 'agent_complete', 'crawl_agent', { content: 'Read the pages.' });
    ev(0, 'tool_complete', 'lead_agent', { call_id: 'v1', tool: 'call_subagent', success: true, result: 'Read the pages.', duration_ms: 4000 });
    s.push({ input: true });
    ev(1, 'agent_start', 'lead_agent', { round: 1 });
    s.push({ hold: true });
    s.push({ input: true, final: true });
    for (const piece of answer.match(/[\s\S]{1,12}/g)) ev(1, 'llm_chunk', 'lead_agent', { content: piece });
    ev(1, 'llm_complete', 'lead_agent', { content: answer, usage: usage(7_800, 260), model: 'qwen3:14b', duration_ms: 2_400 });
    ev(0, 'agent_complete', 'lead_agent', { content: answer });
    ev(1, 'complete', '', { response: answer, usage: usage(21_000, 900), duration_ms: 19_500, steps: 7 });
    return s;
  }

  function startRun(m) {
    const c = convs[m.conv];
    c.running = true;
    c.updated_at = new Date().toISOString();
    m.status = 'running';
    const steps = script(m);
    const r = { queue: [], closed: false, pending: {}, allowed: {}, timer: 0, holding: false, stopped: false };
    active[m.conv] = r;
    let i = 0;
    const send = (type, agent, data) => {
      if (r.stopped && !['cancelled', 'permission_result', 'tool_complete'].includes(type)) return;
      const seq = type === 'llm_chunk' ? seqs[m.conv] : ++seqs[m.conv];
      const e = { type, conversation_id: m.conv, message_id: m.id, seq, agent_name: agent || undefined, created_at: new Date().toISOString(), data };
      if (type !== 'llm_chunk') events[m.id].push(e);
      if (type === 'complete' || type === 'cancelled' || type === 'error') {
        m.status = type;
        m.response = data.response || '';
        c.running = false;
        c.updated_at = e.created_at;
        delete active[m.conv];
      }
      emit(e);
    };
    r.send = send;
    const later = (ticks, fn) => {
      r.timer = setTimeout(fn, ticks * ctl.tick);
    };
    const next = () => {
      if (r.stopped) return;
      if (i >= steps.length) return;
      const st = steps[i++];
      if (st.hold) {
        if (!ctl.holdRuns) return next();
        r.holding = true;
        r.release = () => {
          if (!r.holding) return;
          r.holding = false;
          next();
        };
        return;
      }
      if (st.input) {
        if (r.queue.length > 0) {
          const q = r.queue.splice(0);
          send('user_input', 'lead_agent', { ids: q.map((x) => x.id), content: q.map((x) => x.content).join('\n\n') });
        } else if (st.final) {
          r.closed = true;
        }
        return next();
      }
      if (st.fetch) {
        const { id, url } = st.fetch;
        send('tool_start', 'crawl_agent', { call_id: id, tool: 'web_fetch', params: { url } });
        const done = (ok, error) => later(2, () => {
          send('tool_complete', 'crawl_agent', ok
            ? { call_id: id, tool: 'web_fetch', success: true, result: 'Page text. '.repeat(40), duration_ms: 700 }
            : { call_id: id, tool: 'web_fetch', success: false, error, duration_ms: 5 });
          later(1, next);
        });
        if (settingsExtra.tool_permissions.web_fetch !== 'confirm' || r.allowed.web_fetch) return done(true);
        const rid = `req-${++counter}`;
        const timeout = ctl.permTimeoutMs;
        send('permission_request', 'crawl_agent', { request_id: rid, call_id: id, tool: 'web_fetch', params: { url }, timeout_ms: timeout });
        const decide = (decision) => {
          if (!r.pending[rid]) return;
          clearTimeout(r.pending[rid].timer);
          delete r.pending[rid];
          send('permission_result', 'crawl_agent', { request_id: rid, tool: 'web_fetch', decision });
          if (decision === 'always_allow') r.allowed.web_fetch = true;
          if (decision === 'approve' || decision === 'always_allow') done(true);
          else done(false, decision === 'timeout' ? 'the user did not answer in time' : 'the user denied this web_fetch call');
        };
        r.pending[rid] = { decide, timer: setTimeout(() => decide('timeout'), timeout) };
        return;
      }
      later(st.wait, () => {
        send(st.type, st.agent, st.data);
        next();
      });
    };
    r.stop = () => {
      clearTimeout(r.timer);
      for (const p of Object.values(r.pending)) p.decide('cancelled');
      r.stopped = true;
      setTimeout(() => send('cancelled', '', { reason: 'stopped by the user', usage: usage(6_000, 200), duration_ms: 5_000, steps: 3 }), 50);
    };
    setTimeout(next, 0);
  }

  function newMessage(convId, parent, content) {
    const id = `m-x${++counter}`;
    const m = message(convId, id, parent, content, 0);
    m.created_at = new Date().toISOString();
    m.status = 'running';
    m.response = '';
    return m;
  }

  // ---------- history and search ----------
  async function pathEvents(convId) {
    if (mine(convId)) {
      const c = convs[convId];
      return c.leaf ? pathTo(c.leaf).flatMap((m) => events[m.id]) : [];
    }
    const d = await orig.ConversationService.Get(convId);
    const lists = await Promise.all((d.messages || []).map((m) => orig.ConversationService.Events(convId, m.id)));
    return lists.flatMap((l) => l || []);
  }

  function page(all, req) {
    const lo = req.after_seq || 0;
    const hi = req.before_seq || 0;
    const limit = Math.min(req.limit || 200, 1000);
    const inRange = all.filter((e) => (lo === 0 || e.seq > lo) && (hi === 0 || e.seq < hi)).sort((a, b) => a.seq - b.seq);
    const backward = lo === 0 && (hi > 0 || req.latest);
    const evs = backward ? inRange.slice(-limit) : inRange.slice(0, limit);
    const first = evs.length ? evs[0].seq : 0;
    const last = evs.length ? evs[evs.length - 1].seq : 0;
    return {
      events: evs,
      first_seq: first,
      last_seq: last,
      has_before: evs.length ? all.some((e) => e.seq < first) : lo > 0 && all.some((e) => e.seq <= lo),
      has_after: evs.length ? all.some((e) => e.seq > last) : hi > 0 && all.some((e) => e.seq >= hi),
    };
  }

  const fold = (s) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
  function snippetOf(text, term) {
    const i = fold(text).indexOf(term);
    if (i < 0) return '';
    const start = Math.max(0, i - 40);
    const end = Math.min(text.length, i + term.length + 70);
    return `${start > 0 ? '…' : ''}${text.slice(start, end).replace(/\s+/g, ' ')}${end < text.length ? '…' : ''}`;
  }
  async function search(query) {
    const terms = (query.match(/"[^"]*"?|\S+/g) || []).map((t) => fold(t.replace(/"/g, ''))).filter(Boolean);
    const list = [...Object.values(convs).map(summary), ...(await orig.ConversationService.List())];
    if (terms.length === 0) return list.map((c) => ({ ...c, snippet: '' }));
    const hits = [];
    for (const c of list) {
      const texts = mine(c.id)
        ? Object.values(msgs).filter((m) => m.conv === c.id).flatMap((m) => [m.content, m.response])
        : ((await orig.ConversationService.Get(c.id)).messages || []).flatMap((m) => [m.content, m.response]);
      const all = [c.title, ...texts];
      if (!terms.every((t) => all.some((x) => fold(x).includes(t)))) continue;
      const inTitle = fold(c.title).includes(terms[0]);
      const where = texts.find((x) => fold(x).includes(terms[0])) || c.title;
      hits.push({ ...c, snippet: snippetOf(where, terms[0]), score: inTitle ? 2 : 1 });
    }
    hits.sort((a, b) => b.score - a.score);
    return hits.map((h) => ({ ...h, score: undefined }));
  }

  // ---------- the wrapped services ----------
  const C = base.ChatService;
  C.Send = record('ChatService', 'Send', (req) => {
    const convId = req.conversation_id;
    if (!convId || !mine(convId)) return orig.ChatService.Send(req);
    const content = (req.content || '').trim();
    if (!content) return reject('message is empty');
    if (active[convId]) return reject('busy: a run is already in progress in this conversation');
    let parent = convs[convId].leaf;
    if (req.edit_of) {
      const e = msgs[req.edit_of];
      if (!e || e.conv !== convId) return reject(`message_not_found: message "${req.edit_of}" is not in conversation "${convId}"`);
      parent = e.parent_id;
    }
    const m = newMessage(convId, parent, content);
    startRun(m);
    return reply({ conversation_id: convId, message_id: m.id });
  });
  C.Regenerate = record('ChatService', 'Regenerate', (convId, msgId) => {
    const e = msgs[msgId];
    if (!e || e.conv !== convId) return reject('message_not_found: no such message');
    if (active[convId]) return reject('busy: a run is already in progress in this conversation');
    const m = newMessage(convId, e.parent_id, e.content);
    startRun(m);
    return reply({ conversation_id: convId, message_id: m.id });
  });
  C.Queue = record('ChatService', 'Queue', (convId, content) => {
    const r = active[convId];
    if (r && !r.closed && !r.stopped) {
      const id = `q-${++counter}`;
      r.queue.push({ id, content });
      r.send('queued_message', 'lead_agent', { id, content });
      return reply({ queued: true, queued_id: id, run: { conversation_id: convId, message_id: '' } });
    }
    if (!mine(convId)) return reject('no run in progress to take the message');
    const m = newMessage(convId, convs[convId].leaf, content);
    startRun(m);
    return reply({ queued: false, run: { conversation_id: convId, message_id: m.id } });
  });
  C.Respond = record('ChatService', 'Respond', (convId, requestId, decision) => {
    const r = active[convId];
    if (!['approve', 'deny', 'always_allow'].includes(decision)) return reject('decision must be approve, deny or always_allow');
    if (!r) return reject('no run in progress to take the message');
    const p = r.pending[requestId];
    if (!p) return reject(`no such permission request: ${requestId}`);
    if (decision === 'always_allow') settingsExtra.tool_permissions = { ...settingsExtra.tool_permissions, web_fetch: 'auto' };
    setTimeout(() => p.decide(decision), 30);
    return reply(null);
  });
  C.Stop = record('ChatService', 'Stop', (convId) => {
    if (!mine(convId)) return orig.ChatService.Stop(convId);
    active[convId]?.stop();
    return reply(null);
  });
  C.Running = record('ChatService', 'Running', async () => [...(await orig.ChatService.Running()), ...Object.keys(active)]);

  const V = base.ConversationService;
  V.List = record('ConversationService', 'List', async () => {
    const all = [...Object.values(convs).map(summary), ...(await orig.ConversationService.List())];
    return all.sort((a, b) => b.updated_at.localeCompare(a.updated_at));
  });
  V.Get = record('ConversationService', 'Get', async (id) => {
    if (mine(id)) return reply(detail(id));
    const d = await orig.ConversationService.Get(id);
    return { ...d, messages: (d.messages || []).map((m) => ({ ...m, sibling_ids: [m.id], sibling_index: 0 })) };
  });
  V.Events = record('ConversationService', 'Events', (convId, msgId) => (mine(convId) ? reply(events[msgId] || null) : orig.ConversationService.Events(convId, msgId)));
  V.SwitchBranch = record('ConversationService', 'SwitchBranch', (convId, msgId) => {
    if (!mine(convId)) return reject('conversation not found');
    const m = msgs[msgId];
    if (!m || m.conv !== convId) return reject('message_not_found: no such message');
    convs[convId].leaf = latestLeaf(msgId);
    return reply(detail(convId));
  });
  V.History = record('ConversationService', 'History', async (convId, req) => clone(page(await pathEvents(convId), req || {})));
  V.Search = record('ConversationService', 'Search', async (q) => clone(await search(String(q))));
  V.Rename = record('ConversationService', 'Rename', (id, title) => {
    if (!mine(id)) return orig.ConversationService.Rename(id, title);
    convs[id].title = String(title).trim();
    return reply(null);
  });
  V.Delete = record('ConversationService', 'Delete', (id) => {
    if (!mine(id)) return orig.ConversationService.Delete(id);
    delete convs[id];
    return reply(null);
  });

  const A = base.ArtifactService;
  A.List = record('ArtifactService', 'List', (id) => (mine(id) ? reply(arts[id].map((a) => ({ ...a, content: undefined }))) : orig.ArtifactService.List(id)));
  A.Get = record('ArtifactService', 'Get', (c, id) => {
    if (!mine(c)) return orig.ArtifactService.Get(c, id);
    const a = arts[c].find((x) => x.id === id);
    return a ? reply(a) : reject(`artifact not found: "${id}"`);
  });
  A.Drafts = record('ArtifactService', 'Drafts', (c) => reply(mine(c) ? drafts[c] : []));
  A.KeepDraft = record('ArtifactService', 'KeepDraft', (c, artifactId, msgId) => {
    const list = drafts[c] || [];
    const d = list.find((x) => x.artifact_id === artifactId && x.message_id === msgId);
    if (!d) return reject(`not found: no recovered draft of "${artifactId}" from that run`);
    drafts[c] = list.filter((x) => x !== d);
    const existing = arts[c].find((x) => x.id === artifactId);
    const version = (existing?.version || 0) + 1;
    const row = { id: artifactId, title: d.title, content_type: d.content_type, version, source: 'agent', size: d.content.length, preview: d.content.slice(0, 200), updated_at: new Date().toISOString(), unsaved: false, content: d.content };
    if (existing) Object.assign(existing, row);
    else arts[c].push(row);
    return reply(row);
  });
  A.DiscardDraft = record('ArtifactService', 'DiscardDraft', (c, artifactId, msgId) => {
    drafts[c] = (drafts[c] || []).filter((x) => !(x.artifact_id === artifactId && x.message_id === msgId));
    return reply(null);
  });

  // Context settings per model, as SettingsService keeps them (a threshold per model).
  const modelCtx = {};
  const ctxOf = (model) => {
    const m = modelCtx[model] || {};
    const window = m.context_window || 0;
    return { model, context_window: window, effective_context_window: window || 64_000, compact_at_percent: m.compact_at_percent || 80 };
  };
  const S = base.SettingsService;
  S.Get = record('SettingsService', 'Get', async () => {
    const v = await orig.SettingsService.Get();
    const c = ctxOf(v.model);
    return { ...v, ...clone(settingsExtra), context_window: c.context_window, effective_context_window: c.effective_context_window, compact_at_percent: c.compact_at_percent };
  });
  S.ModelContext = record('SettingsService', 'ModelContext', (model) => reply(ctxOf(model.trim())));
  S.Save = record('SettingsService', 'Save', async (input) => {
    await orig.SettingsService.Save(input);
    const next = { ...settingsExtra };
    if (typeof input.permission_timeout_seconds === 'number') next.permission_timeout_seconds = input.permission_timeout_seconds || 120;
    if (input.tool_permissions) next.tool_permissions = { ...input.tool_permissions };
    settingsExtra = next;
    modelCtx[input.model] = { context_window: input.context_window || 0, compact_at_percent: input.compact_at_percent || 0 };
    return S.Get();
  });
})();
