package httpapi

import (
	"maps"
	"net/http"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/internal/wire"
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

func unsupported(detail string) *problem {
	return newProblem(http.StatusUnsupportedMediaType, scribe.CodeUnsupportedMediaType, detail)
}

func internalError(detail string) *problem {
	return newProblem(http.StatusInternalServerError, scribe.CodeInternalError, detail+"; report the request id")
}

// writeProblem writes p as application/problem+json, with the request's id.
func writeProblem(w http.ResponseWriter, p *problem) {
	info := infoOf(w)
	info.code = p.code
	maps.Copy(w.Header(), p.header)
	body, _ := apijson.Marshal(wire.Problem{ // cannot fail: strings and an int
		Type: problemType, Title: http.StatusText(p.status), Status: p.status,
		Detail: p.detail, Code: p.code, RequestID: info.id,
	})
	w.Header().Set("Content-Type", wire.ProblemContentType)
	w.Header().Del("Content-Length")
	w.WriteHeader(p.status)
	_, _ = w.Write(append(body, '\n'))
}
