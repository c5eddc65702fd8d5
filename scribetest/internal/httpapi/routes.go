// Package httpapi is the reference server's HTTP side: the operations of
// api/openapi.yaml as http.ServeMux patterns and their handlers, over the
// state; the middleware of every request (request ids, rate limits, and the
// request log and injected faults that the face keeps, through Config);
// authentication; idempotency keys; and problem+json errors. It imports, of
// the scribetest tree, only the state.
package httpapi

import (
	"cmp"
	"fmt"
	"log/slog"
	"net/http"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/jwtverify"
	"github.com/scribehq/scribe-go/scribetest/internal/state"
)

// Config is what the API is built from.
type Config struct {
	State    *state.Store
	Now      func() time.Time // the server's clock
	Limiter  func() *Limiter  // the rate limit now; nil: off
	BasePath string
	Logger   *slog.Logger
	Answers  *Answers // the answers to Idempotency-Keys; nil: a fresh Answers
	// Fail says how a request is to fail instead of being served, if it
	// is to (a fault a test injected).
	Fail func(r *http.Request, at time.Time, requestID string) (Failure, bool)
	// Log is told of every request answered: the installation whose JWT it
	// carried, once the JWT's signature verified ("" for none), and how long
	// it took by the wall clock.
	Log func(r *http.Request, at time.Time, requestID string, status int, code, installation string, took time.Duration)
}

// API serves the operations.
type API struct {
	cfg  Config
	auth authenticator
	idem *Answers
}

// New returns the operations' handler behind requestID → recoverer → faults →
// rateLimit → canonical → routes: a faulted request is neither authenticated,
// counted nor performed.
func New(cfg Config) http.Handler {
	a := &API{cfg: cfg, idem: cmp.Or(cfg.Answers, NewAnswers()),
		auth: authenticator{st: cfg.State, verifier: jwtverify.New(cfg.Now, jwtverify.DefaultLeeway)}}
	return a.requestID(a.recoverer(a.faults(a.rateLimit(a.canonical(a.routes())))))
}

// operation is one row of docs/contract.md's operations table.
type operation struct {
	method string
	path   string   // relative to the base path, with {id} wildcards
	kind   kind     // the credential it takes
	query  []string // the query parameters it accepts
	reads  string   // the permission it needs of an installation's plugin: "user" or "transcript" (read)
	handle func(c *call) (body reply, p *problem)
}

// call is one request on its way through an operation.
type call struct {
	r      *http.Request
	info   *reqInfo
	caller *principal
	body   []byte // a POST's
}

var pageQuery = []string{"limit", "after_id"}

func (a *API) operations() []operation {
	return []operation{
		{http.MethodGet, "/transcripts", installationJWT, pageQuery, "transcript", a.listTranscripts},
		{http.MethodGet, "/transcripts/{id}", installationJWT, nil, "transcript", a.getTranscript},
		{http.MethodGet, "/users/me", installationJWT, nil, "user", a.getMe},
		{http.MethodGet, "/plugins", developerKey, pageQuery, "", a.listPlugins},
		{http.MethodPost, "/plugins", developerKey, nil, "", a.createPlugin},
		{http.MethodGet, "/plugins/{id}", developerKey, nil, "", a.ofPlugin(a.getPlugin)},
		{http.MethodPost, "/plugins/{id}/secret_keys", developerKey, nil, "", a.ofPlugin(a.createSecretKey)},
		{http.MethodGet, "/plugins/{id}/installations", developerKey, pageQuery, "", a.ofPlugin(a.listInstallations)},
		{http.MethodGet, "/plugins/{id}/webhooks", developerKey, pageQuery, "", a.ofPlugin(a.listWebhooks)},
	}
}

// versionPrefix matches a path's first segment when it names an API version,
// such as the /v1 of the service's documented URLs.
var versionPrefix = regexp.MustCompile(`^/v[0-9]+\b`)

// routes registers the operations, a 405 beside each path and a 404 catch-all.
func (a *API) routes() http.Handler {
	mux := http.NewServeMux()
	base := a.cfg.BasePath
	allowed := map[string][]string{}
	for _, op := range a.operations() {
		mux.HandleFunc(op.method+" "+base+op.path, func(w http.ResponseWriter, r *http.Request) { a.serve(&op, w, r) })
		allowed[op.path] = append(allowed[op.path], op.method)
	}
	for p, methods := range allowed {
		if slices.Contains(methods, http.MethodGet) {
			methods = append(methods, http.MethodHead) // a GET pattern serves HEAD too
		}
		slices.Sort(methods)
		allow := strings.Join(methods, ", ")
		mux.HandleFunc(base+p, func(w http.ResponseWriter, r *http.Request) {
			writeProblem(w, newProblem(http.StatusMethodNotAllowed, scribe.CodeMethodNotAllowed,
				r.Method+" is not supported on this path; it supports "+allow).with("Allow", allow))
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		detail := "no operation at " + state.Excerpt(r.URL.Path)
		switch version := versionPrefix.FindString(r.URL.Path); {
		case base != "" && !strings.HasPrefix(r.URL.Path, base+"/"):
			detail += "; every path begins with the base path " + base
		case base == "" && version != "":
			detail += fmt.Sprintf("; this server serves without a base path: drop %s from the URL, or start scribe-server with -base-path %[1]s (WithBasePath(%[1]q) in Go)", version)
		}
		writeProblem(w, notFound(detail))
	})
	return mux
}

// serve authenticates, checks the credential's kind and the query, reads a POST's
// body under its Idempotency-Key, then runs the operation.
func (a *API) serve(op *operation, w http.ResponseWriter, r *http.Request) {
	info := infoOf(w)
	caller, refusal := a.authenticate(info, r)
	if refusal == nil {
		refusal = checkKind(caller, op.kind)
	}
	if refusal != nil {
		writeProblem(w, refusal)
		return
	}
	if p := checkQuery(r, op.query); p != nil {
		writeProblem(w, p)
		return
	}
	level := caller.Plugin.Permissions.User
	if op.reads == "transcript" {
		level = caller.Plugin.Permissions.Transcript
	}
	if op.reads != "" && level != scribe.PermissionRead {
		writeProblem(w, permissionDenied(op.reads))
		return
	}
	c := &call{r: r, info: info, caller: caller}
	if r.Method == http.MethodPost {
		if c.body, refusal = readBody(w, r); refusal != nil {
			writeProblem(w, refusal)
			return
		}
	}
	a.idempotent(w, c, op.handle)
}

// write writes an operation's result: its problem, or 200 and its body and
// a newline, with their Content-Length.
func write(w http.ResponseWriter, body reply, p *problem) {
	if p != nil {
		writeProblem(w, p)
		return
	}
	h := w.Header()
	h["Content-Type"] = contentTypeJSON
	h["Content-Length"] = []string{strconv.Itoa(len(body) + 1)}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	_, _ = w.Write(newline)
}

var newline = []byte("\n")

var contentTypeJSON = []string{"application/json"}

// canonical answers 404 for a path with an empty, "." or ".." segment, which
// http.ServeMux would redirect: the service never redirects.
func (a *API) canonical(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect && (!isClean(r.URL.EscapedPath()) || !isClean(r.URL.Path)) {
			writeProblem(w, notFound(fmt.Sprintf("no operation at %s: the path has an empty, \".\" or \"..\" segment; "+
				"the service does not clean or redirect paths, send each segment once (such as /plugins/1)", state.Excerpt(r.URL.EscapedPath()))))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func isClean(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	clean := path.Clean(p)
	if strings.HasSuffix(p, "/") && clean != "/" {
		clean += "/"
	}
	return clean == p
}
