package app

import (
	"context"
	"encoding/json"
	"errors"
)

var errTODO = errors.New("not implemented yet")

// ChatService starts and stops research runs.
type ChatService struct{ core *Core }

// Send starts a research run for req and returns at once with its ids; progress arrives as
// RunEventName events. Errors: empty content, unknown conversation, a run already going in
// that conversation, missing model settings.
func (s *ChatService) Send(req SendRequest) (SendResult, error) { return SendResult{}, errTODO }

// Stop cancels the run going in conversationID; it is a no-op when none is.
func (s *ChatService) Stop(conversationID string) error { return errTODO }

// Running returns the ids of conversations with a run in progress.
func (s *ChatService) Running() []string { return nil }

// ConversationService lists, opens, renames and deletes conversations.
type ConversationService struct{ core *Core }

// List returns conversations, most recently updated first.
func (s *ConversationService) List() ([]ConversationSummary, error) { return nil, errTODO }

// Get returns a conversation and the messages on its active branch.
func (s *ConversationService) Get(id string) (ConversationDetail, error) {
	return ConversationDetail{}, errTODO
}

// Events returns the stored events of one message's run in seq order (the activity flow of
// a past answer).
func (s *ConversationService) Events(conversationID, messageID string) ([]json.RawMessage, error) {
	return nil, errTODO
}

// Rename sets a conversation's title.
func (s *ConversationService) Rename(id, title string) error { return errTODO }

// Delete removes a conversation and everything in it.
func (s *ConversationService) Delete(id string) error { return errTODO }

// ArtifactService reads artifacts.
type ArtifactService struct{ core *Core }

// List returns the artifacts of a conversation.
func (s *ArtifactService) List(conversationID string) ([]ArtifactSummary, error) {
	return nil, errTODO
}

// Get returns one artifact with its content.
func (s *ArtifactService) Get(conversationID, artifactID string) (ArtifactView, error) {
	return ArtifactView{}, errTODO
}

// SettingsService reads and saves the settings.
type SettingsService struct{ core *Core }

// Get returns the current settings.
func (s *SettingsService) Get() (SettingsView, error) { return SettingsView{}, errTODO }

// Save validates and stores settings.
func (s *SettingsService) Save(in SettingsInput) (SettingsView, error) {
	return SettingsView{}, errTODO
}

// Core holds the services' shared state.
type Core struct {
	ctx context.Context
}

// Bindings returns the services bound to the window.
func (c *Core) Bindings() []any {
	return []any{&ChatService{c}, &ConversationService{c}, &ArtifactService{c}, &SettingsService{c}}
}
