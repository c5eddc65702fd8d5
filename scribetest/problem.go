package scribetest

import (
	"encoding/json"
	"net/http"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/wire"
)

// problemType is the type of every problem document: "about:blank", whose
// title is the status's reason phrase (RFC 9457 §4.2.1). Clients branch on
// the code member instead.
const problemType = "about:blank"

// problem is an error answer the handlers return instead of writing it.
type problem struct {
	status int
	code   string
	detail string
	header http.Header // extra headers, such as WWW-Authenticate or Allow
}

func (p *problem) Error() string { return p.code + ": " + p.detail }

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

// writeProblem writes p as application/problem+json, with the request's id.
func writeProblem(w http.ResponseWriter, r *http.Request, p *problem) {
	info := infoOf(w)
	info.code = p.code
	for k, vs := range p.header {
		w.Header()[k] = vs
	}
	doc := wire.Problem{
		Type:      problemType,
		Title:     http.StatusText(p.status),
		Status:    p.status,
		Detail:    p.detail,
		Code:      p.code,
		RequestID: info.id,
	}
	body, _ := json.Marshal(doc) // cannot fail: strings and an int
	w.Header().Set("Content-Type", wire.ProblemContentType)
	w.Header().Del("Content-Length")
	w.WriteHeader(p.status)
	_, _ = w.Write(append(body, '\n'))
}
