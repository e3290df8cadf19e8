package app

import (
	"artifactflow/backend/sources"
)

// Sources returns the conversation's numbered source list (issue 9): every search result,
// fetched page and local-file hit its agents saw, in number order, so the page can resolve
// the [n] citations of answers and reports. A conversation without sources, or an unknown
// one, gives an empty list.
func (s *ConversationService) Sources(conversationID string) ([]sources.Source, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	return s.core.db.Sources(ctx, conversationID)
}
