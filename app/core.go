// Package app is the layer the window, the browser mode and the command line share: the
// four services bound to the page (ChatService in chat.go, ConversationService in
// conversations.go, ArtifactService in artifacts.go, SettingsService in settings.go), which
// validate input, call the backend and return plain structs (docs/ARCHITECTURE.md,
// "Layout"), and the Core they share. The command line (app/cli) and browser mode
// (app/browser) import it; it imports no Wails package, so it tests with plain `go test`;
// events leave through the EventSink interface.
package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/google/uuid"

	"artifactflow/app/localapi"
	"artifactflow/backend/config"
	"artifactflow/backend/declared"
	"artifactflow/backend/engine"
	"artifactflow/backend/events"
	"artifactflow/backend/llm"
	"artifactflow/backend/localfiles"
	"artifactflow/backend/mcp"
	"artifactflow/backend/store"
	"artifactflow/backend/toolcall"
	"artifactflow/backend/web"
)

// searchTimeout bounds one request of a web search provider.
const searchTimeout = 30 * time.Second

// ErrNoModel is returned when a run is asked for before a model is configured.
var ErrNoModel = errors.New("no model configured: set the model in Settings (or --model)")

// EventSink delivers run events to a UI: the Wails runtime in the window, SSE in browser
// mode, stdout/stderr on the command line. Emit must not block for long.
type EventSink interface {
	Emit(ev events.Event)
}

// SinkFunc adapts a function to EventSink.
type SinkFunc func(events.Event)

// Emit calls f(ev).
func (f SinkFunc) Emit(ev events.Event) { f(ev) }

// Options configure a Core. DataDir is required (see config.DataDir); Overrides are the
// command-line flags, laid over config.json.
type Options struct {
	DataDir   string
	Overrides config.Settings
	Logger    *slog.Logger
	// HeartbeatInterval is how often this process tells the database it is alive and looks
	// for runs a crashed process left running; 0 means DefaultHeartbeatInterval. A run whose
	// process has not beaten for 3 intervals is marked interrupted.
	HeartbeatInterval time.Duration
	// FollowOtherRuns relays to this Core's sinks the runs other processes on the same
	// data dir hold, as they write their events (the window and browser mode show a run
	// `artifactflow ask` started, and can stop it: ChatService.Stop); false for the
	// command line, whose output is its own run's.
	FollowOtherRuns bool
	// Suggest: after each complete run, the sub-agents' model writes two or three
	// follow-up questions and, after the first, the conversation's title (engine.Deps.Suggest;
	// see docs/ARCHITECTURE.md, "Titles and follow-up questions"). True for a UI (the window,
	// browser mode), false for the command line, where nobody would see them.
	Suggest bool
	// FollowInterval is how often this process looks for stop requests addressed to its
	// runs and, with FollowOtherRuns, for other processes' new events; 0 means
	// DefaultFollowInterval.
	FollowInterval time.Duration
}

// DefaultHeartbeatInterval is Options.HeartbeatInterval when unset.
const DefaultHeartbeatInterval = 2 * time.Second

// Core owns the database, the settings and the engine, and fans events out to sinks. One
// Core serves the window, browser mode or one CLI command.
type Core struct {
	dataDir   string
	overrides config.Settings
	log       *slog.Logger
	db        *store.DB
	eng       *engine.Engine
	declared  *declared.Service
	workspace func(ctx context.Context, conversationID string) (string, error)
	files     *localfiles.Manager // the local-file index's passes (workspace.go)
	mcp       *mcp.Manager        // the user's MCP servers (mcp.go); configured from the settings at each use
	// mcpTestWait bounds SettingsService.TestMCPServer (mcpTestWait by default; tests
	// shorten it).
	mcpTestWait time.Duration

	// cfgMu guards config.json's settings as this process last read or wrote them
	// (settings_file.go): settings (as stored, without flags or defaults), the version's
	// stamp and revision, the versions remembered by revision, and the stamp of a version
	// that could not be read (logged once).
	cfgMu        sync.Mutex
	settings     config.Settings
	cfgStamp     config.FileStamp
	cfgRevision  string
	cfgNext      int
	cfgRevisions []settingsRevision
	cfgBadStamp  config.FileStamp
	cfgBadLogged bool

	mu       sync.Mutex
	dialogs  Dialogs
	exported map[string]bool // paths Export saved to, for RevealExport (files.go)
	sinks    map[int]EventSink
	nextSink int
	// declaredSubs receive declared-artifact changes with their change-log seq.
	declaredSubs map[int]func(string, declared.LoggedChange)

	blobMu blobLock // uploads writing blobs/ vs deletion removing unused ones, across processes

	instance string        // this process in messages.owner and instances
	lock     *instanceLock // this process's locked file in InstancesDir; nil if it could not be taken
	beat     time.Duration // heartbeat interval
	stopBeat chan struct{} // closed by Close: ends heartbeat and watch
	beatDone chan struct{}

	follow      bool            // Options.FollowOtherRuns
	suggest     bool            // Options.Suggest
	followEvery time.Duration   // Options.FollowInterval
	watchDone   chan struct{}   // closed when watch returns
	followFrom  int64           // the newest event at NewCore, where watch starts relaying (-1: unknown)
	elsewhere   map[string]bool // under mu: conversations another process runs research in (follow.go)
	warm        *warmup         // under mu: the background warm-up (warmup.go), nil until StartWarmup
	closeOnce   sync.Once
}

// NewCore opens (creating if needed) the data directory and database, marks runs left
// running by a previous process as interrupted, removes what uploads killed mid-way left
// (sweepUploads), and starts the engine.
func NewCore(ctx context.Context, opts Options) (*Core, error) {
	if opts.DataDir == "" {
		return nil, errors.New("app: data dir is required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if err := opts.Overrides.Validate(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("app: create data dir %s: %w", opts.DataDir, err)
	}
	settings, stamp, err := config.LoadStamped(opts.DataDir)
	if err != nil {
		return nil, err
	}
	db, err := store.Open(ctx, filepath.Join(opts.DataDir, config.DBFile))
	if err != nil {
		return nil, err
	}
	if opts.HeartbeatInterval <= 0 {
		opts.HeartbeatInterval = DefaultHeartbeatInterval
	}
	c := &Core{dataDir: opts.DataDir, overrides: opts.Overrides, log: opts.Logger, db: db, mcpTestWait: mcpTestWait,
		sinks: map[int]EventSink{}, instance: uuid.NewString(), beat: opts.HeartbeatInterval,
		stopBeat: make(chan struct{}), beatDone: make(chan struct{}),
		follow: opts.FollowOtherRuns, suggest: opts.Suggest, followEvery: opts.FollowInterval, watchDone: make(chan struct{})}
	c.rememberSettings(settings, stamp)
	if c.followEvery <= 0 {
		c.followEvery = DefaultFollowInterval
	}
	c.blobMu.path, c.blobMu.log = filepath.Join(opts.DataDir, BlobLockFile), opts.Logger
	if err := db.Heartbeat(ctx, c.instance, os.Getpid()); err != nil {
		db.Close()
		return nil, err
	}
	if err := c.sweep(ctx); err != nil {
		db.Close()
		return nil, err
	}
	c.sweepUploads(ctx, time.Now())
	c.workspace = declared.DefaultWorkspace(db, opts.DataDir)
	c.declared = declared.New(db, declared.Options{Workspace: c.workspace, Publish: c.publishDeclared})
	if c.files, err = c.newFiles(); err != nil {
		db.Close()
		return nil, err
	}
	c.mcp = mcp.New(mcp.Options{LogDir: filepath.Join(opts.DataDir, MCPLogDir), Logger: opts.Logger,
		// Servers reached by URL go through the proxy setting, as model calls and searches do.
		HTTP: func() http.RoundTripper { return proxyClient(c.Settings(), 0).Transport }})
	c.mcp.Configure(settings.MCPServers)
	c.eng, err = engine.New(engine.Config{Store: db, Deps: c.deps, Sink: c.emit, Logger: opts.Logger, InstanceID: c.instance,
		ErrorCode: ErrorCode, RunStaleAfter: 3 * c.beat, // another process's run is live while sweep would not interrupt it
		OwnerProbe: ownerProbe(c.dataDir, c.instance), BlobsDir: filepath.Join(c.dataDir, config.BlobsDir)})
	if err != nil {
		db.Close()
		return nil, err
	}
	// Held until Close: while it is, other processes count this one's runs as live even
	// when its heartbeats are late (InstancesDir). Without it they fall back to the beats.
	if c.lock, err = holdInstanceLock(c.dataDir, c.instance); err != nil {
		c.log.Warn("could not take this process's lock file; other processes will judge its runs by heartbeat alone", "err", err)
	}
	c.startFollowing(ctx)
	go c.heartbeat()
	go c.watch()
	return c, nil
}

// sweep marks runs interrupted whose process stopped (killed, crashed, or closed without
// finishing them; its lock file says so, else its heartbeat): no run survives its process
// (docs/ARCHITECTURE.md, "Crash safety"). Then it removes the lock files of processes that
// are gone and forgotten (removeDeadInstanceLocks).
func (c *Core) sweep(ctx context.Context) error {
	staleBefore := time.Now().Add(-3 * c.beat)
	ids, err := c.db.InterruptOrphanedRuns(ctx, c.instance, staleBefore, ownerProbe(c.dataDir, c.instance))
	if err != nil {
		return err
	}
	if beats, err := c.db.InstanceBeats(ctx); err == nil {
		removeDeadInstanceLocks(c.dataDir, c.instance, beats, staleBefore)
	}
	if len(ids) > 0 {
		c.log.Warn("runs left running by a process that stopped were marked interrupted", "count", len(ids), "messages", ids)
	}
	return nil
}

// heartbeat beats and sweeps every c.beat until Close.
func (c *Core) heartbeat() {
	defer close(c.beatDone)
	t := time.NewTicker(c.beat)
	defer t.Stop()
	for {
		select {
		case <-c.stopBeat:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), c.beat)
			if err := c.db.Heartbeat(ctx, c.instance, os.Getpid()); err != nil {
				c.log.Warn("heartbeat failed", "err", err)
			} else if err := c.sweep(ctx); err != nil {
				c.log.Warn("sweep for interrupted runs failed", "err", err)
			}
			if err := c.eng.RetryReleases(ctx); err != nil {
				c.log.Warn("a run's claim on its conversation is still not released", "err", err)
			}
			cancel()
		}
	}
}

// Close stops every run (each writes its terminal event and flushes its artifacts), stops
// every MCP server (with what each started: mcp.Manager.Close), stops the heartbeat and the watch for other processes (follow.go) and closes the database. Calls after the first return nil.
func (c *Core) Close(ctx context.Context) error {
	var err error
	c.closeOnce.Do(func() {
		c.stopWarmup() // first: its child is killed, not waited for
		err = c.eng.Close(ctx)
		c.files.Close()   // after the runs, which may still be reading the index
		_ = c.mcp.Close() // after the runs, which may still be calling tools: no server outlives the app
		close(c.stopBeat)
		<-c.beatDone
		<-c.watchDone
		if rerr := c.db.RemoveInstance(context.WithoutCancel(ctx), c.instance); rerr != nil {
			c.log.Warn("could not deregister this process", "err", rerr)
		}
		c.lock.release(c.log) // after the runs have released their conversations
		err = errors.Join(err, c.db.Close())
	})
	return err
}

// Store returns the database, for the command line and tests.
func (c *Core) Store() *store.DB { return c.db }

// Engine returns the engine.
func (c *Core) Engine() *engine.Engine { return c.eng }

// DataDir returns the data directory.
func (c *Core) DataDir() string { return c.dataDir }

// Logger returns the logger the core was opened with (Options.Logger), for the command
// line and browser mode to log beside it.
func (c *Core) Logger() *slog.Logger { return c.log }

// Declared returns the declared-artifact store, shared by record_artifact, hooks, the local
// API, the command line and the panel.
func (c *Core) Declared() *declared.Service { return c.declared }

// Workspace returns the absolute path of a conversation's workspace folder: the folder the
// user chose for it, else <data-dir>/workspaces/<conversation-id> (declared.DefaultWorkspace).
// The folder may not exist yet. Errors: store.ErrNotFound (wrapped) for an unknown
// conversation.
func (c *Core) Workspace(ctx context.Context, conversationID string) (string, error) {
	return c.workspace(ctx, conversationID)
}

// publishDeclared hands a logged declared-artifact change to the subscribers of
// SubscribeDeclared (the local API's event streams, which resume by its Seq) and to every
// sink (emitArtifactChanged). A change a run made also reaches the sinks as that run's own
// event, for its history; the panel applies only this copy, which comes in log order.
func (c *Core) publishDeclared(conversationID string, ch declared.LoggedChange) {
	c.mu.Lock()
	subs := make([]func(string, declared.LoggedChange), 0, len(c.declaredSubs))
	for _, f := range c.declaredSubs {
		subs = append(subs, f)
	}
	c.mu.Unlock()
	for _, f := range subs {
		f(conversationID, ch)
	}
	c.emitArtifactChanged(conversationID, events.DataArtifactChanged{Action: ch.Action, ArtifactID: ch.ArtifactID, Reason: ch.Reason, Declared: ch.Artifact})
}

// emitArtifactChanged sends d to every sink as an artifact_changed event of the
// conversation with no message: the change happened outside any run (the user, the local
// API, a hook after the run, or the declared store's own copy of a run's change).
func (c *Core) emitArtifactChanged(conversationID string, d events.DataArtifactChanged) {
	data, err := json.Marshal(d)
	if err != nil {
		c.log.Error("app: encode an artifact change", "err", err)
		return
	}
	c.emit(events.Event{Type: events.ArtifactChanged, ConversationID: conversationID, CreatedAt: time.Now().UTC(), Data: data})
}

// SubscribeDeclared calls fn with every declared-artifact change of every conversation
// after it is logged, in log order, until the returned function is called. fn must not
// block.
func (c *Core) SubscribeDeclared(fn func(conversationID string, ch declared.LoggedChange)) (remove func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := c.nextSink
	c.nextSink++
	if c.declaredSubs == nil {
		c.declaredSubs = map[int]func(string, declared.LoggedChange){}
	}
	c.declaredSubs[id] = fn
	return func() {
		c.mu.Lock()
		delete(c.declaredSubs, id)
		c.mu.Unlock()
	}
}

// AddSink registers s for every event from now on and returns a function that removes it.
func (c *Core) AddSink(s EventSink) (remove func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := c.nextSink
	c.nextSink++
	c.sinks[id] = s
	return func() {
		c.mu.Lock()
		delete(c.sinks, id)
		c.mu.Unlock()
	}
}

func (c *Core) emit(ev events.Event) {
	if ev.MessageID != "" { // a run's event (changes made outside runs carry no message)
		c.noteActivity()
	}
	c.mu.Lock()
	sinks := make([]EventSink, 0, len(c.sinks))
	for _, s := range c.sinks {
		sinks = append(sinks, s)
	}
	c.mu.Unlock()
	for _, s := range sinks {
		s.Emit(ev)
	}
}

// Settings returns the effective settings: config.json as it is now (read again when
// another process or the user changed it; while a changed file cannot be read, the version
// read before), with OPENAI_API_KEY (when set) over its key, then the command-line flags
// over both, then defaults for what is still empty.
func (c *Core) Settings() config.Settings {
	s, _, _ := c.storedSettings() // the error is logged; the last good version is used
	return c.effective(s)
}

// deps builds the model and web clients for one run from the effective settings: the lead's
// model (Settings.Lead over the top-level model), the sub-agents' model (Settings.SubAgents
// over the top-level model, else the lead's), each with its tool-call mode, context and
// sampling, and each on its own endpoint (base URL and key: config.Settings.AgentEndpoint),
// the chosen search provider, and the agents the user defined in <data-dir>/agents/ as the
// files are now (userAgentDeps; a broken file is skipped with a warning in the run's
// metadata event). A provider that cannot be set up (a missing key or URL)
// does not stop the run: web_search answers with the reason, which the answer's footer
// reports. With MCP servers configured, the run's start adds their tools (mcpToolSource).
func (c *Core) deps() (engine.Deps, error) {
	s := c.Settings()
	subSettings := s.SubAgents
	lead, sub := s.Agent(s.Lead), s.Agent(subSettings)
	if lead.Model == "" {
		return engine.Deps{}, ErrNoModel
	}
	if sub.Model == "" { // only the lead's own model is set: the sub-agents run it where the lead does
		subSettings.Model = lead.Model
		if subSettings.BaseURL == "" && subSettings.APIKey == "" {
			subSettings.BaseURL, subSettings.APIKey = s.Lead.BaseURL, s.Lead.APIKey
		}
		sub = s.Agent(subSettings)
	}
	leadModel, err := c.agentModel(s, lead)
	if err != nil {
		return engine.Deps{}, fmt.Errorf("lead model: %w", err)
	}
	subModel, err := c.agentModel(s, sub)
	if err != nil {
		return engine.Deps{}, fmt.Errorf("sub-agents' model: %w", err)
	}
	d := engine.Deps{Model: leadModel.Model, ModelName: leadModel.Name, Mode: leadModel.Mode, LeadSampling: leadModel.Sampling,
		ContextWindow: leadModel.ContextWindow, CompactAt: leadModel.CompactAt, SubAgents: &subModel,
		Fetcher:     c.fetcher(s),
		Permissions: s.ToolPermissions, PermissionTimeout: time.Duration(s.PermissionTimeoutSeconds) * time.Second,
		MaxParallelToolCalls: s.MaxParallelToolCalls,
		Declared:             c.declared, Workspace: c.workspace, Hooks: s.Hooks, Files: c.files,
		Language: config.UILanguage(s.Language, os.Getenv), Suggest: c.suggest, Vision: s.VisionFor(leadModel.Name)}
	searcher, err := c.newSearcher(s, s.SearchProvider(), "", "")
	if err != nil {
		c.log.Warn("web search is not available", "provider", s.SearchProvider(), "err", err)
		searcher = failedSearcher{err: err}
	}
	d.Searcher = searcher
	if len(s.MCPServers) > 0 {
		d.ToolSource = mcpToolSource{c: c, servers: s.MCPServers}
	}
	c.userAgentDeps(s, subSettings, &d)
	return d, nil
}

// fetcher is web_fetch's fetcher for the effective settings s: the private-network guard
// as set, through the proxy in effect (proxyOf).
func (c *Core) fetcher(s config.Settings) *web.Fetcher {
	proxy, _ := proxyOf(s)
	return web.NewFetcher(web.FetcherConfig{AllowPrivate: s.AllowPrivateNetwork, Proxy: proxy})
}

// agentModel makes the client of one agent's model on that agent's endpoint (a.BaseURL
// with a.APIKey).
func (c *Core) agentModel(s config.Settings, a config.AgentChoice) (engine.AgentModel, error) {
	mode, err := toolcall.ParseMode(a.ToolCallMode)
	if err != nil {
		return engine.AgentModel{}, err
	}
	model, err := llm.New(ModelConfig(s, a, c.log))
	if err != nil {
		return engine.AgentModel{}, err
	}
	return engine.AgentModel{Model: model, Name: a.Model, Mode: mode, ContextWindow: a.ContextWindow,
		CompactAt: float64(a.CompactAtPercent) / 100, Sampling: sampling(a)}, nil
}

// ModelConfig is the llm client configuration for agent a's model (s.Agent's choice) on
// a's endpoint: a.BaseURL, a.APIKey (config.Settings.AgentEndpoint: the agent's own, else
// the top-level ones) and a.Model, with the settings' model call limits
// (ModelIdleTimeoutSeconds, the idle timeout in seconds, and MaxAnswerMB, the cap on one
// answer in MiB; 0 leaves llm's defaults), through the settings' proxy (Settings.Proxy;
// loopback endpoints never use one). Every client of a research model is made from
// it, the agents' and eval's judge alike, so a limit set in Settings holds for all of them.
func ModelConfig(s config.Settings, a config.AgentChoice, log *slog.Logger) llm.Config {
	return llm.Config{BaseURL: a.BaseURL, APIKey: a.APIKey, Model: a.Model, Logger: log, HTTPClient: proxyClient(s, 0),
		IdleTimeout:    time.Duration(s.ModelIdleTimeoutSeconds) * time.Second,
		MaxAnswerBytes: int64(s.MaxAnswerMB) << 20}
}

// sampling converts an agent's sampling settings for llm (unset stays unset).
func sampling(a config.AgentChoice) llm.Sampling {
	out := llm.Sampling{MaxTokens: a.MaxTokens}
	if a.Temperature != nil {
		v := float32(*a.Temperature)
		out.Temperature = &v
	}
	if a.TopP != nil {
		v := float32(*a.TopP)
		out.TopP = &v
	}
	return out
}

// MCPLogDir is the folder, in the data dir, of the MCP servers' logs (<name>.log).
const MCPLogDir = "logs/mcp"

// callTimeout bounds one bound-method call's database work.
const callTimeout = 30 * time.Second

// Bindings returns the services bound to the window and to browser mode, in a fixed order.
func (c *Core) Bindings() []any {
	s := c.Services()
	return []any{s.Chat, s.Conversations, s.Artifacts, s.Settings}
}

// Services are the four bound services of one Core, for Go callers (the command line,
// browser mode and their tests); Bindings lists the same services for the window.
type Services struct {
	Chat          *ChatService
	Conversations *ConversationService
	Artifacts     *ArtifactService
	Settings      *SettingsService
}

// Services returns the core's bound services.
func (c *Core) Services() Services {
	return Services{Chat: &ChatService{c}, Conversations: &ConversationService{c}, Artifacts: &ArtifactService{c},
		Settings: &SettingsService{c}}
}

func (c *Core) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), callTimeout)
}

// StartLocalAPI serves the core's declared artifacts on addr (package localapi; the window
// and browser mode run it) and writes <data-dir>/api.json; StopLocalAPI ends it. Requests
// are cancelled when ctx is done.
func (c *Core) StartLocalAPI(ctx context.Context, addr string) (*localapi.Running, error) {
	srv, err := localapi.New(localapi.Options{
		Declared:  c.declared,
		Subscribe: c.SubscribeDeclared,
		Logger:    c.log,
	})
	if err != nil {
		return nil, err
	}
	return localapi.Start(ctx, srv, addr, c.dataDir)
}

// apiStopWait bounds how long stopping the local API waits for requests in flight.
const apiStopWait = 5 * time.Second

// StopLocalAPI stops api and removes api.json (when still its own).
func (c *Core) StopLocalAPI(api *localapi.Running) {
	ctx, cancel := context.WithTimeout(context.Background(), apiStopWait)
	defer cancel()
	if err := api.Close(ctx); err != nil {
		c.log.Warn("local API: stop", "err", err)
	}
}
