package engine

import (
	"context"

	"artifactflow/backend/localfiles"
	"artifactflow/backend/tools"
)

// LocalFiles is what a run needs of the conversation's local-file index: the search and
// read behind search_files and read_file, and Prepare, called once at the start of each
// run, which brings the index up to date within a bounded wait and says what it holds.
// *localfiles.Manager satisfies it.
type LocalFiles interface {
	tools.FileIndex
	Prepare(ctx context.Context, conversationID string) (localfiles.Summary, error)
}

// prepareFiles readies the local files of conversationID for a run: it returns files when
// the index holds any (nil otherwise: search_files and read_file are then not offered)
// and the text of the lead's <local_files> block ("" for none). A failure to prepare is
// logged and the run goes on without local files.
func (e *Engine) prepareFiles(ctx context.Context, conversationID string, files LocalFiles) (LocalFiles, string) {
	if files == nil {
		return nil, ""
	}
	s, err := files.Prepare(ctx, conversationID)
	if err != nil {
		if ctx.Err() == nil {
			e.cfg.Logger.Warn("local files unavailable for this run", "conversation", conversationID, "err", err)
		}
		return nil, ""
	}
	if s.Files == 0 {
		return nil, ""
	}
	return files, s.Describe()
}

// parseOnlyFiles stands in for a local-file index where tools are built only to read
// recorded calls back (parseTools): it is never searched.
type parseOnlyFiles struct{}

func (parseOnlyFiles) Search(context.Context, string, string, int) ([]localfiles.Hit, error) {
	return nil, nil
}

func (parseOnlyFiles) Read(context.Context, string, string, int, int) (localfiles.Excerpt, error) {
	return localfiles.Excerpt{}, nil
}

func (parseOnlyFiles) Prepare(context.Context, string) (localfiles.Summary, error) {
	return localfiles.Summary{}, nil
}
