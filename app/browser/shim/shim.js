// Browser mode shim (contract in docs/ARCHITECTURE.md, "Contracts other code relies on"):
// defines window.go and window.runtime on top of the HTTP API of `artifactflow serve`, so
// the Wails-generated bindings and the whole frontend run unchanged in a plain browser.
// Served only by `serve`.
//
// Authorization: the URL printed by `serve` carries ?token=. This script, the first one the
// page runs, keeps the token in sessionStorage (this tab, this origin only), removes it from
// the address bar and sends it in the X-ArtifactFlow-Token header with every API request,
// including the event stream (read with fetch, since EventSource cannot send headers). No
// cookie is involved, so a page on another port of 127.0.0.1 has nothing to ride on.
(() => {
  "use strict";
  const TOKEN_HEADER = "X-ArtifactFlow-Token";
  const TOKEN_KEY = "artifactflow.token";
  // Kept before the page can replace window.open (frontend navigation guard).
  const nativeOpen = window.open.bind(window);

  const token = (() => {
    let stored = "";
    try { stored = sessionStorage.getItem(TOKEN_KEY) || ""; } catch { /* storage disabled */ }
    const url = new URL(location.href);
    const given = url.searchParams.get("token");
    if (given === null) return stored;
    try { sessionStorage.setItem(TOKEN_KEY, given); } catch { /* kept in memory only */ }
    url.searchParams.delete("token");
    history.replaceState(history.state, "", url.pathname + url.search + url.hash);
    return given;
  })();

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

  // handleBlock dispatches one server-sent event block ("data: {name, data}" lines).
  function handleBlock(block) {
    const data = block.split("\n").filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).replace(/^ /, "")).join("\n");
    if (data === "") return; // a comment such as ": ping"
    let msg;
    try { msg = JSON.parse(data); } catch { return; }
    dispatch(msg.name, [msg.data]);
  }

  // streamEvents reads GET /api/events until the stream ends.
  // Throws {status} when the server refuses the request.
  async function streamEvents() {
    const r = await fetch("/api/events", { headers: { [TOKEN_HEADER]: token, Accept: "text/event-stream" }, cache: "no-store" });
    if (!r.ok || !r.body) throw { status: r.status };
    dispatch("browser:connected", []);
    const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += value.replace(/\r\n?/g, "\n");
      let end;
      while ((end = buf.indexOf("\n\n")) >= 0) {
        handleBlock(buf.slice(0, end));
        buf = buf.slice(end + 2);
      }
    }
  }

  // Like EventSource: reconnect after the stream ends or fails, backing off to 10 s; the
  // page reloads from the store on each "browser:connected". A refused token (401/403)
  // will not get better by retrying: stop and say so.
  async function connect() {
    let delay = 500;
    for (;;) {
      try {
        await streamEvents();
        delay = 500;
      } catch (e) {
        if (e && (e.status === 401 || e.status === 403)) {
          console.error("ArtifactFlow: the event stream was refused: open the URL printed by `artifactflow serve`");
          return;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 10000);
    }
  }
  void connect();

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
    // Only web and mail links leave the app, in a new tab without an opener.
    BrowserOpenURL(url) {
      let u;
      try { u = new URL(String(url)); } catch { return; }
      if (u.protocol === "http:" || u.protocol === "https:" || u.protocol === "mailto:") nativeOpen(u.href, "_blank", "noopener,noreferrer");
    },
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
      headers: { "Content-Type": "application/json", [TOKEN_HEADER]: token },
      body: JSON.stringify(args),
    }).then(async (r) => {
      const body = await r.json().catch(() => null);
      // Like the window (whose ErrorFormatter is app.FormatBoundError), a bound method's
      // error rejects with an Error whose message is the AppError's JSON text; other
      // refusals reject with their message as a plain string.
      if (!r.ok && body && typeof body.code === "string" && typeof body.message === "string") {
        const { error: _text, ...appError } = body;
        throw new Error(JSON.stringify(appError));
      }
      if (!r.ok) throw (body && body.error) || `${r.status} ${r.statusText}`;
      return body;
    });
  }
  const proxy = (get) => new Proxy({}, { get: (_, key) => (typeof key === "string" ? get(key) : undefined) });
  window.go = proxy(() => proxy((service) => proxy((method) => (...args) => call(service, method, args))));
})();
