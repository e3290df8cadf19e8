package cli

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"artifactflow/app"
	"artifactflow/app/browser"
	"artifactflow/app/internal/text"
	"artifactflow/app/localapi"
)

func runServe(ctx context.Context, env Env, args []string) int {
	var addr, apiAddr string
	g, _, ok := parse(env, "serve", args, func(fs *flag.FlagSet) {
		fs.StringVar(&addr, "addr", "127.0.0.1:0", "loopback address to listen on")
		apiAddrFlag(&apiAddr)(fs)
	})
	if !ok {
		return ExitUsage
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil || !browser.LoopbackHost(host) {
		fmt.Fprintf(env.Stderr, "artifactflow: serve: --addr %q must be a loopback address such as 127.0.0.1:8765\n", addr)
		return ExitUsage
	}
	if err := localapi.CheckAddr(apiAddr); err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: serve: --api-addr: %v\n", err)
		return ExitUsage
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	core, ok := openCoreWith(ctx, env, g, true)
	if !ok {
		return ExitError
	}
	defer closeCore(core)
	srv, err := browser.NewServer(core, env.Assets)
	if err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: %v\n", err)
		return ExitError
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: serve: %v\n", text.OneLine(err))
		return ExitError
	}
	api, err := core.StartLocalAPI(ctx, apiAddr)
	if err != nil {
		_ = ln.Close()
		fmt.Fprintf(env.Stderr, "artifactflow: serve: %v\n", text.OneLine(err))
		return ExitError
	}
	defer core.StopLocalAPI(api)
	core.StartWarmup(app.DefaultWarmupIdle) // as the window does (runWindow)
	hs := newServeServer(srv, defaultServeTimeouts)
	fmt.Fprintf(env.Stdout, "ArtifactFlow browser mode: http://%s/?token=%s\n", ln.Addr(), srv.Token())
	fmt.Fprintf(env.Stdout, "ArtifactFlow local API: %s (token in %s)\n", api.URL(), filepath.Join(core.DataDir(), localapi.DiscoveryFile))
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err := <-errc:
		fmt.Fprintf(env.Stderr, "artifactflow: serve: %v\n", text.OneLine(err))
		return ExitError
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(shutdownCtx)
	<-errc
	return ExitOK
}

// serveTimeouts bound browser mode's HTTP server: reading a request's headers, reading a
// whole request (headers and body), and a kept-alive connection's wait for its next
// request. A slow or silent client is disconnected when one runs out.
type serveTimeouts struct {
	readHeader, read, idle time.Duration
}

// defaultServeTimeouts are serve's: the whole-request bound leaves room for the largest
// upload (base64 in a bind call) on a loopback connection.
var defaultServeTimeouts = serveTimeouts{readHeader: 10 * time.Second, read: 2 * time.Minute, idle: 2 * time.Minute}

// serveMaxHeaderBytes caps a request's line and headers in browser mode (431 beyond it).
const serveMaxHeaderBytes = 64 << 10

// newServeServer returns browser mode's http.Server for h with the timeouts t and a
// header cap. ReadTimeout bounds a request up to the end of its body only: once the body
// has been read, net/http lifts the connection's read deadline, so the event stream
// (GET /api/events) and long bind calls are not cut by it.
func newServeServer(h http.Handler, t serveTimeouts) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.readHeader,
		ReadTimeout:       t.read,
		IdleTimeout:       t.idle,
		MaxHeaderBytes:    serveMaxHeaderBytes,
	}
}
