package app

import (
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"

	"artifactflow/backend/config"
	"artifactflow/backend/netproxy"
)

// maxSettingsRevisions is how many versions of config.json a Core remembers by revision
// (SettingsView.Revision), so that Save can tell what a dialog opened on one of them was
// shown. A dialog opened before that many later versions falls back to the file as it is.
const maxSettingsRevisions = 16

// settingsRevision is one version of config.json as this process read or wrote it.
type settingsRevision struct {
	id string
	s  config.Settings
}

// storedSettings returns config.json's settings as they are on disk now (config.Load's,
// without flags or defaults) and the revision naming that version. The file is read again
// when its stamp (identity, size, time; one stat) differs from the version last read or
// written, or that version's stamp is not settled (it is less than a few seconds older
// than the file, so a same-size edit in place could keep it: config.FileStamp.Settled);
// so another process's save or the user's hand edit shows at the next call.
// When the file changed but cannot be read (broken by hand, or a hook Load refuses), the
// last version read stays in use and the error (config.ErrBadFile) comes with it; it is
// logged once per version of the file.
func (c *Core) storedSettings() (config.Settings, string, error) {
	stamp, err := config.Stamp(c.dataDir)
	c.cfgMu.Lock()
	defer c.cfgMu.Unlock()
	if err == nil && stamp.Same(c.cfgStamp) && c.cfgStamp.Settled() {
		return c.settings, c.cfgRevision, nil
	}
	s, read, err := config.LoadStamped(c.dataDir)
	if err != nil {
		if !c.cfgBadLogged || !stamp.Same(c.cfgBadStamp) {
			c.cfgBadLogged, c.cfgBadStamp = true, stamp
			c.log.Warn("config.json changed but cannot be used; the settings read before stay in use", "err", err)
		}
		return c.settings, c.cfgRevision, err
	}
	c.cfgBadLogged = false
	c.rememberSettings(s, read)
	return c.settings, c.cfgRevision, nil
}

// rememberSettings makes s, read or written as the version stamp of config.json, the
// current settings under a new revision (the same one when s equals the current settings).
// c.cfgMu must be held.
func (c *Core) rememberSettings(s config.Settings, stamp config.FileStamp) {
	c.cfgStamp = stamp
	if c.cfgRevision != "" && reflect.DeepEqual(s, c.settings) {
		return
	}
	c.cfgNext++
	c.settings, c.cfgRevision = s, fmt.Sprintf("%s.%d", c.instance, c.cfgNext)
	c.cfgRevisions = append(c.cfgRevisions, settingsRevision{id: c.cfgRevision, s: s})
	if over := len(c.cfgRevisions) - maxSettingsRevisions; over > 0 {
		c.cfgRevisions = slices.Delete(c.cfgRevisions, 0, over)
	}
}

// settingsAt returns the stored settings of revision rev; ok is false for "" and for a
// revision this process does not remember (another process's, or one too old).
func (c *Core) settingsAt(rev string) (s config.Settings, ok bool) {
	c.cfgMu.Lock()
	defer c.cfgMu.Unlock()
	for _, r := range c.cfgRevisions {
		if r.id == rev && rev != "" {
			return r.s, true
		}
	}
	return config.Settings{}, false
}

// updateSettings changes config.json through config.Update (under its lock across
// processes, over the file as it is now, writing only what change altered) and makes the
// result the current settings. Errors are config.Update's.
func (c *Core) updateSettings(change func(config.Settings) (config.Settings, error)) error {
	s, stamp, err := config.Update(c.dataDir, change)
	if err != nil {
		return err
	}
	c.cfgMu.Lock()
	c.rememberSettings(s, stamp)
	c.cfgMu.Unlock()
	return nil
}

// effective lays OPENAI_API_KEY (when set) over the stored settings' key, then the
// command-line flags over both, then fills defaults (Core.Settings).
func (c *Core) effective(stored config.Settings) config.Settings {
	if key := os.Getenv("OPENAI_API_KEY"); key != "" {
		stored.APIKey = key
	}
	return stored.Merge(c.overrides).WithDefaults()
}

// applyDialog returns cur, the settings in config.json now, with the changes the settings
// dialog made: every field whose value in in differs from what the dialog was shown, was
// (the effective settings of the version it opened on: SettingsView's values), set to in's
// value. A field the user left as shown is not written, so another process's or a hand
// edit's value of it stays. Typed keys are always changes (an empty one keeps the stored
// key); ClearAPIKey and SearchInput.ClearKeys remove keys. A field that a flag or
// OPENAI_API_KEY sets this session (src, Core.overrideSources) is never written: the
// dialog shows the flag's value, which must not reach config.json. Maps change entry by
// entry (a tool's permission, a model's context, a search key); nil parts of in (Search,
// Lead, SubAgents, ToolPermissions, the model call limits, MaxParallelToolCalls, Proxy)
// change nothing.
func applyDialog(cur, was config.Settings, in SettingsInput, src map[string]string) config.Settings {
	setString := func(field, typed, shown string, dst *string) {
		if src[field] == "" && typed != shown {
			*dst = typed
		}
	}
	setInt := func(typed, shown int, dst *int) {
		if typed != shown {
			*dst = typed
		}
	}
	setString("base_url", strings.TrimSpace(in.BaseURL), was.BaseURL, &cur.BaseURL)
	setString("model", strings.TrimSpace(in.Model), was.Model, &cur.Model)
	setString("tool_call_mode", in.ToolCallMode, was.ToolCallMode, &cur.ToolCallMode)
	setString("searxng_url", strings.TrimSpace(in.SearxngURL), was.SearxngURL, &cur.SearxngURL)
	if in.Proxy != nil {
		setString("proxy", netproxy.Normalize(*in.Proxy), netproxy.Redacted(was.Proxy), &cur.Proxy)
	}
	if src["allow_private_network"] == "" && in.AllowPrivateNetwork != was.AllowPrivateNetwork {
		cur.AllowPrivateNetwork = in.AllowPrivateNetwork
	}
	setInt(in.MaxUploadMB, was.MaxUploadMB, &cur.MaxUploadMB)
	setInt(in.PermissionTimeoutSeconds, was.PermissionTimeoutSeconds, &cur.PermissionTimeoutSeconds)
	shownImages := was.LoadRemoteImages
	if shownImages == "" {
		shownImages = config.LoadImagesAsk
	}
	setString("", in.LoadRemoteImages, shownImages, &cur.LoadRemoteImages)
	if in.ModelIdleTimeoutSeconds != nil {
		setInt(*in.ModelIdleTimeoutSeconds, was.ModelIdleTimeoutSeconds, &cur.ModelIdleTimeoutSeconds)
	}
	if in.MaxAnswerMB != nil {
		setInt(*in.MaxAnswerMB, was.MaxAnswerMB, &cur.MaxAnswerMB)
	}
	if in.MaxParallelToolCalls != nil {
		setInt(*in.MaxParallelToolCalls, was.MaxParallelToolCalls, &cur.MaxParallelToolCalls)
	}
	if src["api_key"] == "" {
		if key := strings.TrimSpace(in.APIKey); key != "" {
			cur.APIKey = key
		} else if in.ClearAPIKey {
			cur.APIKey = ""
		}
	}
	if in.ToolPermissions != nil {
		cur.ToolPermissions = changedEntries(cur.ToolPermissions, was.ToolPermissions, in.ToolPermissions)
	}
	// The context fields are the typed model's (in.Model; with no model, every model's
	// without its own), as the dialog showed them for it.
	model := strings.TrimSpace(in.Model)
	if shown := modelContextView(was, model); in.ContextWindow != shown.ContextWindow || in.CompactAtPercent != shown.CompactAtPercent {
		if model != "" {
			cur = cur.WithModelContext(model, config.ModelContext{ContextWindow: in.ContextWindow, CompactAtPercent: in.CompactAtPercent,
				Vision: cur.Models[model].Vision})
		} else {
			cur.ContextWindow, cur.CompactAtPercent = in.ContextWindow, in.CompactAtPercent
		}
	}
	// The vision switch is the typed model's too; a model that is not named has none.
	if in.Vision != nil && model != "" && *in.Vision != modelContextView(was, model).Vision {
		cur = cur.WithModelVision(model, *in.Vision)
	}
	if in.Search != nil {
		cur.Search = applySearch(cur.Search, was, *in.Search, src)
	}
	if in.Lead != nil {
		cur.Lead = applyAgent(cur.Lead, agentSettingsOf(was.Lead), *in.Lead, src["lead.model"] != "")
	}
	if in.SubAgents != nil {
		cur.SubAgents = applyAgent(cur.SubAgents, agentSettingsOf(was.SubAgents), *in.SubAgents, src["sub_agents.model"] != "")
	}
	return cur
}

// changedEntries returns cur with the entries in which typed differs from shown: set to
// typed's value, or removed when typed lacks a key shown had. cur is not modified.
func changedEntries(cur, shown, typed map[string]string) map[string]string {
	out := maps.Clone(cur)
	if out == nil {
		out = map[string]string{}
	}
	for k, v := range typed {
		if old, ok := shown[k]; !ok || old != v {
			out[k] = v
		}
	}
	for k := range shown {
		if _, ok := typed[k]; !ok {
			delete(out, k)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// applySearch lays the dialog's search input over the stored search settings cur:
// provider and Wikipedia's language where they differ from what was shown (was's provider
// in effect and language), keys cleared, then typed keys stored (empty ones keep the
// stored key). The provider and keys a flag sets (src) are left.
func applySearch(cur config.SearchSettings, was config.Settings, in SearchInput, src map[string]string) config.SearchSettings {
	if p := strings.ToLower(strings.TrimSpace(in.Provider)); src["search.provider"] == "" && p != was.SearchProvider() {
		cur.Provider = p
	}
	if lang := strings.TrimSpace(in.Language); lang != was.Search.Language {
		cur.Language = lang
	}
	for _, id := range in.ClearKeys {
		if src["search.keys."+id] == "" {
			cur = cur.WithKey(id, "")
		}
	}
	for _, id := range slices.Sorted(maps.Keys(in.Keys)) {
		if key := strings.TrimSpace(in.Keys[id]); key != "" && src["search.keys."+id] == "" {
			cur = cur.WithKey(id, key)
		}
	}
	return cur
}

// applyAgent returns cur, one agent's stored model settings, with each field in which
// typed differs from shown set to typed's; modelLocked keeps the model (a flag sets it).
// The agent's key changes only when one is typed (stored) or ClearAPIKey is set (removed).
func applyAgent(cur config.AgentModel, shown, typed AgentModelSettings, modelLocked bool) config.AgentModel {
	if m := strings.TrimSpace(typed.Model); !modelLocked && m != shown.Model {
		cur.Model = m
	}
	if u := strings.TrimSpace(typed.BaseURL); u != shown.BaseURL {
		cur.BaseURL = u
	}
	if key := strings.TrimSpace(typed.APIKey); key != "" {
		cur.APIKey = key
	} else if typed.ClearAPIKey {
		cur.APIKey = ""
	}
	if typed.ToolCallMode != shown.ToolCallMode {
		cur.ToolCallMode = typed.ToolCallMode
	}
	if typed.ContextWindow != shown.ContextWindow {
		cur.ContextWindow = typed.ContextWindow
	}
	if !sameFloat(typed.Temperature, shown.Temperature) {
		cur.Temperature = typed.Temperature
	}
	if !sameFloat(typed.TopP, shown.TopP) {
		cur.TopP = typed.TopP
	}
	if typed.MaxTokens != shown.MaxTokens {
		cur.MaxTokens = typed.MaxTokens
	}
	return cur
}

// sameFloat reports whether a and b are both unset or both set to one value.
func sameFloat(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}
