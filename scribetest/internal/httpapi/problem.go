package httpapi

import (
	"net/http"
	"strconv"
	"sync"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/internal/wire"
	"github.com/scribehq/scribe-go/scribetest/internal/authn"
)

// problemType is every problem's type (RFC 9457 §4.2.1); clients branch on code.
const problemType = "about:blank"

// problem is an error answer a handler returns instead of writing it.
type problem struct {
	status int
	code   string
	detail string
	header http.Header // extra headers, such as WWW-Authenticate or Allow
}

func newProblem(status int, code, detail string) *problem {
	return &problem{status: status, code: code, detail: detail}
}

// with returns p with header key set to value.
func (p *problem) with(key, value string) *problem {
	if p.header == nil {
		p.header = http.Header{}
	}
	p.header.Set(key, value)
	return p
}

func notFound(detail string) *problem {
	return newProblem(http.StatusNotFound, scribe.CodeNotFound, detail)
}

func invalidParameter(detail string) *problem {
	return newProblem(http.StatusBadRequest, scribe.CodeInvalidParameter, detail)
}

func validationFailed(detail string) *problem {
	return newProblem(http.StatusBadRequest, scribe.CodeValidationFailed, detail)
}

func internalError(detail string) *problem {
	return newProblem(http.StatusInternalServerError, scribe.CodeInternalError, detail+"; report the request id")
}

// refused is the problem of a refused credential.
func refused(r *authn.Refusal) *problem {
	p := newProblem(r.Status, r.Code, r.Detail)
	if r.Challenge != "" {
		p = p.with("WWW-Authenticate", r.Challenge)
	}
	return p
}

// writeProblem writes p as application/problem+json, with the request's id.
func writeProblem(w http.ResponseWriter, p *problem) {
	info := infoOf(w)
	info.code = p.code
	for k, vs := range p.header {
		w.Header()[k] = vs
	}
	body, _ := apijson.Marshal(wire.Problem{ // cannot fail: strings and an int
		Type: problemType, Title: http.StatusText(p.status), Status: p.status,
		Detail: p.detail, Code: p.code, RequestID: info.id,
	})
	w.Header().Set("Content-Type", wire.ProblemContentType)
	w.Header().Del("Content-Length")
	w.WriteHeader(p.status)
	_, _ = w.Write(append(body, '\n'))
}

// reply is a success body in encoded pieces (a page's are the stored transcripts).
type reply [][]byte

var newline = []byte("\n")

// buffers gather a reply's pieces into one write, cheaper than many small ones.
var buffers = sync.Pool{New: func() any { return new([]byte) }}

const maxPooled = 1 << 20

// writeJSON writes status and body, with its Content-Length, in one write.
func writeJSON(w http.ResponseWriter, status int, body reply) {
	n := 0
	for _, b := range body {
		n += len(b)
	}
	h := w.Header()
	h["Content-Type"] = contentTypeJSON
	h["Content-Length"] = []string{strconv.Itoa(n)}
	w.WriteHeader(status)
	if len(body) == 1 {
		_, _ = w.Write(body[0])
		return
	}
	buf := buffers.Get().(*[]byte)
	b := (*buf)[:0]
	for _, piece := range body {
		b = append(b, piece...)
	}
	_, _ = w.Write(b)
	if cap(b) <= maxPooled {
		*buf = b
		buffers.Put(buf)
	}
}

var contentTypeJSON = []string{"application/json"}
