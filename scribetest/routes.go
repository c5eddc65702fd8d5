package scribetest

import (
	"net/http"
	"slices"
	"strings"

	scribe "github.com/scribehq/scribe-go"
)

// call is one request on its way through an operation: the request, the
// caller it authenticated as and, for a POST, the body read so far.
type call struct {
	r      *http.Request
	info   *reqInfo // the request's (infoOf)
	caller *principal
	// id is the path's {id} as the router matched it; "" when the
	// ServeMux matched the request (pathID then asks r.PathValue).
	id   string
	body []byte
	// signed is, for a POST, "METHOD PATH\n" followed by the body: what the
	// Idempotency-Key's fingerprint hashes (body is its tail).
	signed []byte
}

// operation is one row of CONTRACT §2.
type operation struct {
	method string
	path   string    // relative to the base path, with {id} wildcards
	kind   tokenKind // the credential it takes
	query  []string  // the query parameters it accepts
	handle func(c *call) result
}

// result is what an operation answers: a status and its body encoded as
// JSON, or a problem.
type result struct {
	status  int
	encoded *[]byte // the body, newline included, in a buffer of bufPool
	p       *problem
}

// ok is every success: the contract answers 200, creates included. body is
// encoded with encoding/json (encodeValue); one it cannot encode is a 500.
func ok(body any) result {
	buf, err := encodeValue(body)
	if err != nil {
		return fail(encodingFailed())
	}
	return okEncoded(buf)
}

// okEncoded answers 200 with body, JSON already encoded (wirecache.go,
// pluginwire.go).
func okEncoded(body *[]byte) result { return result{status: http.StatusOK, encoded: body} }

func fail(p *problem) result { return result{p: p} }

// pageQuery is the query a list operation takes.
var pageQuery = []string{"limit", "after_id"}

func (s *Server) operations() []operation {
	return []operation{
		{http.MethodGet, "/transcripts", kindInstallation, pageQuery, s.listTranscripts},
		{http.MethodGet, "/transcripts/{id}", kindInstallation, nil, s.getTranscript},
		{http.MethodGet, "/users/me", kindInstallation, nil, s.getMe},
		{http.MethodGet, "/plugins", kindDeveloper, pageQuery, s.listPlugins},
		{http.MethodPost, "/plugins", kindDeveloper, nil, s.createPlugin},
		{http.MethodGet, "/plugins/{id}", kindDeveloper, nil, s.getPlugin},
		{http.MethodPost, "/plugins/{id}/secret_keys", kindDeveloper, nil, s.createSecretKey},
		{http.MethodGet, "/plugins/{id}/installations", kindDeveloper, pageQuery, s.listInstallations},
		{http.MethodGet, "/plugins/{id}/webhooks", kindDeveloper, pageQuery, s.listWebhooks},
	}
}

// routes is the operations' handler: the fast router for the requests of
// the usual form (route), and for every other request canonicalPaths
// (canonical.go: no mux redirects) before a ServeMux that registers every
// operation with a method pattern, beside each path a method-less pattern
// that answers 405 with Allow, and a catch-all that answers 404: the mux's
// own plain-text answers never show.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	allowed := map[string][]string{}
	ops := s.operations()
	for _, op := range ops {
		mux.Handle(op.method+" "+s.basePath+op.path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.serveOperation(&op, w, r, "")
		}))
		allowed[op.path] = append(allowed[op.path], op.method)
	}
	for path, methods := range allowed {
		if slices.Contains(methods, http.MethodGet) {
			methods = append(methods, http.MethodHead) // a GET pattern serves HEAD too
		}
		slices.Sort(methods)
		allow := strings.Join(methods, ", ")
		mux.HandleFunc(s.basePath+path, func(w http.ResponseWriter, r *http.Request) {
			writeProblem(w, r, newProblem(http.StatusMethodNotAllowed, scribe.CodeMethodNotAllowed,
				r.Method+" is not supported on this path; it supports "+allow).with("Allow", allow))
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		detail := "no operation at " + r.URL.Path
		if s.basePath != "" && !strings.HasPrefix(r.URL.Path, s.basePath+"/") {
			detail += "; every path begins with the base path " + s.basePath
		}
		writeProblem(w, r, notFound(detail))
	})
	rt := &router{s: s, fallback: s.canonicalPaths(mux)}
	for _, op := range ops {
		prefix, suffix, wild := strings.Cut(op.path, "{id}")
		rt.routes = append(rt.routes, route{op: op, prefix: s.basePath + prefix, suffix: suffix, wild: wild})
	}
	return rt
}

// router answers the requests of the usual form without the ServeMux's
// pattern matching and canonicalPaths' path cleaning, which were a tenth of
// a request's cost in the server: a GET or POST whose path, not
// percent-encoded, is an operation's path exactly, its {id} a run of ASCII
// digits. Such a path has no empty, "." or ".." segment, and the mux would
// serve it with the same operation and the same id, so the answer is the
// same. Every other request (another method, HEAD included, a wrong
// method, an unknown or non-canonical path, an id that is not digits, any
// percent-encoding) goes to fallback, whose 404 and 405 answers are
// unchanged.
type router struct {
	s        *Server
	routes   []route
	fallback http.Handler
}

// route is an operation's path as the router matches it: prefix (base path
// included), then when wild a decimal {id} and suffix.
type route struct {
	op             operation
	prefix, suffix string
	wild           bool
}

// match returns the id of path if it is rt's path ("" without a wildcard).
func (rt *route) match(path string) (id string, ok bool) {
	if !rt.wild {
		return "", path == rt.prefix
	}
	if len(path) <= len(rt.prefix)+len(rt.suffix) || !strings.HasPrefix(path, rt.prefix) || !strings.HasSuffix(path, rt.suffix) {
		return "", false
	}
	id = path[len(rt.prefix) : len(path)-len(rt.suffix)]
	for i := range len(id) {
		if id[i] < '0' || id[i] > '9' {
			return "", false
		}
	}
	return id, true
}

func (rt *router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if (r.Method == http.MethodGet || r.Method == http.MethodPost) && r.URL.RawPath == "" {
		for i := range rt.routes {
			route := &rt.routes[i]
			if route.op.method != r.Method {
				continue
			}
			if id, ok := route.match(r.URL.Path); ok {
				if !route.wild {
					infoOf(w).path = route.prefix // the path itself, base path included
				}
				rt.s.serveOperation(&route.op, w, r, id)
				return
			}
		}
	}
	rt.fallback.ServeHTTP(w, r)
}

// serveOperation runs the steps every operation shares, in order:
// authenticate (401/403), check the credential's kind (403), check the query
// parameters (400), for a POST read the body (415/413) and honour
// Idempotency-Key (409, replay), then run the operation. id is the path's
// {id} as the router matched it, or "" to take it from the ServeMux's match
// (r.PathValue).
func (s *Server) serveOperation(op *operation, w http.ResponseWriter, r *http.Request, id string) {
	info := infoOf(w)
	caller, p := s.authenticate(info, r)
	if p == nil {
		p = checkKind(caller, op.kind)
	}
	if p == nil {
		p = checkQuery(r, op.query)
	}
	if p != nil {
		writeProblem(w, r, p)
		return
	}
	c := &info.call
	*c = call{r: r, info: info, caller: caller, id: id}
	if r.Method != http.MethodPost {
		writeResult(w, r, op.handle(c))
		return
	}
	buf, start, p := readJSONBody(w, r)
	if p != nil {
		writeProblem(w, r, p)
		return
	}
	defer putBuf(buf) // nothing keeps the body past the answer
	c.signed, c.body = *buf, (*buf)[start:]
	s.idempotent(w, c, op.handle)
}

// response is an answer as the idempotency store takes and replays it: a
// status and a body (always application/json), or a problem, kept as such
// so that a replay carries its own request id (api/openapi.yaml:
// request_id equals the Request-Id header). The store copies the body it
// is given (idempotencyStore.finish); the body it replays is its own and
// never changes.
type response struct {
	status  int
	body    []byte
	problem *problem
}

// encodingFailed is the answer when a body cannot be encoded as JSON.
func encodingFailed() *problem {
	return newProblem(http.StatusInternalServerError, scribe.CodeInternalError, "encoding the response failed")
}

func (resp response) write(w http.ResponseWriter, r *http.Request) {
	if resp.problem != nil {
		writeProblem(w, r, resp.problem)
		return
	}
	writeJSONBytes(w, resp.status, resp.body)
}

// writeResult writes an operation's result: the problem, or the body as
// application/json from its pooled buffer, in one piece with its
// Content-Length.
func writeResult(w http.ResponseWriter, r *http.Request, res result) {
	if res.p != nil {
		writeProblem(w, r, res.p)
		return
	}
	writeEncoded(w, res.status, res.encoded)
}
