// Package dbtest holds database checks the tests of app's packages share.
package dbtest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"artifactflow/backend/store"
)

// RowCounts returns "table=n " for every table of db (sqlite_ internals aside), in name
// order, read in one statement: a fingerprint to compare before and after a request that
// must change nothing. It fails the test on a database error.
func RowCounts(t testing.TB, db *store.DB) string {
	t.Helper()
	ctx := context.Background()
	names, err := db.SQL().QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var tables, counts []string
	for names.Next() {
		var n string
		if err := names.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
		counts = append(counts, `(SELECT count(*) FROM "`+strings.ReplaceAll(n, `"`, `""`)+`")`)
	}
	if err := names.Close(); err != nil {
		t.Fatal(err)
	}
	ns := make([]int64, len(tables))
	ptrs := make([]any, len(tables))
	for i := range ns {
		ptrs[i] = &ns[i]
	}
	if err := db.SQL().QueryRowContext(ctx, "SELECT "+strings.Join(counts, ", ")).Scan(ptrs...); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i, name := range tables {
		fmt.Fprintf(&b, "%s=%d ", name, ns[i])
	}
	return b.String()
}
