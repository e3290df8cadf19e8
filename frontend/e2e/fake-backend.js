// A minimal stand-in for the Go backend, for the Playwright UI check only (e2e/ui.mjs installs
// it with page.addInitScript before the app loads). It defines what the generated bindings and
// wailsjs/runtime call: window.go.app.<Service>.<Method> and window.runtime.Events*/BrowserOpenURL,
// and replays scripted research runs as "run:event" events shaped like backend/events/events.go
// and the engine's emission order (backend/engine/loop.go). Every call is recorded in
// window.__fake.calls for the test to assert on.
(() => {
  'use strict';
  const EVENT = 'run:event';
  const now = Date.now();
  const iso = (msAgo) => new Date(now - msAgo).toISOString();
  const HOUR = 3600e3;
  const DAY = 24 * HOUR;

  const calls = [];
  const listeners = new Map();
  const fake = {
    calls,
    /** Milliseconds per scripted tick; the test may change it. */
    tick: 45,
    /** When set, the next Send rejects with this string (as Wails does with a Go error). */
    failNextSend: null,
    /** When true, runs pause before the final answer until Stopped (for the Stop checks). */
    holdRuns: false,
  };
  window.__fake = fake;

  function emit(name, payload) {
    for (const l of [...(listeners.get(name) || [])]) {
      l.cb(payload);
      if (l.left > 0 && --l.left === 0) listeners.set(name, listeners.get(name).filter((x) => x !== l));
    }
  }
  const noop = () => {};
  window.runtime = {
    EventsOnMultiple(name, cb, max) {
      const l = { cb, left: max > 0 ? max : -1 };
      listeners.set(name, [...(listeners.get(name) || []), l]);
      return () => listeners.set(name, (listeners.get(name) || []).filter((x) => x !== l));
    },
    EventsOff(name, ...more) {
      for (const n of [name, ...more]) listeners.delete(n);
    },
    EventsOffAll() {
      listeners.clear();
    },
    EventsEmit(name, ...data) {
      emit(name, data[0]);
    },
    BrowserOpenURL(url) {
      calls.push({ service: 'runtime', method: 'BrowserOpenURL', args: [url] });
    },
    LogPrint: noop, LogTrace: noop, LogDebug: noop, LogInfo: noop, LogWarning: noop, LogError: noop, LogFatal: noop,
  };

  // ---------- stored data ----------
  const PLAN_DONE = `# Heat pump subsidies: Germany, France, Italy

- [✓] Find the current subsidy schemes in each country
- [✓] Read the official programme pages
- [✓] Compare amounts, eligibility and income rules
- [✓] Write the comparison report`;
  const REPORT_PAST = `# Heat pump subsidies in Germany, France and Italy

| | Germany | France | Italy |
|---|---|---|---|
| Programme | BEG EM (KfW 458) | MaPrimeRénov' | Ecobonus / Conto Termico |
| Base support | 30 % | flat amounts by income | 50–65 % tax credit |
| Income bonus | up to +30 % | built into the bands | none |

Germany pays the highest share for low-income households; France scales by income band; Italy works mostly through tax credits spread over ten years.`;

  const conversations = [
    { id: 'c-heat', title: 'Heat pump subsidies in Germany, France and Italy', created_at: iso(2 * DAY), updated_at: iso(2 * DAY - 3 * HOUR), running: false },
    { id: 'c-sqlite', title: 'SQLite vs DuckDB for a local analytics tool', created_at: iso(9 * DAY), updated_at: iso(9 * DAY), running: false },
    { id: 'c-fail', title: 'Latest EU AI Act implementation timeline', created_at: iso(12 * DAY), updated_at: iso(12 * DAY), running: false },
  ];
  const messages = {
    'c-heat': [
      {
        id: 'm-heat', parent_id: '', created_at: iso(2 * DAY), status: 'complete', error: '',
        content: 'How do European heat pump subsidies differ between Germany, France and Italy?',
        response: 'In short: **Germany** pays the largest share (30 % base, up to 70 % with bonuses), **France** pays flat amounts that depend on household income, and **Italy** relies on tax credits of 50–65 % spread over ten years.\n\nThe full comparison is in `research_report`.',
      },
    ],
    'c-sqlite': [
      {
        id: 'm-sqlite', parent_id: '', created_at: iso(9 * DAY), status: 'complete', error: '',
        content: 'Compare SQLite, DuckDB and PostgreSQL for a local analytics tool.',
        response: 'For a local analytics tool, **DuckDB** is the best default: columnar, vectorised, and embedded like SQLite.',
      },
    ],
    'c-fail': [
      {
        id: 'm-fail', parent_id: '', created_at: iso(12 * DAY), status: 'error',
        error: 'lead_agent: llm: 401 Unauthorized: invalid API key', response: '',
        content: 'What is the latest EU AI Act implementation timeline?',
      },
    ],
  };
  const artifacts = {
    'c-heat': [
      art('task_plan', 'Task plan', PLAN_DONE, 3, 'agent', iso(2 * DAY)),
      art('research_report', 'Heat pump subsidies compared', REPORT_PAST, 2, 'agent', iso(2 * DAY)),
      art('kfw_notes.pdf', 'kfw_notes.pdf', 'Notes from the KfW 458 leaflet.', 1, 'user_upload', iso(2 * DAY)),
    ],
    'c-sqlite': [],
    'c-fail': [],
  };
  const seqs = { 'c-heat': 0, 'c-sqlite': 0, 'c-fail': 0 };
  const stored = {}; // message id -> persisted events
  let settings = {
    base_url: 'http://localhost:11434/v1', api_key_set: true, model: 'qwen3:14b', tool_call_mode: 'native',
    searxng_url: 'http://localhost:8888', allow_private_network: false, data_dir: '/home/user/.config/ArtifactFlow',
    max_upload_mb: 20, max_upload_mb_limit: 256, proxy: '', proxy_source: 'direct', proxy_in_effect: '',
    search: { provider: 'searxng', keys_stored: [], language: '' },
    search_providers: [
      { id: 'duckduckgo', name: 'DuckDuckGo', needs_key: false, needs_url: false, key_url: '', key_stored: false },
      { id: 'wikipedia', name: 'Wikipedia', needs_key: false, needs_url: false, key_url: '', key_stored: false },
      { id: 'searxng', name: 'SearXNG', needs_key: false, needs_url: true, key_url: 'https://docs.searxng.org/admin/installation.html', key_stored: false },
      { id: 'tavily', name: 'Tavily', needs_key: true, needs_url: false, key_url: 'https://app.tavily.com/home', key_stored: false },
      { id: 'brave', name: 'Brave Search', needs_key: true, needs_url: false, key_url: 'https://api-dashboard.search.brave.com/app/keys', key_stored: false },
    ],
    search_ready: true, search_problem: '',
    lead: { model: '', tool_call_mode: '', context_window: 0, temperature: null, top_p: null, max_tokens: 0 },
    sub_agents: { model: '', tool_call_mode: '', context_window: 0, temperature: null, top_p: null, max_tokens: 0 },
  };
  // Keys the fake SettingsService holds (never sent to the page, as in the real one).
  const searchKeys = {};
  const providerNames = { duckduckgo: 'DuckDuckGo', wikipedia: 'Wikipedia', searxng: 'SearXNG', tavily: 'Tavily', brave: 'Brave Search' };
  const searchView = () => {
    const provider = settings.search.provider;
    const p = settings.search_providers.find((x) => x.id === provider);
    let problem = '';
    if (p?.needs_key && !searchKeys[provider]) problem = `web search is not configured: ${p.name} needs an API key: get one at ${p.key_url} and enter it in Settings → Search`;
    if (p?.needs_url && !settings.searxng_url) problem = 'web search is not configured: set the SearXNG URL in Settings or pass --searxng-url';
    settings = {
      ...settings,
      search: { ...settings.search, keys_stored: Object.keys(searchKeys).sort() },
      search_providers: settings.search_providers.map((x) => ({ ...x, key_stored: Boolean(searchKeys[x.id]) })),
      search_ready: problem === '', search_problem: problem,
    };
  };
  // For e2e/fake-artifacts.js (versions, edits, exports, uploads), which extends this fake.
  fake.state = { conversations, messages, artifacts, settings: () => settings, art, emit };

  function art(id, title, content, version, source, updated) {
    return {
      id, title, content, version, source, content_type: 'text/markdown', size: content.length,
      preview: content.slice(0, 200), updated_at: updated, unsaved: false,
    };
  }

  // A finished run stored for the past conversation (its activity flow loads lazily).
  (function storePastRun() {
    const ev = [];
    let seq = 0;
    const at = iso(2 * DAY);
    const add = (type, agent, data) => ev.push({ type, conversation_id: 'c-heat', message_id: 'm-heat', seq: ++seq, agent_name: agent, created_at: at, data });
    add('metadata', '', { content: messages['c-heat'][0].content, model: 'qwen3:14b', tool_call_mode: 'native' });
    add('agent_start', 'lead_agent', { round: 0 });
    add('llm_complete', 'lead_agent', { content: '', tool_calls: [{ id: 'p1', name: 'create_artifact', params: {} }], usage: { prompt_tokens: 1800, completion_tokens: 160, total_tokens: 1960 }, model: 'qwen3:14b', duration_ms: 2300 });
    add('agent_complete', 'lead_agent', { content: '', routing: 'tool_call' });
    add('tool_start', 'lead_agent', { call_id: 'p1', tool: 'create_artifact', params: { id: 'task_plan' } });
    add('tool_complete', 'lead_agent', { call_id: 'p1', tool: 'create_artifact', success: true, result: 'created', duration_ms: 3 });
    add('agent_start', 'lead_agent', { round: 1 });
    add('agent_complete', 'lead_agent', { content: '', routing: 'subagent', target: 'search_agent' });
    add('tool_start', 'lead_agent', { call_id: 'p2', tool: 'call_subagent', params: { agent_name: 'search_agent', instruction: 'Find the current heat pump subsidy programmes in DE, FR and IT.' } });
    add('subagent_instruction', 'lead_agent', { target: 'search_agent', instruction: 'Find the current heat pump subsidy programmes in DE, FR and IT.' });
    add('agent_start', 'search_agent', { round: 0, instruction: 'Find the current heat pump subsidy programmes in DE, FR and IT.' });
    add('agent_complete', 'search_agent', { content: '', routing: 'tool_call' });
    add('tool_start', 'search_agent', { call_id: 'p3', tool: 'web_search', params: { query: 'heat pump subsidy 2025 Germany France Italy' } });
    add('tool_complete', 'search_agent', { call_id: 'p3', tool: 'web_search', success: true, result: '1. BEG EM\n2. MaPrimeRénov\n3. Conto Termico\n4. Ecobonus', duration_ms: 1450 });
    add('agent_start', 'search_agent', { round: 1 });
    add('agent_complete', 'search_agent', { content: 'Found the four programmes.' });
    add('tool_complete', 'lead_agent', { call_id: 'p2', tool: 'call_subagent', success: true, result: 'Found the four programmes.', duration_ms: 5200 });
    add('agent_start', 'lead_agent', { round: 2 });
    add('agent_complete', 'lead_agent', { content: '', routing: 'tool_call' });
    add('tool_start', 'lead_agent', { call_id: 'p4', tool: 'create_artifact', params: { id: 'research_report' } });
    add('tool_complete', 'lead_agent', { call_id: 'p4', tool: 'create_artifact', success: true, result: 'created', duration_ms: 4 });
    add('agent_start', 'lead_agent', { round: 3 });
    add('agent_complete', 'lead_agent', { content: messages['c-heat'][0].response });
    add('complete', '', { response: messages['c-heat'][0].response, usage: { prompt_tokens: 21500, completion_tokens: 2900, total_tokens: 24400 }, duration_ms: 94000, steps: 4 });
    stored['m-heat'] = ev;
    seqs['c-heat'] = seq;
  })();

  // ---------- the scripted live run ----------
  const SEARCH_RESULTS = [
    '1. Solid-state batteries: sulfide, oxide and polymer electrolytes compared — https://example.org/review-2025',
    '2. Toyota and Idemitsu partner on sulfide solid electrolyte production — https://example.com/toyota-idemitsu',
    '3. QuantumScape ships B-samples of its oxide-ceramic separator cells — https://example.com/quantumscape-b-samples',
    '4. Polymer solid-state cells: Blue Solutions and the Bolloré bus fleet — https://example.net/blue-solutions',
    '5. Samsung SDI roadmap: all-solid-state batteries by 2027 — https://example.com/samsung-sdi-2027',
  ].join('\n');
  const PAGE = 'Solid-state batteries replace the liquid electrolyte with a solid one. '.repeat(120);
  const PLAN = (a, b, c, d) => `# Solid-state battery approaches

- [${a}] Search for recent overviews of solid-state electrolyte families
- [${b}] Read one in-depth review and note the leading companies
- [${c}] Write the report \`research_report\`
- [${d}] Answer with a short summary`;
  const REPORT = `# Solid-state batteries: approaches and leaders

## Sulfide electrolytes
Highest ionic conductivity; sensitive to moisture. **Toyota** (with Idemitsu) and **Samsung SDI** lead.

## Oxide ceramics
Stable and safe, but brittle and hard to manufacture thin. **QuantumScape** is the best-known player.

## Polymer electrolytes
Easiest to process but need warm operating temperatures. **Blue Solutions** has shipped them in buses for years.

Sources: [review](https://example.org/review-2025), [Toyota and Idemitsu](https://example.com/toyota-idemitsu).`;
  const ANSWER = `There are three main families of solid electrolytes, each with a different leader:

1. **Sulfide** electrolytes conduct ions best and are the focus of **Toyota** (with Idemitsu) and **Samsung SDI**, both aiming at cars around 2027–2028.
2. **Oxide** ceramics are the most stable; **QuantumScape** leads here and is shipping B-samples.
3. **Polymer** electrolytes are the easiest to make; **Blue Solutions** has used them in buses for years, at the cost of warm operating temperatures.

Sulfides look closest to mass-market cars. See the [2025 review](https://example.org/review-2025) and the full write-up in \`research_report\`.`;
  const usage = (p, c) => ({ prompt_tokens: p, completion_tokens: c, total_tokens: p + c });
  const split = (text, n) => text.match(new RegExp(`[\\s\\S]{1,${n}}`, 'g')) || [];

  /** The steps of one run: [ticks to wait, type, agent, data]. Chunks are split into deltas. */
  function script(question) {
    const s = [];
    const ev = (wait, type, agent, data) => s.push([wait, type, agent, data]);
    const stream = (agent, field, text, size = 6) => split(text, size).forEach((d) => ev(1, 'llm_chunk', agent, { [field]: d }));
    const artifact = (id, title, content, version, update) => ({ artifact: { id, content_type: 'text/markdown', title, content, version, source: 'agent', update_type: update } });
    const instrS = 'Find recent overviews of solid-state battery electrolyte families and the companies leading each.';
    const instrC = 'Read https://example.org/review-2025 and list the leading companies per approach.';

    ev(0, 'metadata', '', { content: question, model: 'qwen3:14b', tool_call_mode: 'native' });
    ev(2, 'agent_start', 'lead_agent', { round: 0 });
    stream('lead_agent', 'reasoning', 'The user wants the main solid-state battery approaches and who leads each. I should plan, search, read one review, then write a report.', 14);
    stream('lead_agent', 'content', "I'll lay out a plan first.");
    ev(2, 'llm_complete', 'lead_agent', { content: "I'll lay out a plan first.", tool_calls: [{ id: 'c1', name: 'create_artifact', params: { id: 'task_plan' } }], usage: usage(1650, 140), model: 'qwen3:14b', duration_ms: 2140 });
    ev(0, 'agent_complete', 'lead_agent', { content: "I'll lay out a plan first.", routing: 'tool_call' });
    ev(1, 'tool_start', 'lead_agent', { call_id: 'c1', tool: 'create_artifact', params: { id: 'task_plan', content_type: 'text/markdown', title: 'Task plan' } });
    ev(1, 'tool_complete', 'lead_agent', { call_id: 'c1', tool: 'create_artifact', success: true, result: '<artifact version="1"><id>task_plan</id> Created</artifact>', duration_ms: 3 });
    ev(0, 'artifact_changed', 'lead_agent', artifact('task_plan', 'Task plan', PLAN('✗', '✗', '✗', '✗'), 1, 'create'));

    ev(3, 'agent_start', 'lead_agent', { round: 1 });
    ev(4, 'llm_complete', 'lead_agent', { content: '', tool_calls: [{ id: 'c2', name: 'call_subagent', params: { agent_name: 'search_agent' } }], usage: usage(1900, 60), model: 'qwen3:14b', duration_ms: 1310 });
    ev(0, 'agent_complete', 'lead_agent', { content: '', routing: 'subagent', target: 'search_agent' });
    ev(1, 'tool_start', 'lead_agent', { call_id: 'c2', tool: 'call_subagent', params: { agent_name: 'search_agent', instruction: instrS } });
    ev(0, 'subagent_instruction', 'lead_agent', { target: 'search_agent', instruction: instrS });
    ev(1, 'agent_start', 'search_agent', { round: 0, instruction: instrS });
    ev(4, 'llm_complete', 'search_agent', { content: '', tool_calls: [{ id: 'c3', name: 'web_search', params: {} }], usage: usage(800, 40), model: 'qwen3:14b', duration_ms: 930 });
    ev(0, 'agent_complete', 'search_agent', { content: '', routing: 'tool_call' });
    ev(1, 'tool_start', 'search_agent', { call_id: 'c3', tool: 'web_search', params: { query: 'solid-state battery electrolyte sulfide oxide polymer leaders 2025', count: 5 } });
    ev(8, 'tool_complete', 'search_agent', { call_id: 'c3', tool: 'web_search', success: true, result: SEARCH_RESULTS, duration_ms: 1240 });
    ev(1, 'agent_start', 'search_agent', { round: 1 });
    stream('search_agent', 'content', 'Three families: sulfide (Toyota, Samsung SDI), oxide (QuantumScape), polymer (Blue Solutions).', 12);
    ev(1, 'llm_complete', 'search_agent', { content: 'Three families: sulfide (Toyota, Samsung SDI), oxide (QuantumScape), polymer (Blue Solutions).', usage: usage(1400, 90), model: 'qwen3:14b', duration_ms: 1620 });
    ev(0, 'agent_complete', 'search_agent', { content: 'Three families: sulfide (Toyota, Samsung SDI), oxide (QuantumScape), polymer (Blue Solutions).' });
    ev(0, 'tool_complete', 'lead_agent', { call_id: 'c2', tool: 'call_subagent', success: true, result: 'Three families: sulfide (Toyota, Samsung SDI), oxide (QuantumScape), polymer (Blue Solutions).', duration_ms: 4870 });

    ev(2, 'agent_start', 'lead_agent', { round: 2 });
    ev(3, 'llm_complete', 'lead_agent', { content: '', tool_calls: [{ id: 'c4', name: 'update_artifact', params: {} }], usage: usage(2300, 70), model: 'qwen3:14b', duration_ms: 980 });
    ev(0, 'agent_complete', 'lead_agent', { content: '', routing: 'tool_call' });
    ev(1, 'tool_start', 'lead_agent', { call_id: 'c4', tool: 'update_artifact', params: { id: 'task_plan', old_str: '- [✗] Search', new_str: '- [✓] Search' } });
    ev(1, 'tool_complete', 'lead_agent', { call_id: 'c4', tool: 'update_artifact', success: true, result: 'updated', duration_ms: 2 });
    ev(0, 'artifact_changed', 'lead_agent', artifact('task_plan', 'Task plan', PLAN('✓', '✗', '✗', '✗'), 2, 'update'));

    ev(2, 'agent_start', 'lead_agent', { round: 3 });
    ev(3, 'llm_complete', 'lead_agent', { content: '', tool_calls: [{ id: 'c5', name: 'call_subagent', params: {} }], usage: usage(2500, 60), model: 'qwen3:14b', duration_ms: 1150 });
    ev(0, 'agent_complete', 'lead_agent', { content: '', routing: 'subagent', target: 'crawl_agent' });
    ev(1, 'tool_start', 'lead_agent', { call_id: 'c5', tool: 'call_subagent', params: { agent_name: 'crawl_agent', instruction: instrC } });
    ev(0, 'subagent_instruction', 'lead_agent', { target: 'crawl_agent', instruction: instrC });
    ev(1, 'agent_start', 'crawl_agent', { round: 0, instruction: instrC });
    ev(3, 'llm_complete', 'crawl_agent', { content: '', tool_calls: [{ id: 'c6', name: 'web_fetch', params: {} }], usage: usage(700, 30), model: 'qwen3:14b', duration_ms: 640 });
    ev(0, 'agent_complete', 'crawl_agent', { content: '', routing: 'tool_call' });
    ev(1, 'tool_start', 'crawl_agent', { call_id: 'c6', tool: 'web_fetch', params: { url: 'https://example.org/review-2025' } });
    ev(8, 'tool_complete', 'crawl_agent', { call_id: 'c6', tool: 'web_fetch', success: true, result: PAGE, duration_ms: 2210 });
    ev(1, 'agent_start', 'crawl_agent', { round: 1 });
    ev(4, 'llm_complete', 'crawl_agent', { content: 'Sulfide: Toyota, Samsung SDI. Oxide: QuantumScape. Polymer: Blue Solutions.', usage: usage(3900, 80), model: 'qwen3:14b', duration_ms: 1870 });
    ev(0, 'agent_complete', 'crawl_agent', { content: 'Sulfide: Toyota, Samsung SDI. Oxide: QuantumScape. Polymer: Blue Solutions.' });
    ev(0, 'tool_complete', 'lead_agent', { call_id: 'c5', tool: 'call_subagent', success: true, result: 'Sulfide: Toyota, Samsung SDI. Oxide: QuantumScape. Polymer: Blue Solutions.', duration_ms: 3900 });

    ev(2, 'agent_start', 'lead_agent', { round: 4 });
    ev(4, 'llm_complete', 'lead_agent', { content: '', tool_calls: [{ id: 'c7', name: 'create_artifact', params: {} }], usage: usage(2900, 420), model: 'qwen3:14b', duration_ms: 5400 });
    ev(0, 'agent_complete', 'lead_agent', { content: '', routing: 'tool_call' });
    ev(1, 'tool_start', 'lead_agent', { call_id: 'c7', tool: 'create_artifact', params: { id: 'research_report', content_type: 'text/markdown', title: 'Solid-state batteries: approaches and leaders' } });
    ev(1, 'tool_complete', 'lead_agent', { call_id: 'c7', tool: 'create_artifact', success: true, result: 'created', duration_ms: 3 });
    ev(0, 'artifact_changed', 'lead_agent', artifact('research_report', 'Solid-state batteries: approaches and leaders', REPORT, 1, 'create'));
    ev(0, 'artifact_changed', 'lead_agent', artifact('task_plan', 'Task plan', PLAN('✓', '✓', '✓', '~'), 3, 'update'));

    ev(2, 'agent_start', 'lead_agent', { round: 5 });
    s.push(['hold']);
    stream('lead_agent', 'content', 'There are three main fam', 5);
    ev(1, 'llm_chunk', 'lead_agent', { reset: true }); // the stream broke and the call is retried
    stream('lead_agent', 'content', ANSWER, 7);
    ev(1, 'llm_complete', 'lead_agent', { content: ANSWER, usage: usage(3400, 380), model: 'qwen3:14b', duration_ms: 6100 });
    ev(0, 'agent_complete', 'lead_agent', { content: ANSWER });
    ev(1, 'complete', '', { response: ANSWER, usage: usage(21350, 1370), duration_ms: 38400, steps: 7 });
    return s;
  }

  const active = {}; // conversation id -> { stop(): void }

  function startRun(convId, msgId, question) {
    const steps = script(question);
    const events = (stored[msgId] = []);
    let i = 0;
    let timer = 0;
    const send = (type, agent, data) => {
      if (type !== 'llm_chunk') seqs[convId] += 1;
      const e = { type, conversation_id: convId, message_id: msgId, seq: seqs[convId], agent_name: agent || undefined, created_at: new Date().toISOString(), data };
      if (type !== 'llm_chunk') events.push(e);
      onStoreEvent(e);
      emit(EVENT, e);
    };
    const finish = () => {
      delete active[convId];
      clearTimeout(timer);
    };
    const next = () => {
      if (i >= steps.length) return finish();
      const step = steps[i++];
      if (step[0] === 'hold') {
        if (fake.holdRuns) return; // waits here until Stop
        return next();
      }
      const [wait, type, agent, data] = step;
      timer = setTimeout(() => {
        send(type, agent, data);
        if (type === 'complete') return finish();
        next();
      }, wait * fake.tick);
    };
    active[convId] = {
      stop() {
        clearTimeout(timer);
        setTimeout(() => {
          send('cancelled', '', { reason: 'stopped by the user', usage: usage(9100, 520), duration_ms: 12800, steps: 5 });
          finish();
        }, 60);
      },
    };
    next();
  }

  // Mirrors what the real engine persists, so Get/List/Events answer like the store.
  function onStoreEvent(e) {
    const conv = conversations.find((c) => c.id === e.conversation_id);
    const msg = (messages[e.conversation_id] || []).find((m) => m.id === e.message_id);
    if (e.type === 'artifact_changed') {
      const a = e.data.artifact;
      const list = artifacts[e.conversation_id];
      const row = { ...art(a.id, a.title, a.content, a.version, a.source, e.created_at), unsaved: true };
      const k = list.findIndex((x) => x.id === a.id);
      if (k >= 0) list[k] = row;
      else list.push(row);
    }
    if (e.type === 'complete' || e.type === 'cancelled' || e.type === 'error') {
      conv.running = false;
      conv.updated_at = e.created_at;
      msg.status = e.type;
      msg.response = e.data.response || '';
      msg.error = e.data.error || '';
      for (const a of artifacts[e.conversation_id]) a.unsaved = false;
    }
  }

  const reply = (v) => new Promise((res) => setTimeout(() => res(JSON.parse(JSON.stringify(v))), 5));
  const reject = (msg) => new Promise((_, rej) => setTimeout(() => rej(msg), 5));
  const record = (service, method, fn) => (...args) => {
    calls.push({ service, method, args });
    return fn(...args);
  };
  let counter = 0;

  window.go = {
    app: {
      ChatService: {
        Send: record('ChatService', 'Send', (req) => {
          if (fake.failNextSend) {
            const m = fake.failNextSend;
            fake.failNextSend = null;
            return reject(m);
          }
          const content = (req.content || '').trim();
          if (!content) return reject('message is empty');
          let convId = req.conversation_id;
          if (convId && active[convId]) return reject('a run is already in progress in this conversation');
          if (!convId) {
            convId = `c-new-${++counter}`;
            conversations.unshift({ id: convId, title: content.length > 60 ? content.slice(0, 57) + '…' : content, created_at: new Date().toISOString(), updated_at: new Date().toISOString(), running: false });
            messages[convId] = [];
            artifacts[convId] = [];
            seqs[convId] = 0;
          }
          const conv = conversations.find((c) => c.id === convId);
          if (!conv) return reject('conversation not found');
          const list = messages[convId];
          const msgId = `m-${++counter}`;
          list.push({ id: msgId, parent_id: list.length ? list[list.length - 1].id : '', content, response: '', status: 'running', error: '', created_at: new Date().toISOString() });
          conv.running = true;
          conv.updated_at = new Date().toISOString();
          const i = conversations.indexOf(conv);
          conversations.splice(i, 1);
          conversations.unshift(conv);
          setTimeout(() => startRun(convId, msgId, content), 0);
          return reply({ conversation_id: convId, message_id: msgId });
        }),
        Stop: record('ChatService', 'Stop', (id) => {
          active[id]?.stop();
          return reply(null);
        }),
        Running: record('ChatService', 'Running', () => reply(Object.keys(active))),
      },
      ConversationService: {
        List: record('ConversationService', 'List', () => reply(conversations)),
        Get: record('ConversationService', 'Get', (id) => {
          const conv = conversations.find((c) => c.id === id);
          return conv ? reply({ conversation: conv, messages: messages[id] }) : reject('conversation not found');
        }),
        Events: record('ConversationService', 'Events', (_c, m) => reply(stored[m] || null)),
        Rename: record('ConversationService', 'Rename', (id, title) => {
          const t = String(title).trim();
          if (!t || t.length > 200) return reject('title must be 1-200 characters');
          const conv = conversations.find((c) => c.id === id);
          if (conv) conv.title = t;
          return reply(null);
        }),
        Delete: record('ConversationService', 'Delete', (id) => {
          const i = conversations.findIndex((c) => c.id === id);
          if (i >= 0) conversations.splice(i, 1);
          return reply(null);
        }),
      },
      ArtifactService: {
        List: record('ArtifactService', 'List', (id) => reply((artifacts[id] || []).map((a) => ({ ...a, content: undefined })))),
        Get: record('ArtifactService', 'Get', (c, id) => {
          const a = (artifacts[c] || []).find((x) => x.id === id);
          return a ? reply(a) : reject(`artifact not found: "${id}"`);
        }),
      },
      SettingsService: {
        Get: record('SettingsService', 'Get', () => reply(settings)),
        Save: record('SettingsService', 'Save', (input) => {
          const problems = [];
          const http = (u) => /^https?:\/\/[^/]+/.test(u);
          if (input.base_url && !http(input.base_url)) problems.push('base_url: must be an absolute http(s) URL such as http://localhost:11434/v1');
          if (input.searxng_url && !http(input.searxng_url)) problems.push('searxng_url: must be an absolute http(s) URL such as http://localhost:8888');
          if (!['', 'native', 'xml'].includes(input.tool_call_mode)) problems.push(`tool_call_mode: "${input.tool_call_mode}" is not native or xml`);
          const mb = input.max_upload_mb ?? 0;
          if (!Number.isInteger(mb) || mb < 0 || mb > settings.max_upload_mb_limit) problems.push(`max_upload_mb: ${mb} is outside 1–${settings.max_upload_mb_limit}`);
          for (const kind of ['lead', 'sub_agents']) {
            const a = input[kind];
            if (a?.temperature != null && (a.temperature < 0 || a.temperature > 2)) problems.push(`${kind}.temperature: ${a.temperature} is outside 0–2`);
            if (a?.top_p != null && (a.top_p < 0 || a.top_p > 1)) problems.push(`${kind}.top_p: ${a.top_p} is outside 0–1`);
          }
          if (input.search && !(input.search.provider in providerNames)) problems.push(`search.provider: "${input.search.provider}" is not one of ${Object.keys(providerNames).join(', ')}`);
          if (problems.length) {
            // As the backend rejects (app.FormatBoundError): the AppError's JSON, fields by name.
            const fields = Object.fromEntries(problems.map((p) => [p.slice(0, p.indexOf(': ')), p.slice(p.indexOf(': ') + 2)]));
            return reject(new Error(JSON.stringify({ code: 'invalid_settings', message: `invalid settings: ${problems.join('; ')}`, fields })));
          }
          settings = {
            ...settings, base_url: input.base_url, model: input.model, tool_call_mode: input.tool_call_mode,
            searxng_url: input.searxng_url, allow_private_network: input.allow_private_network,
            max_upload_mb: input.max_upload_mb || 20,
            ...(input.proxy === undefined ? {} : { proxy: input.proxy, proxy_source: input.proxy === '' ? 'direct' : input.proxy === 'direct' ? 'direct' : 'setting', proxy_in_effect: input.proxy === 'direct' ? '' : input.proxy }),
            api_key_set: input.api_key ? true : input.clear_api_key ? false : settings.api_key_set,
          };
          if (input.search) {
            for (const id of input.search.clear_keys ?? []) delete searchKeys[id];
            Object.assign(searchKeys, input.search.keys ?? {});
            settings.search = { ...settings.search, provider: input.search.provider, language: input.search.language };
          }
          if (input.lead) settings.lead = { ...input.lead };
          if (input.sub_agents) settings.sub_agents = { ...input.sub_agents };
          searchView();
          return reply(settings);
        }),
        Presets: record('SettingsService', 'Presets', () =>
          reply([
            { name: 'OpenAI', base_url: 'https://api.openai.com/v1', example_model: 'gpt-4.1-mini', needs_key: true },
            { name: 'DeepSeek', base_url: 'https://api.deepseek.com/v1', example_model: 'deepseek-chat', needs_key: true },
            { name: 'Qwen (DashScope)', base_url: 'https://dashscope.aliyuncs.com/compatible-mode/v1', example_model: 'qwen-plus', needs_key: true },
            { name: 'Ollama', base_url: 'http://localhost:11434/v1', example_model: 'qwen3:8b', needs_key: false },
            { name: 'LM Studio', base_url: 'http://localhost:1234/v1', example_model: 'the loaded model', needs_key: false },
            { name: 'vLLM', base_url: 'http://localhost:8000/v1', example_model: 'the served model', needs_key: false },
          ]),
        ),
        // Ollama "serves" two models; any other endpoint is unreachable.
        ListModels: record('SettingsService', 'ListModels', (base) =>
          (base || settings.base_url).startsWith('http://localhost:11434')
            ? reply([{ id: 'llama3.1:8b', owned_by: 'library' }, { id: 'qwen3:14b', owned_by: 'library' }])
            : reject(`llm: GET ${base}/models: network error: dial tcp: lookup ${new URL(base).hostname}: no such host`),
        ),
        TestConnection: record('SettingsService', 'TestConnection', (base, _key, model) =>
          reply(
            model === 'missing'
              ? { ok: false, latency_ms: 0, error: `llm: POST ${base}/chat/completions: 404 Not Found: model "missing" not found, try pulling it first`, endpoint: `${base}/chat/completions`, model }
              : { ok: true, latency_ms: 312, error: '', endpoint: `${base}/chat/completions`, model },
          ),
        ),
        TestSearch: record('SettingsService', 'TestSearch', (provider, key) =>
          reply(
            (provider === 'tavily' || provider === 'brave') && !key && !searchKeys[provider]
              ? { ok: false, provider, results: 0, latency_ms: 0, error: `web search is not configured: ${providerNames[provider]} needs an API key` }
              : { ok: true, provider, results: 5, latency_ms: 380, error: '' },
          ),
        ),
      },
    },
  };
})();
