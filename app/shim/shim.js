// Browser mode shim (DESIGN.md, "Browser mode"): defines window.go and window.runtime on
// top of the HTTP API of `artifactflow serve`, so the Wails-generated bindings and the
// whole frontend run unchanged in a plain browser. Served only by `serve`.
(() => {
  "use strict";
  const listeners = new Map(); // event name -> array of {cb, left}

  function dispatch(name, args) {
    const list = listeners.get(name);
    if (!list) return;
    for (const l of [...list]) {
      try { l.cb(...args); } catch (e) { console.error("event listener failed", name, e); }
      if (l.left > 0 && --l.left === 0) off(name, l);
    }
  }
  function off(name, l) {
    const list = listeners.get(name);
    if (!list) return;
    const i = list.indexOf(l);
    if (i >= 0) list.splice(i, 1);
  }

  let source = null;
  function connect() {
    source = new EventSource("/api/events");
    source.onmessage = (m) => {
      let msg;
      try { msg = JSON.parse(m.data); } catch { return; }
      dispatch(msg.name, [msg.data]);
    };
    source.onopen = () => dispatch("browser:connected", []);
  }
  connect();

  const noop = () => {};
  window.runtime = {
    // Tells the page it runs in browser mode: dropped files arrive as HTML5 drop events
    // with File objects (uploaded with ArtifactService.Upload), not through OnFileDrop.
    __browserMode: true,
    EventsOnMultiple(name, cb, max) {
      const l = { cb, left: max > 0 ? max : -1 };
      if (!listeners.has(name)) listeners.set(name, []);
      listeners.get(name).push(l);
      return () => off(name, l);
    },
    EventsOff(name, ...more) { for (const n of [name, ...more]) listeners.delete(n); },
    EventsOffAll() { listeners.clear(); },
    EventsEmit(name, ...data) { dispatch(name, data); },
    BrowserOpenURL(url) { window.open(url, "_blank", "noopener,noreferrer"); },
    Environment() { return Promise.resolve({ buildType: "browser", platform: "web", arch: "" }); },
    WindowSetTitle(t) { document.title = t; },
    ClipboardSetText(t) { return navigator.clipboard.writeText(t).then(() => true, () => false); },
    ClipboardGetText() { return navigator.clipboard.readText(); },
    OnFileDrop: noop, OnFileDropOff: noop, CanResolveFilePaths() { return false; }, ResolveFilePaths: noop,
    LogPrint: noop, LogTrace: noop, LogDebug: noop, LogInfo: noop, LogWarning: noop, LogError: noop, LogFatal: noop,
    WindowReload() { location.reload(); }, WindowReloadApp() { location.reload(); },
    Quit: noop, Hide: noop, Show: noop,
  };

  function call(service, method, args) {
    return fetch(`/api/bind/${encodeURIComponent(service)}/${encodeURIComponent(method)}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(args),
    }).then(async (r) => {
      const body = await r.json().catch(() => null);
      // Like Wails, a Go error rejects with its message as a plain string.
      if (!r.ok) throw (body && body.error) || `${r.status} ${r.statusText}`;
      return body;
    });
  }
  const proxy = (get) => new Proxy({}, { get: (_, key) => (typeof key === "string" ? get(key) : undefined) });
  window.go = proxy(() => proxy((service) => proxy((method) => (...args) => call(service, method, args))));
})();
