package httpapi

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/scribetest/internal/state"
)

// maxBodyBytes is the largest request body (docs/errors.md).
const maxBodyBytes = 1 << 20

// readBody reads a POST body of at most maxBodyBytes, declared application/json.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, *problem) {
	ct := r.Header.Get("Content-Type")
	if ct != "" && ct != "application/json" {
		mt, params, err := mime.ParseMediaType(ct)
		if err != nil || mt != "application/json" {
			return nil, unsupported(fmt.Sprintf("the Content-Type %s is not supported; send application/json", state.Excerpt(ct)))
		}
		if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
			return nil, unsupported(fmt.Sprintf("the charset %s is not supported; JSON is UTF-8", state.Excerpt(cs)))
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return nil, newProblem(http.StatusRequestEntityTooLarge, scribe.CodeRequestTooLarge,
				fmt.Sprintf("the request body is larger than %d bytes", maxBodyBytes))
		}
		return nil, validationFailed("reading the request body failed")
	}
	if ct == "" && len(body) > 0 {
		return nil, unsupported("the request has a body but no Content-Type; send Content-Type: application/json")
	}
	return body, nil
}

// decodeBody decodes a body (empty: {}) into v strictly and checks it with
// check, which refuses what the JSON library accepts and the operation does
// not (a member missing, a null), or answers 400 naming the member.
func decodeBody(data []byte, v any, check func(o *apijson.Object) error) *problem {
	if len(data) == 0 {
		data = []byte("{}")
	}
	err := apijson.Unmarshal(data, v, requestJSON)
	if err == nil {
		err = apijson.Check(data, requestJSON, check)
	}
	var e *apijson.Error
	if !errors.As(err, &e) {
		return nil
	}
	switch {
	case e.Pointer == "" && e.Got != "":
		return validationFailed("the request body must be a JSON object, got " + e.Got)
	case e.Want == "" && e.Missing == "" && e.Reason != "unknown member":
		return validationFailed(fmt.Sprintf("the request body is not valid JSON: %s (byte %d)", e.Reason, e.Offset))
	}
	name := strings.ReplaceAll(strings.TrimPrefix(e.Pointer, "/"), "/", ".")
	if e.Missing != "" {
		return validationFailed(fmt.Sprintf("%s: is required", strings.TrimPrefix(name+"."+e.Missing, ".")))
	}
	return validationFailed(name + ": " + e.Reason)
}

// checkQuery refuses a malformed query or a repeated accepted parameter.
func checkQuery(r *http.Request, accepted []string) *problem {
	if r.URL.RawQuery == "" || len(accepted) == 0 {
		return nil
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return invalidParameter("the query string is malformed: " + state.Excerpt(err.Error()))
	}
	for _, name := range accepted {
		if len(q[name]) > 1 {
			return invalidParameter(name + ": given more than once; give it once")
		}
	}
	return nil
}

// The page parameters of a list operation (docs/pagination.md).
const (
	defaultLimit = 20
	maxLimit     = 100
)

// parsePage reads limit (1 to 100, default 20) and after_id (0 to 2^53-1).
func parsePage(r *http.Request) (limit int, afterID int64, p *problem) {
	q := r.URL.Query()
	n := int64(defaultLimit)
	if v, ok := q["limit"]; ok {
		n, p = integer("limit", v[0], 1, maxLimit)
	}
	if v, ok := q["after_id"]; ok && p == nil {
		afterID, p = integer("after_id", v[0], 0, state.MaxChosenID)
	}
	if p != nil {
		return 0, 0, p
	}
	return int(n), afterID, nil
}

// integer reads s, the value of the parameter name, as plain ASCII digits
// (no sign) making an integer from lo to hi.
func integer(name, s string, lo, hi int64) (int64, *problem) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || strings.TrimLeft(s, "0123456789") != "" || n < lo || n > hi {
		return 0, invalidParameter(fmt.Sprintf("%s: must be an integer from %d to %d, got %s", name, lo, hi, state.Excerpt(s)))
	}
	return n, nil
}

// pathID reads the path's {id}: 1 to 2^53-1 (api/openapi.yaml, Id).
func pathID(c *call) (int64, *problem) {
	return integer("id", c.r.PathValue("id"), 1, state.MaxChosenID)
}
