// Package engine runs research: one run = one user message (docs/ARCHITECTURE.md, "What
// happens in a research run"). The loop builds the current agent's context, makes one
// streamed LLM call, parses its tool calls, executes all of them (concurrently where they
// touch no artifact; a call_subagent runs an instance of the sub-agent, whose final text
// returns to the lead as the tool result), records events, and repeats until the lead
// answers without a tool call, a round limit is hit, or the run is cancelled. Then it flushes the artifacts, saves
// the answer as the message's graph_response and writes one terminal event.
package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"artifactflow/backend/agent"
	"artifactflow/backend/artifact"
	"artifactflow/backend/config"
	"artifactflow/backend/declared"
	"artifactflow/backend/events"
	"artifactflow/backend/hooks"
	"artifactflow/backend/llm"
	"artifactflow/backend/sources"
	"artifactflow/backend/store"
	"artifactflow/backend/tokens"
	"artifactflow/backend/toolcall"
	"artifactflow/backend/tools"
)

// Sentinel errors callers branch on.
var (
	// ErrBusy: a run is already going in the conversation (one active run per conversation).
	ErrBusy = errors.New("a run is already in progress in this conversation")
	// ErrEmptyMessage: the question is empty.
	ErrEmptyMessage = errors.New("message is empty")
	// ErrConversationNotFound: Request.ConversationID names no conversation.
	ErrConversationNotFound = errors.New("conversation not found")
	// ErrClosed: the engine is shutting down.
	ErrClosed = errors.New("engine is closed")
)

// Deps are what a run talks to: the model and the web. They are resolved at the start of
// each run so settings changed in the window apply to the next run.
type Deps struct {
	Model     llm.Model
	ModelName string
	Mode      toolcall.Mode
	// Searcher and Fetcher may be nil: the web tools then answer with a clear error.
	Searcher tools.Searcher
	Fetcher  tools.Fetcher
	// ContextWindow is the model's context window in tokens; 0 means a default by model
	// name (tokens.ContextWindow). CompactAt is the share of it past which an agent's
	// context is compacted; 0 means DefaultCompactAt.
	ContextWindow int
	CompactAt     float64
	// LeadSampling is sent with every request of the lead agent (unset fields are not
	// sent). SubAgents is the model the sub-agents (search_agent, crawl_agent) call, with
	// its own tool-call mode, context window, compaction threshold and sampling; nil means
	// they call the lead's model as the lead does. See AgentModel.
	LeadSampling llm.Sampling
	SubAgents    *AgentModel
	// Permissions maps a tool name to PolicyConfirm when the user must approve each call;
	// other tools run at once (PolicyAuto). PermissionTimeout bounds the wait for the
	// decision (0 means DefaultPermissionTimeout); no decision counts as deny.
	Permissions       map[string]string
	PermissionTimeout time.Duration
	// MaxParallelToolCalls is how many calls of one reply may run at once (config
	// max_parallel_tool_calls): 1 runs them one at a time in call order; 0 means
	// DefaultMaxParallelToolCalls, above MaxParallelToolCallsLimit is clipped. Only calls
	// of read-only tools overlap (tools.ReadOnly); see execCalls.
	MaxParallelToolCalls int
	// Declared is the declared-artifact store. nil: the lead is not offered record_artifact
	// and what hooks declare is dropped (logged).
	Declared *declared.Service
	// Workspace returns the absolute path of a conversation's workspace folder (it may not
	// exist yet: it is created, mode 0700, before a hook runs in it). nil: hooks run in the
	// app's working directory and are told workspace "".
	Workspace func(ctx context.Context, conversationID string) (string, error)
	// Hooks are the user's hook commands (config.Hooks): PostToolUse after each tool call
	// of any agent, Stop after the run's terminal event. Entries Validate would refuse are
	// skipped with a warning. nil: no hooks.
	Hooks config.Hooks
	// Sources numbers the sources the tools find. nil, the normal case: each run records
	// into Store and emits source_added; a test may set its own.
	Sources sources.Recorder
	// Files is the conversations' local-file index; nil: no local files. At the start of
	// each run Files.Prepare brings the conversation's index up to date (a bounded wait);
	// when it holds files, search_agent is offered search_files, crawl_agent read_file, and
	// the lead's system prompt gets a <local_files> block saying what is there
	// (localfiles.Summary.Describe).
	Files LocalFiles
	// ExtraTools are tools from outside the app, added to each run's tools (a tool whose
	// name another tool has is left out); ExtraToolAgents maps an extra tool's name to the
	// agents it is offered to, besides each agent's own Tools list (an agent that names an
	// extra tool in its own Tools gets it too). ToolSource, when set, adds more of both at
	// the start of each run (the user's MCP servers' tools; see ToolSource), with their
	// permission policies laid over Permissions.
	ExtraTools      []tools.Tool
	ExtraToolAgents map[string][]string
	ToolSource      ToolSource
	// Language is the user's interface language, config.LanguageEnglish or
	// config.LanguageChinese ("" when unknown; config.UILanguage). The lead's system prompt
	// names it as the language to answer in when the question's own language is unclear.
	Language string
	// Vision tells whether the lead's model is sent the pictures of a question as image
	// parts (config.Settings.VisionFor); false keeps them with the question and tells the
	// user they were not shown to the model.
	Vision bool
	// UserAgents are the agents the user defined (package useragents: the valid files of
	// <data-dir>/agents/), resolved for each run so that a file saved meanwhile applies to
	// the next one. Each runs as a sub-agent beside the built-in ones: the lead sees it in
	// call_subagent's list and its <available_subagents> with its description; an instance
	// has its own memory, compaction and events like a built-in sub-agent's, the tools its
	// Tools name that the run offers (an MCP tool no server offers is left out, with a
	// warning), its MaxToolRounds and its model (Model "" = the sub-agents' model, else
	// AgentModels[Model]). An entry with a built-in agent's name, or a name already
	// taken, is skipped with a warning.
	UserAgents []agent.Config
	// AgentModels are the models UserAgents name (agent.Config.Model), by model name: the
	// sub-agents' endpoint, key and tool-call mode with that model name and its context
	// settings, as the app resolves them. A nil Model there, or a name missing from the
	// map, runs on the sub-agents' client with that model name, mode, compaction threshold
	// and sampling, and the context window known for the name.
	AgentModels map[string]AgentModel
	// Suggest: after a complete run, ask the sub-agents' model (the lead's when they have
	// none) for two or three follow-up questions and, while the conversation's title is the
	// one made from its question, a title (Engine.suggest; one call, bounded by
	// SuggestTimeout); a suggestions event carries them. The window and browser mode set it;
	// the command line, eval and MCP do not (nobody would see them).
	Suggest bool
	// Warnings are problems the run reports to the user in its metadata event
	// (events.DataMetadata.Warnings), one sentence each: an agent file that is skipped.
	Warnings []string
}

// Tool permission policies.
const (
	PolicyAuto    = "auto"
	PolicyConfirm = "confirm"
)

// DefaultPermissionTimeout is how long a confirm tool waits for the user by default.
const DefaultPermissionTimeout = 2 * time.Minute

// DefaultRunStaleAfter is Config.RunStaleAfter when unset: three of the app's default 2 s
// heartbeat intervals, the bound after which its sweep counts a process as gone.
const DefaultRunStaleAfter = 6 * time.Second

// Config wires the engine. Store and Deps are required.
type Config struct {
	Store *store.DB
	// Deps is called once per run, before anything is recorded; its error (for example
	// "no model configured") is returned by Start.
	Deps func() (Deps, error)
	// Agents defaults to agent.Defaults(); the first is the lead.
	Agents []agent.Config
	// Sink receives every event, llm_chunk included, in order, from the run goroutine. It
	// must not block for long.
	Sink func(events.Event)
	// InstanceID names this process in messages.owner (see store.Heartbeat), so another
	// process on the same data dir can tell a live run from one a crash left behind.
	InstanceID string
	// RunStaleAfter is how old another instance's heartbeat may be for its running message
	// in a conversation to count as a live run that makes Start refuse with ErrBusy (the
	// cross-process half of one run per conversation, store.StartRun); older, it is the
	// leftover of a process that stopped and is marked interrupted. 0 means
	// DefaultRunStaleAfter; set it to the sweep's bound (3 heartbeat intervals).
	RunStaleAfter time.Duration
	// OwnerProbe, when set, tells whether another instance is alive from something other
	// than its heartbeat (the app's per-process lock files, store.OwnerProbe): a process
	// whose beats are late because another process held the database for a long write
	// still counts as alive, and one whose lock is free as gone, whatever RunStaleAfter says.
	OwnerProbe store.OwnerProbe
	Now        func() time.Time
	Logger     *slog.Logger
	// ErrorCode, when set, names a failed run's error with a stable code for its terminal
	// error event (events.DataTerminal.Code; app.ErrorCode). Nil leaves the code empty.
	ErrorCode func(error) string
	// BlobsDir is the directory of the uploads' originals (named by their SHA-256), where
	// a question's pictures are read from to send them to a model that sees pictures. ""
	// leaves every picture unsent, with a warning.
	BlobsDir string
}

// Engine starts and tracks runs. It owns every run goroutine, and with it the run's Stop
// hooks: Close cancels both and waits for them.
type Engine struct {
	cfg    Config
	agents map[string]agent.Config
	lead   agent.Config
	// base is the parent of every run's Stop-hook context, which outlives the run's own
	// context; Close cancels it.
	base       context.Context
	cancelBase context.CancelFunc

	mu       sync.Mutex
	runs     map[string]*Run // by conversation id
	counters map[string]*tokens.Counter
	closed   bool
	wg       sync.WaitGroup

	// releaseRun is cfg.Store.ReleaseRun (tests replace it to make it fail).
	releaseRun func(ctx context.Context, id, owner string) error
	// unreleased holds the messages whose claim releaseClaim could not release, for
	// RetryReleases; guarded by mu.
	unreleased []string
}

// New returns an engine for cfg. Errors: a missing Store or Model.
func New(cfg Config) (*Engine, error) {
	if cfg.Store == nil || cfg.Deps == nil {
		return nil, errors.New("engine: Store and Deps are required")
	}
	if len(cfg.Agents) == 0 {
		cfg.Agents = agent.Defaults()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.RunStaleAfter <= 0 {
		cfg.RunStaleAfter = DefaultRunStaleAfter
	}
	e := &Engine{cfg: cfg, agents: map[string]agent.Config{}, lead: cfg.Agents[0], runs: map[string]*Run{},
		counters: map[string]*tokens.Counter{}, releaseRun: cfg.Store.ReleaseRun}
	e.base, e.cancelBase = context.WithCancel(context.Background())
	for _, a := range cfg.Agents {
		e.agents[a.Name] = a
	}
	return e, nil
}

// Request is one user message to run. ConversationID empty starts a new conversation;
// ParentID empty continues after the conversation's active branch, unless Root is set: then
// the message is a new root, a sibling of the conversation's first message (editing the
// first question starts a branch at the root).
//
// Images are the upload artifact ids of pictures attached to the question (uploaded into
// the conversation first; at most MaxImages): they are recorded with the message and sent
// to the lead's model as image parts when it sees pictures (Deps.Vision).
type Request struct {
	ConversationID string
	ParentID       string
	Content        string
	Root           bool
	Images         []string
}

// Result is the outcome of a finished run. Status is the terminal event type: complete,
// cancelled or error. Err is set unless Status is complete.
type Result struct {
	ConversationID string
	MessageID      string
	Status         events.Type
	Response       string
	Err            error
	FlushFailed    []string
	Usage          events.Usage
	Steps          int
	Duration       time.Duration
	// Web tallies the run's web_search and web_fetch calls (nil: none); Cited lists the
	// source numbers the answer cites, in order of first use.
	Web   *events.WebTally
	Cited []int
	// Cut is "length" or "content_filter" when the lead's final answer was cut off by the
	// output token limit or the provider's content filter (Response then ends with a note
	// saying so), else "".
	Cut string
}

// Run is one run in progress. Wait blocks until it has written its terminal event.
type Run struct {
	ConversationID string
	MessageID      string
	artifacts      *artifact.Manager
	cancel         context.CancelCauseFunc
	done           chan struct{}
	result         Result
	em             *emitter

	qmu         sync.Mutex
	queue       []events.DataQueuedMessage   // injected user messages not yet given to the lead
	queueClosed bool                         // the lead has answered: Inject must start a new run
	pending     map[string]pendingPermission // permission requests waiting, by request id

	hooks *hooks.Runner // the run's hooks; nil when none are set

	hmu         sync.Mutex
	finishing   bool               // the terminal event is written; Stop hooks may be running
	cancelStop  context.CancelFunc // cancels the Stop hooks; nil before they start
	cancelAfter context.CancelFunc // cancels the suggestions call; nil when none runs
	skipAfter   bool               // the suggestions call is not wanted (SkipSuggestions): never start it
}

// Wait blocks until the run has ended (its terminal event written and its Stop hooks
// finished) and returns its result, or returns ctx's error.
func (r *Run) Wait(ctx context.Context) (Result, error) {
	select {
	case <-r.done:
		return r.result, nil
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
}

// Done is closed when the run has ended: after its terminal event and its Stop hooks
// (each bounded by its timeout), once the conversation is free for the next run.
func (r *Run) Done() <-chan struct{} { return r.done }

// isFinishing reports whether the run has written its terminal event (only Stop hooks
// may still be running).
func (r *Run) isFinishing() bool {
	r.hmu.Lock()
	defer r.hmu.Unlock()
	return r.finishing
}

// Answered reports whether the run has written its terminal event: what remains (Stop
// hooks, the suggestions call) no longer makes the conversation look busy, and the next
// message waits for it instead of failing with ErrBusy.
func (r *Run) Answered() bool { return r.isFinishing() }

// stopHooks cancels the run's Stop hooks and its suggestions call if they are running.
func (r *Run) stopHooks() {
	r.hmu.Lock()
	defer r.hmu.Unlock()
	if r.cancelStop != nil {
		r.cancelStop()
	}
	r.stopAfterLocked()
}

// stopAfter cancels the run's suggestions call if it is running (the next run of the
// conversation is starting: its suggestions would be stale).
func (r *Run) stopAfter() {
	r.hmu.Lock()
	defer r.hmu.Unlock()
	r.stopAfterLocked()
}

// SkipSuggestions gives up the run's follow-up suggestions call: a running one is
// cancelled, and one not started yet never starts. A caller about to wait for Done before
// the conversation's next run calls it, since that run makes the suggestions stale.
func (r *Run) SkipSuggestions() { r.stopAfter() }

func (r *Run) stopAfterLocked() {
	r.skipAfter = true
	if r.cancelAfter != nil {
		r.cancelAfter()
	}
}

// startSuggest starts the suggestions call of a complete run (Deps.Suggest) beside its
// Stop hooks and returns a function that waits for it; a run that did not complete, or
// without Deps.Suggest, starts nothing.
func (e *Engine) startSuggest(r *Run, deps Deps, em *emitter, question string) (wait func()) {
	if !deps.Suggest || r.result.Status != events.Complete {
		return func() {}
	}
	ctx, cancel := context.WithCancel(e.base)
	r.hmu.Lock()
	if r.skipAfter { // the next run, Stop or a queued message came first
		r.hmu.Unlock()
		cancel()
		return func() {}
	}
	r.cancelAfter = cancel
	r.hmu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer cancel()
		e.suggest(ctx, r, deps, em, question)
	}()
	return func() { <-done }
}

// errStopped is the cancellation cause when the user stops a run.
var errStopped = errors.New("stopped by the user")

// Start records the user message and starts the run in the background. It returns once
// the run is registered (its metadata event written). The run stops when ctx is cancelled,
// on Stop, or on Close. When the conversation's previous run has ended but its Stop hooks
// are still running, Start waits for them (each is bounded by its timeout) or for ctx.
// Errors: ErrEmptyMessage, ErrConversationNotFound, ErrBusy (also when another process's
// run is live in the conversation: then it wraps a *store.RunLiveError too), ErrClosed,
// ctx's error, store errors.
func (e *Engine) Start(ctx context.Context, req Request) (*Run, error) {
	content := strings.TrimSpace(req.Content)
	if content == "" {
		return nil, ErrEmptyMessage
	}
	deps, err := e.cfg.Deps()
	if err != nil {
		return nil, err
	}
	if deps.Model == nil {
		return nil, errors.New("engine: no model configured")
	}
	if deps.Mode == "" {
		deps.Mode = toolcall.ModeNative
	}
	st := e.cfg.Store
	// The pictures are checked first: a question refused for them leaves no conversation.
	refs, err := e.imageRefs(ctx, req.ConversationID, req.Images)
	if err != nil {
		return nil, err
	}
	now := e.cfg.Now().UTC()
	convID := req.ConversationID
	parentID := req.ParentID
	if convID == "" {
		convID = uuid.NewString()
		if err := st.CreateConversation(ctx, store.Conversation{ID: convID, Title: titleFrom(content),
			TitleSource: store.TitleFromQuestion, CreatedAt: now, UpdatedAt: now}); err != nil {
			return nil, fmt.Errorf("engine: create conversation: %w", err)
		}
	} else {
		conv, err := st.GetConversation(ctx, convID)
		if errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("%w: %s", ErrConversationNotFound, convID)
		}
		if err != nil {
			return nil, fmt.Errorf("engine: open conversation: %w", err)
		}
		if parentID == "" && !req.Root {
			parentID = conv.ActiveBranch
		}
		if conv.TitleSource == store.TitleFromFiles { // files came first: the question names it
			if _, err := st.SetQuestionTitle(ctx, convID, titleFrom(content)); err != nil {
				return nil, fmt.Errorf("engine: title the conversation: %w", err)
			}
		}
	}

	hk := e.newHooks(deps)
	e.mu.Lock()
	for {
		if e.closed {
			e.mu.Unlock()
			return nil, ErrClosed
		}
		old, busy := e.runs[convID]
		if !busy {
			break
		}
		if !old.isFinishing() {
			e.mu.Unlock()
			return nil, ErrBusy
		}
		e.mu.Unlock()
		old.stopAfter() // its follow-up questions would be stale once this run starts
		select {        // the old run is unregistered before its done is closed
		case <-old.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		e.mu.Lock()
	}
	runCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	stopOnParent := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
	msgID := uuid.NewString()
	r := &Run{ConversationID: convID, MessageID: msgID, cancel: cancel, done: make(chan struct{}),
		artifacts: artifact.NewManager(st, convID, msgID), hooks: hk}
	e.runs[convID] = r
	e.wg.Add(1)
	e.mu.Unlock()

	unregister := func() {
		stopOnParent()
		cancel(nil)
		e.mu.Lock()
		delete(e.runs, convID)
		e.mu.Unlock()
	}
	release := func() {
		unregister()
		e.wg.Done()
	}
	// Claim the conversation across processes too: another process's live run there makes
	// this one refuse (its events would interleave with ours), a dead one's is interrupted.
	// The claim holds until releaseClaim, after the run's Stop hooks and last event.
	if err := st.StartRun(ctx, store.Message{ID: msgID, ConversationID: convID, ParentID: parentID,
		Content: content, ThreadID: convID, CreatedAt: now, UpdatedAt: now, Owner: e.cfg.InstanceID, Metadata: messageMetadata(refs)},
		store.Liveness{StaleAfter: e.cfg.RunStaleAfter, Probe: e.cfg.OwnerProbe}); err != nil {
		release()
		if errors.Is(err, store.ErrRunLive) {
			return nil, fmt.Errorf("%w: %w", ErrBusy, err)
		}
		return nil, fmt.Errorf("engine: save message: %w", err)
	}
	em, err := newEmitter(context.WithoutCancel(ctx), st, e.cfg.Sink, convID, msgID, e.cfg.Now)
	if err != nil {
		// The message is stored and claimed: end it and let the conversation go, or it
		// would stay running, and held against other processes, for this process's life.
		if ferr := st.FinishMessage(context.WithoutCancel(ctx), msgID, "", store.StatusError, err.Error()); ferr != nil {
			e.cfg.Logger.Warn("could not end a run that failed to start", "message", msgID, "err", ferr)
		}
		e.releaseClaim(msgID)
		release()
		return nil, err
	}
	r.em = em
	var warnings []string
	deps.UserAgents, warnings = e.userAgents(deps)
	if len(warnings) > 0 {
		e.cfg.Logger.Warn("user-defined agents: problems in this run", "conversation", convID, "warnings", warnings)
	}
	images, imageWarnings := e.questionImages(refs, deps.Vision, deps.ModelName)
	warnings = append(warnings, imageWarnings...)
	em.emit(runCtx, events.Metadata, "", events.DataMetadata{ParentID: parentID, Content: content,
		Model: deps.ModelName, Mode: string(deps.Mode), Warnings: warnings, Images: refs})
	go func() {
		defer e.wg.Done()
		defer close(r.done) // after unregister: a caller woken by Done may start the next run
		defer unregister()
		defer e.releaseClaim(msgID) // after the last event is written, Stop hooks' included
		defer em.close()
		r.result = e.execute(runCtx, r, deps, em, parentID, question{text: withImagesNote(content, refs), images: images})
		r.closeQueue()
		waitSuggest := e.startSuggest(r, deps, em, content)
		e.runStopHooks(r, deps, em)
		waitSuggest()
	}()
	return r, nil
}

// releaseClaim ends this process's claim on the conversation of message msgID
// (store.ReleaseRun): other processes may start runs there from now on. A failure is
// logged and kept for RetryReleases (the app calls it on every heartbeat); the next run
// this process starts in that conversation releases it too (store.StartRun).
func (e *Engine) releaseClaim(msgID string) {
	// Not under e.base: Close cancels it, and the claim must still be released then.
	ctx, cancel := context.WithTimeout(context.Background(), store.BusyTimeout+5*time.Second)
	defer cancel()
	if err := e.releaseRun(ctx, msgID, e.cfg.InstanceID); err != nil {
		e.cfg.Logger.Warn("could not release the run's claim on its conversation; will retry", "message", msgID, "err", err)
		e.mu.Lock()
		e.unreleased = append(e.unreleased, msgID)
		e.mu.Unlock()
	}
}

// RetryReleases tries again to release the claims releaseClaim could not (a locked or
// full disk), so a conversation does not stay claimed against other processes for the
// rest of this process's life. Those that fail again are kept for the next call; the
// error is the first failure, nil when none is left.
func (e *Engine) RetryReleases(ctx context.Context) error {
	e.mu.Lock()
	ids := e.unreleased
	e.unreleased = nil
	e.mu.Unlock()
	var first error
	var failed []string
	for _, id := range ids {
		if err := e.releaseRun(ctx, id, e.cfg.InstanceID); err != nil {
			failed = append(failed, id)
			if first == nil {
				first = fmt.Errorf("engine: release the claim of message %s: %w", id, err)
			}
		}
	}
	if len(failed) > 0 {
		e.mu.Lock()
		e.unreleased = append(e.unreleased, failed...)
		e.mu.Unlock()
	}
	return first
}

// Ask runs req to its end and returns the result; Result.Err tells why a run did not
// complete. The error return is for runs that could not start.
func (e *Engine) Ask(ctx context.Context, req Request) (Result, error) {
	r, err := e.Start(ctx, req)
	if err != nil {
		return Result{}, err
	}
	<-r.done
	return r.result, nil
}

// Stop cancels the run going in conversationID and reports whether there was one. The
// run ends with a cancelled event after flushing its artifacts, then runs its Stop hooks;
// a run that has already ended has its running Stop hooks cancelled instead.
func (e *Engine) Stop(conversationID string) bool {
	e.mu.Lock()
	r := e.runs[conversationID]
	e.mu.Unlock()
	if r == nil {
		return false
	}
	r.cancel(errStopped)
	r.stopHooks()
	return true
}

// Active returns the run going in conversationID, or nil.
func (e *Engine) Active(conversationID string) *Run {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.runs[conversationID]
}

// Artifacts returns the run's write-back cache, for reads that must see unflushed edits.
func (r *Run) Artifacts() *artifact.Manager { return r.artifacts }

// Running returns the ids of conversations with a run in progress.
func (e *Engine) Running() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	ids := make([]string, 0, len(e.runs))
	for id := range e.runs {
		ids = append(ids, id)
	}
	return ids
}

// Close stops accepting runs, cancels those in progress and any Stop hooks running (a
// hook is killed), and waits until each run has written its terminal event and its hooks
// have exited, or until ctx ends.
func (e *Engine) Close(ctx context.Context) error {
	e.mu.Lock()
	e.closed = true
	e.cancelBase()
	for _, r := range e.runs {
		r.cancel(ErrClosed)
	}
	e.mu.Unlock()
	done := make(chan struct{})
	go func() { e.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("engine: close: %w", ctx.Err())
	}
}
