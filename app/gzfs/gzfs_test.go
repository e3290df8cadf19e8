package gzfs

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

func gz(s string) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	_, _ = zw.Write([]byte(s))
	_ = zw.Close()
	return b.Bytes()
}

var page = "<!doctype html><html><head></head><body>" + strings.Repeat("app ", 500) + "</body></html>"

func tree() fstest.MapFS {
	return fstest.MapFS{
		".gitkeep":               {Data: nil},
		"index.html.gz":          {Data: gz(page)},
		"assets/index-abc.js.gz": {Data: gz("console.log('hi');")},
		"assets/style.css.gz":    {Data: gz("body{margin:0}")},
		"assets/broken.js.gz":    {Data: []byte("not gzip")},
	}
}

// TestFSPlainView: names without .gz, the decompressed bytes, consistent Stat and ReadDir
// (testing/fstest), hidden raw and non-.gz files, and a clear error for a broken file.
func TestFSPlainView(t *testing.T) {
	src := tree()
	delete(src, "assets/broken.js.gz")
	if err := fstest.TestFS(New(src), "index.html", "assets/index-abc.js", "assets/style.css"); err != nil {
		t.Fatal(err)
	}
	f := New(tree())
	tests := []struct {
		name, want string
		err        error
	}{
		{"index.html", page, nil},
		{"assets/style.css", "body{margin:0}", nil},
		{"index.html.gz", "", fs.ErrNotExist},
		{".gitkeep", "", fs.ErrNotExist},
		{"missing.js", "", fs.ErrNotExist},
		{"assets/broken.js", "", fs.ErrInvalid},
		{"../index.html", "", fs.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := fs.ReadFile(f, tt.name)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("ReadFile = %.40q, %v; want %.40q", got, err, tt.want)
			}
		})
	}
}

// TestFSServesOverHTTP: http.FileServerFS (browser mode) serves the plain bytes with a
// content type from the plain name and honours ranges (it needs a seekable file).
func TestFSServesOverHTTP(t *testing.T) {
	srv := httptest.NewServer(http.FileServerFS(New(tree())))
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/assets/style.css", nil)
	req.Header.Set("Range", "bytes=0-3")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusPartialContent || string(body) != "body" || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/css") {
		t.Fatalf("GET style.css bytes 0-3: %d %q %q", res.StatusCode, body, res.Header.Get("Content-Type"))
	}
}
