package localapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// DiscoveryFile is the name, in the data directory, of the file that tells scripts where
// the running app's API is: {"url", "token", "pid"}, mode 0600.
const DiscoveryFile = "api.json"

// DefaultAddr is where Start listens when no address is given: a random loopback port.
const DefaultAddr = "127.0.0.1:0"

// Defaults of the HTTP server's timeouts (Options.ReadHeaderTimeout, ReadTimeout,
// IdleTimeout) and its header cap. There is no write timeout: event streams are long; each
// SSE write has its own deadline.
const (
	// DefaultReadHeaderTimeout bounds reading a request's line and headers.
	DefaultReadHeaderTimeout = 5 * time.Second
	// DefaultReadTimeout bounds reading a whole request, body included (an event stream
	// lifts it once it starts).
	DefaultReadTimeout = 30 * time.Second
	// DefaultIdleTimeout bounds a kept-alive connection's wait for its next request.
	DefaultIdleTimeout = 60 * time.Second
	// MaxHeaderBytes caps a request's line and headers, in bytes (431 beyond it).
	MaxHeaderBytes = 64 << 10
)

// ErrAddr is returned by Start (wrapped) for an address that is not 127.0.0.1:PORT.
var ErrAddr = errors.New("the local API listens on 127.0.0.1 only")

// Discovery is the content of api.json: the API's base URL ("http://127.0.0.1:PORT"), its
// bearer token and the id of the process serving it.
type Discovery struct {
	URL   string `json:"url"`
	Token string `json:"token"`
	PID   int    `json:"pid"`
}

// Running is a started local API. Close stops it.
type Running struct {
	srv     *Server
	hs      *http.Server
	dataDir string
	disc    Discovery
	cancel  context.CancelFunc
	done    chan struct{} // closed when Serve returned
	once    sync.Once
	err     error
}

// CheckAddr returns nil when addr is "127.0.0.1:PORT" (PORT 0 means a random port), else
// an error wrapping ErrAddr.
func CheckAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host != "127.0.0.1" || port == "" {
		return fmt.Errorf("localapi: address %q: %w (e.g. 127.0.0.1:8766, or port 0 for a random one)", addr, ErrAddr)
	}
	return nil
}

// Start listens on addr ("" means DefaultAddr; it must pass CheckAddr), serves srv and
// writes <dataDir>/api.json atomically with mode 0600. A client that sends its headers
// or body too slowly, or keeps an idle connection, is disconnected after srv's
// ReadHeaderTimeout, ReadTimeout or IdleTimeout (Options). Requests' contexts are cancelled
// when ctx is done, which ends event streams; the listener stays open until Close.
// Errors: ErrAddr (wrapped); the listen or file error, wrapped.
func Start(ctx context.Context, srv *Server, addr, dataDir string) (*Running, error) {
	if addr == "" {
		addr = DefaultAddr
	}
	if err := CheckAddr(addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("localapi: listen on %s: %w", addr, err)
	}
	base, cancel := context.WithCancel(ctx)
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: srv.opts.ReadHeaderTimeout,
		ReadTimeout:       srv.opts.ReadTimeout,
		IdleTimeout:       srv.opts.IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          slog.NewLogLogger(srv.log.Handler(), slog.LevelWarn),
	}
	rn := &Running{srv: srv, hs: hs, dataDir: dataDir, cancel: cancel, done: make(chan struct{}),
		disc: Discovery{URL: "http://" + ln.Addr().String(), Token: srv.Token(), PID: os.Getpid()}}
	if err := writeDiscovery(dataDir, rn.disc); err != nil {
		cancel()
		_ = ln.Close()
		return nil, err
	}
	go func() {
		defer close(rn.done)
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			srv.log.Error("localapi: server stopped", "err", err)
		}
	}()
	return rn, nil
}

// URL returns the API's base URL, "http://127.0.0.1:PORT".
func (rn *Running) URL() string { return rn.disc.URL }

// Discovery returns what api.json holds for this server.
func (rn *Running) Discovery() Discovery { return rn.disc }

// Close ends event streams, shuts the server down (waiting for requests in flight until
// ctx is done, then closing their connections) and removes api.json if it is still this
// server's (same pid and token: another instance may have replaced it). Calls after the
// first return the first result.
func (rn *Running) Close(ctx context.Context) error {
	rn.once.Do(func() {
		rn.cancel()
		err := rn.hs.Shutdown(ctx)
		if err != nil {
			err = errors.Join(err, rn.hs.Close())
		}
		<-rn.done
		rn.err = errors.Join(err, removeDiscovery(rn.dataDir, rn.disc))
	})
	return rn.err
}

// ReadDiscovery reads <dataDir>/api.json. Errors: fs.ErrNotExist (wrapped) when there is
// none; a malformed file.
func ReadDiscovery(dataDir string) (Discovery, error) {
	var d Discovery
	b, err := os.ReadFile(filepath.Join(dataDir, DiscoveryFile))
	if err != nil {
		return d, fmt.Errorf("localapi: read %s: %w", DiscoveryFile, err)
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return d, fmt.Errorf("localapi: %s is malformed: %w", DiscoveryFile, err)
	}
	return d, nil
}

// writeDiscovery writes d to <dir>/api.json with mode 0600 through a temporary file and a
// rename, so a reader sees the old file or the new one, never a part.
func writeDiscovery(dir string, d Discovery) error {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return fmt.Errorf("localapi: encode %s: %w", DiscoveryFile, err)
	}
	tmp, err := os.CreateTemp(dir, "."+DiscoveryFile+".*.tmp")
	if err != nil {
		return fmt.Errorf("localapi: write %s: %w", DiscoveryFile, err)
	}
	name := tmp.Name()
	fail := func(err error) error {
		_ = tmp.Close()
		_ = os.Remove(name)
		return fmt.Errorf("localapi: write %s: %w", DiscoveryFile, err)
	}
	if err := tmp.Chmod(0o600); err != nil {
		return fail(err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		_ = os.Remove(name)
		return fmt.Errorf("localapi: write %s: %w", DiscoveryFile, err)
	}
	if err := os.Rename(name, filepath.Join(dir, DiscoveryFile)); err != nil {
		_ = os.Remove(name)
		return fmt.Errorf("localapi: write %s: %w", DiscoveryFile, err)
	}
	return nil
}

// removeDiscovery removes <dir>/api.json when it still describes d.
func removeDiscovery(dir string, d Discovery) error {
	cur, err := ReadDiscovery(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil || cur.PID != d.PID || cur.Token != d.Token {
		return nil // not ours (or not readable as ours): leave it
	}
	if err := os.Remove(filepath.Join(dir, DiscoveryFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("localapi: remove %s: %w", DiscoveryFile, err)
	}
	return nil
}
