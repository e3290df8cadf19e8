package app

import (
	"strings"

	"artifactflow/backend/declared"
	"artifactflow/backend/events"
)

// AddLink declares a link the user adds in the panel's "Links & files" (title and url),
// through the declared service exactly as any client input is (declared.Service.Upsert,
// strict: the same checks the local API applies, in one place: title 1–200 characters on
// one line without control characters or markup, url http or https only with a host, at
// most 8 KB, no control characters, userinfo dropped). It is declared with source
// "client" and no client id, a hold only the user can lift, in the clients' quota, so
// adding links can never evict the agent's links while they stay within theirs. An
// artifact_changed event ("created", or "updated" when the url was already declared, by the
// agent say: that artifact is kept, its title unchanged, and now retained by the user)
// reaches every window. Returns the artifact as stored (ID "" when the same link was
// already declared by the user and nothing changed). Errors: validation (AppError.Fields
// names "title" or "url" with the reason); not_found for an unknown conversation; store
// errors.
func (s *ArtifactService) AddLink(conversationID, title, url string) (events.DeclaredArtifact, error) {
	ctx, cancel := s.core.ctx()
	defer cancel()
	changes, err := s.core.Declared().Upsert(ctx, conversationID, []declared.Input{{
		Kind: declared.KindLink, Title: title, URL: url, Source: declared.SourceClient,
	}}, true)
	if err != nil {
		return events.DeclaredArtifact{}, err
	}
	for _, ch := range changes {
		if ch.Action != declared.ActionRemoved && ch.Artifact != nil {
			return *ch.Artifact, nil
		}
	}
	list, err := s.core.Declared().List(ctx, conversationID)
	if err != nil {
		return events.DeclaredArtifact{}, err
	}
	for _, a := range list {
		if a.URL == strings.TrimSpace(url) {
			return a, nil
		}
	}
	return events.DeclaredArtifact{}, nil
}
