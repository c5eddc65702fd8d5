// Package hostcheck is the reference server's defence against DNS
// rebinding: a page at evil.example whose name is made to resolve to
// 127.0.0.1 reaches the server as a same-origin page would, but its
// requests carry Host: evil.example. The server answers only the Host
// names it is told to, as Vite's server.allowedHosts and webpack-dev-server's
// allowedHosts do: localhost, *.localhost and IP literals (v4 and v6, any
// port) by default, and the names given with scribe-server -allowed-hosts
// or scribetest.WithAllowedHosts (such as a compose service name). A
// rebinding page always arrives under a name, never an IP literal.
package hostcheck

import (
	"crypto/rand"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/internal/redact"
	"github.com/scribehq/scribe-go/internal/wire"
)

// Flag is how a refusal tells the reader to allow a name.
const Flag = "scribe-server -allowed-hosts NAME (scribetest.WithAllowedHosts)"

// TextPrefix begins the paths refused with a short text page instead of a
// problem document: the dashboard's, which a person reads in a browser.
const TextPrefix = "/_scribetest/ui/"

// List is the set of Host names a server answers; the zero List allows the
// defaults only. It is read-only once made, so safe for concurrent use.
type List struct{ names map[string]bool }

// New returns the List that allows the defaults and names, each a DNS name
// without port or scheme (case does not matter). A name that is not one is
// an error saying what was wrong.
func New(names ...string) (List, error) { return List{}.With("", names...) }

// With returns l with names allowed too; a name that is not a DNS name is
// an error saying what was wrong, after the prefix call (such as
// "scribetest: WithAllowedHosts: ").
func (l List) With(call string, names ...string) (List, error) {
	out := List{names: make(map[string]bool, len(l.names)+len(names))}
	for n := range l.names {
		out.names[n] = true
	}
	for _, n := range names {
		n = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(n)), ".")
		if n == "" || strings.ContainsAny(n, ":/@?#[] \t\r\n") || strings.Trim(n, "abcdefghijklmnopqrstuvwxyz0123456789-._") != "" {
			return l, fmt.Errorf("%s%s is not a host name: give a name without scheme, port or path, such as scribe or app.test", call, redact.Quote(n, 64))
		}
		out.names[n] = true
	}
	return out, nil
}

// Allows reports whether a request with the Host header host is answered:
// an empty host (an HTTP/1.0 client's), an IP literal, localhost, a name
// under .localhost, or a name of the list, with or without a port.
func (l List) Allows(host string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.TrimSuffix(strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(name, "["), "]")), ".")
	if _, err := netip.ParseAddr(name); err == nil || name == "" {
		return true
	}
	return name == "localhost" || strings.HasSuffix(name, ".localhost") || l.names[name]
}

// Wrap returns next behind the check: a request whose Host the list does
// not allow is refused with Refuse, whatever its path.
func (l List) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !l.Allows(r.Host) {
			Refuse(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Refuse answers 403, naming the host and the flag: a short text page for
// the dashboard's paths (by the decoded path, as the mux routes them), an
// application/problem+json document for every other. Both carry a fresh
// Request-Id, as every answer of the server does (docs/errors.md); the
// problem document's request_id is the same.
func Refuse(w http.ResponseWriter, r *http.Request) {
	host := redact.Quote(r.Host, 128)
	detail := fmt.Sprintf("this server does not answer the host %s, so that a web page whose name was made to resolve to this machine (DNS rebinding) cannot use it; "+
		"localhost, *.localhost and IP addresses are answered, and other names once allowed with %s", host, Flag)
	id := "req_" + rand.Text() // the form scribetest's service gives its request ids
	w.Header()["Request-Id"] = []string{id}
	w.Header().Set("Cache-Control", "no-store")
	if strings.HasPrefix(r.URL.Path, TextPrefix) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, "403 Forbidden: %s.\n", detail)
		return
	}
	body, _ := apijson.Marshal(wire.Problem{Type: "about:blank", Title: "Forbidden", Status: http.StatusForbidden,
		Detail: detail, Code: "host_not_allowed", RequestID: id}) // cannot fail: strings and an int
	w.Header().Set("Content-Type", wire.ProblemContentType)
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write(body)
}
