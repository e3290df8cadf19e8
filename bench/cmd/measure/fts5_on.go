//go:build sqlite_fts5

package main

// builtWithFTS5 reports whether this command was built with the sqlite_fts5 tag, which the
// 10,000-event fixture needs (the store's search migration creates an FTS5 table).
const builtWithFTS5 = true
