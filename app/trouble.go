package app

import (
	"errors"
	"net"
	"net/http"
	neturl "net/url"
	"strconv"
	"strings"

	"artifactflow/backend/llm"
	"artifactflow/backend/netcause"
	"artifactflow/backend/web"
)

// TroubleAuth is the Trouble kind of a refused API key (HTTP 401 or 403, or a search
// provider's own "invalid key" answer); the other kinds are netcause's (offline, refused,
// unreachable, timeout, tls).
const TroubleAuth = "auth"

// Trouble is what went wrong with a check in the Settings dialog (Test connection, the
// model list, a search provider's Test), for the dialog to say in the UI's language instead
// of quoting a Go error: Kind is TroubleAuth or a netcause kind ("" when none fits: the
// dialog shows the error itself); Host is the host concerned (a name that does not
// resolve, or for a model endpoint its origin, "http://127.0.0.1:11434"); Server names the
// local model server a refused loopback endpoint is the usual address of ("Ollama", "LM
// Studio", …, from the presets), so the dialog can say how to start it; Status is the
// HTTP status of a refused key.
type Trouble struct {
	Kind   string `json:"kind,omitempty"`
	Host   string `json:"host,omitempty"`
	Server string `json:"server,omitempty"`
	Status int    `json:"status,omitempty"`
}

// modelTrouble is the Trouble of a failed model check against baseURL.
func modelTrouble(err error, baseURL string) Trouble {
	if st := llm.HTTPStatus(err); st == http.StatusUnauthorized || st == http.StatusForbidden {
		return Trouble{Kind: TroubleAuth, Status: st}
	}
	kind, host := netcause.Of(err)
	if kind == "" && errors.Is(err, llm.ErrTimeout) {
		kind = netcause.Timeout
	}
	if kind == "" {
		return Trouble{}
	}
	t := Trouble{Kind: kind, Host: host}
	u, perr := neturl.Parse(strings.TrimSpace(baseURL))
	if perr != nil || u.Host == "" {
		return t
	}
	if kind != netcause.Offline {
		t.Host = u.Scheme + "://" + u.Host
	}
	if kind == netcause.Refused && isLoopbackHost(u.Hostname()) {
		t.Server = localServerAt(u.Port())
	}
	return t
}

// searchTrouble is the Trouble of a failed search test.
func searchTrouble(err error) Trouble {
	if errors.Is(err, web.ErrAuth) {
		return Trouble{Kind: TroubleAuth}
	}
	kind, host := netcause.Of(err)
	return Trouble{Kind: kind, Host: host}
}

// isLoopbackHost reports whether host is localhost or a loopback address.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// localServerAt names the local model server whose preset listens on port ("" when
// none does).
func localServerAt(port string) string {
	for _, p := range presets {
		if p.NeedsKey {
			continue
		}
		if u, err := neturl.Parse(p.BaseURL); err == nil && isLoopbackHost(u.Hostname()) && u.Port() == port {
			return p.Name
		}
	}
	return ""
}

// fields is t as AppError.Fields: "reason" (the kind), and "host", "server" and "status"
// when set.
func (t Trouble) fields() map[string]string {
	f := map[string]string{"reason": t.Kind}
	if t.Host != "" {
		f["host"] = t.Host
	}
	if t.Server != "" {
		f["server"] = t.Server
	}
	if t.Status != 0 {
		f["status"] = strconv.Itoa(t.Status)
	}
	return f
}

// troubleError is err with the Trouble it met: its text is err's, and ToAppError gives
// err's AppError with the Trouble as its Fields.
type troubleError struct {
	err error
	t   Trouble
}

func (e *troubleError) Error() string { return e.err.Error() }
func (e *troubleError) Unwrap() error { return e.err }
