package scribetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	scribe "github.com/scribehq/scribe-go"
)

// maxBodyBytes is the largest request body (CONTRACT §5).
const maxBodyBytes = 1 << 20

// readJSONBody reads a POST body of at most maxBodyBytes. A body must be
// declared application/json (parameters allowed, charset only utf-8); an
// empty body may come without a Content-Type.
//
// The body is read into a buffer of bufPool, which the caller returns with
// putBuf once the request is answered (nothing keeps the body: decoding
// copies what it keeps, the idempotency record keeps a hash). The buffer
// begins with "METHOD PATH\n", what the idempotency fingerprint hashes
// before the body (idempotent), so that it hashes the buffer as it is; the
// body is (*buf)[start:]. On a problem no buffer is returned.
func readJSONBody(w http.ResponseWriter, r *http.Request) (buf *[]byte, start int, _ *problem) {
	ct := headerValue(r.Header, "Content-Type")
	if ct != "" && ct != "application/json" { // the usual value needs no parsing
		if p := checkJSONMediaType(ct); p != nil {
			return nil, 0, p
		}
	}
	buf = getBuf()
	*buf = append(append(append(append((*buf)[:0], r.Method...), ' '), r.URL.Path...), '\n')
	start = len(*buf)
	body := r.Body
	if r.ContentLength < 0 || r.ContentLength > maxBodyBytes {
		// Chunked, or declared too large: MaxBytesReader stops the read
		// past the limit and has net/http close the connection after the
		// 413. A declared length within the limit needs no wrapper (and no
		// allocation): net/http's body ends at that length, and
		// readAllInto refuses more than the limit anyway.
		body = http.MaxBytesReader(w, body, maxBodyBytes)
	}
	err := readAllInto(buf, body, r.ContentLength)
	if err != nil {
		putBuf(buf)
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return nil, 0, newProblem(http.StatusRequestEntityTooLarge, scribe.CodeRequestTooLarge,
				fmt.Sprintf("the request body is larger than %d bytes", maxBodyBytes))
		}
		return nil, 0, validationFailed("reading the request body failed: " + err.Error())
	}
	if ct == "" && len(*buf) > start {
		putBuf(buf)
		return nil, 0, newProblem(http.StatusUnsupportedMediaType, scribe.CodeUnsupportedMediaType,
			"the request has a body but no Content-Type; send Content-Type: application/json")
	}
	return buf, start, nil
}

// readAllInto appends what r holds to *buf, as io.ReadAll does, growing
// the buffer once to the declared length (when there is one within the
// limit) rather than by doubling. More than maxBodyBytes is a
// *http.MaxBytesError, as http.MaxBytesReader reports it.
func readAllInto(buf *[]byte, r io.Reader, declared int64) error {
	b := *buf
	if declared > 0 && declared <= maxBodyBytes {
		b = slices.Grow(b, int(declared)+1) // +1: room to see EOF without growing
	}
	limit := len(b) + maxBodyBytes
	for {
		if len(b) > limit {
			*buf = b
			return &http.MaxBytesError{Limit: maxBodyBytes}
		}
		if len(b) == cap(b) {
			b = slices.Grow(b, 512)
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			*buf = b
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// headerValue is h.Get(key) for a key already in canonical form, without
// canonicalizing it again.
func headerValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func checkJSONMediaType(ct string) *problem {
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return newProblem(http.StatusUnsupportedMediaType, scribe.CodeUnsupportedMediaType,
			fmt.Sprintf("the Content-Type %q is not supported; send application/json", ct))
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return newProblem(http.StatusUnsupportedMediaType, scribe.CodeUnsupportedMediaType,
			fmt.Sprintf("the charset %q is not supported; JSON is UTF-8", cs))
	}
	return nil
}

// decodeBody decodes a request body into v, which must point to a struct.
// An empty body decodes as {}. Anything but one JSON object whose members v
// knows, with the right types, is a 400 validation_failed naming the member.
func decodeBody(body []byte, v any) *problem {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil
	}
	if trimmed[0] != '{' {
		return validationFailed("the request body must be a JSON object")
	}
	if err := strictUnmarshal(trimmed, v); err != nil {
		return validationFailed(err.Error())
	}
	return nil
}

// strictUnmarshal decodes data into v, refusing what encoding/json lets
// through: members v does not know (at any depth, matched by exact name), a
// null where v's field is not tagged `null:"ok"` (strict.go), and anything
// after the value. Its errors name the member as a path such as
// "permissions.user".
func strictUnmarshal(data []byte, v any) error {
	sh := shapeOf(reflect.TypeOf(v))
	// json.Unmarshal checks the whole value's syntax before it decodes, so
	// the syntax is checked once, by it, on the usual path; only a fault
	// found first by the shape's walk, or by json.Unmarshal, needs to know
	// whether the document was well-formed, for a syntax error goes first.
	if err := sh.check(data); err != nil {
		if !json.Valid(data) {
			return invalidJSON(data)
		}
		return err
	}
	if err := decodeChecked(data, v); err != nil {
		if _, ok := errors.AsType[*json.SyntaxError](err); ok {
			return invalidJSON(data)
		}
		return err
	}
	return nil
}

// invalidJSON is the error for data that is not one JSON value, with
// encoding/json's description of the first fault.
func invalidJSON(data []byte) error {
	var probe any
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&probe); err != nil {
		return fmt.Errorf("not valid JSON: %w", err)
	}
	return errors.New("not valid JSON: unexpected data after the value")
}

// checkAndDecode runs sh's strict checks on data, which holds one JSON
// value, then decodes it into v, naming the member of a wrong type.
func checkAndDecode(data []byte, sh *shape, v any) error {
	if err := sh.check(data); err != nil {
		return err
	}
	return decodeChecked(data, v)
}

// decodeChecked decodes data, which has passed its shape's checks, into v,
// naming the member of a wrong type.
func decodeChecked(data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && te.Field != "" {
			return &fieldError{te.Field, "must be " + jsonKind(te.Type) + ", got " + te.Value}
		}
		if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
			return fmt.Errorf("must be %s, got %s", jsonKind(te.Type), te.Value)
		}
		return err // a *json.SyntaxError, which strictUnmarshal describes
	}
	return nil
}

var timeType = reflect.TypeFor[time.Time]()

// jsonKind names what JSON value decodes into t.
func jsonKind(t reflect.Type) string {
	switch {
	case t == timeType:
		return "an RFC 3339 timestamp string"
	case t.Kind() == reflect.Pointer:
		return jsonKind(t.Elem()) + " or null"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

// checkQuery refuses a repeated parameter the operation takes, and a
// malformed query string where the operation takes parameters. Parameters
// it does not take are ignored, as api/openapi.yaml leaves them free
// (a newer client may send what this server does not know).
func checkQuery(r *http.Request, accepted []string) *problem {
	if r.URL.RawQuery == "" || len(accepted) == 0 {
		return nil
	}
	if raw := r.URL.RawQuery; plainQuery(raw) && len(accepted) <= maxPlainAccepted {
		var counts [maxPlainAccepted]int
		for pairs := raw; pairs != ""; {
			var key string
			key, _, pairs = nextQueryPair(pairs)
			for i, name := range accepted {
				if key == name {
					counts[i]++
				}
			}
		}
		for i, name := range accepted {
			if counts[i] > 1 {
				return invalidParameter(name + ": given more than once; give it once")
			}
		}
		return nil
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return invalidParameter("the query string is malformed: " + err.Error())
	}
	for _, name := range accepted {
		if len(q[name]) > 1 {
			return invalidParameter(name + ": given more than once; give it once")
		}
	}
	return nil
}

// pageParams are a list operation's limit and after_id (CONTRACT §3).
type pageParams struct {
	limit   int
	afterID int64
}

const (
	defaultLimit = 20
	maxLimit     = 100
)

// parsePage reads limit (1 to 100, default 20) and after_id (>= 0, default
// 0) from a query checkQuery has accepted.
func parsePage(r *http.Request) (pageParams, *problem) {
	pp := pageParams{limit: defaultLimit}
	limit, hasLimit := queryValue(r, "limit")
	if hasLimit {
		n, err := parseDecimal(limit)
		if err != nil || n < 1 || n > maxLimit {
			return pp, invalidParameter(fmt.Sprintf("limit: must be an integer from 1 to %d, got %q", maxLimit, limit))
		}
		pp.limit = int(n)
	}
	if v, ok := queryValue(r, "after_id"); ok {
		n, err := parseDecimal(v)
		if err != nil {
			return pp, invalidParameter(fmt.Sprintf("after_id: must be an integer of 0 or more, got %q", v))
		}
		pp.afterID = n
	}
	return pp, nil
}

// maxPlainAccepted is how many parameters checkQuery counts without
// url.ParseQuery.
const maxPlainAccepted = 4

// plainQuery reports whether url.ParseQuery would only split raw at "&"
// and "=": it has nothing to unescape ("%", "+") and no ";" (which
// ParseQuery refuses). checkQuery and queryValue read such a query in
// place, without ParseQuery's map and strings (a page request's query was
// parsed twice per request); any other goes to url.ParseQuery, with its
// errors.
func plainQuery(raw string) bool { return !strings.ContainsAny(raw, "%+;") }

// nextQueryPair returns the first non-empty key=value pair of the plain
// query pairs, as url.ParseQuery splits it, and the pairs after it. key is
// "" when none is left.
func nextQueryPair(pairs string) (key, value, rest string) {
	for pairs != "" {
		var kv string
		kv, pairs, _ = strings.Cut(pairs, "&")
		if kv == "" {
			continue
		}
		key, value, _ = strings.Cut(kv, "=")
		return key, value, pairs
	}
	return "", "", ""
}

// queryValue is r.URL.Query()'s first value of name, and whether name is
// given.
func queryValue(r *http.Request, name string) (string, bool) {
	raw := r.URL.RawQuery
	if !plainQuery(raw) {
		v, ok := r.URL.Query()[name]
		if !ok {
			return "", false
		}
		return v[0], true
	}
	for raw != "" {
		var key, value string
		key, value, raw = nextQueryPair(raw)
		if key == name {
			return value, true
		}
	}
	return "", false
}

// parseDecimal parses a non-negative decimal integer of plain ASCII digits
// (no sign, no spaces) that fits in an int64.
func parseDecimal(s string) (int64, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, errors.New("not a non-negative integer")
	}
	return strconv.ParseInt(s, 10, 64)
}

// pathID reads the {id} of the call's path: a positive 64-bit integer,
// else 400 invalid_parameter (api/openapi.yaml, parameter Id).
func pathID(c *call) (int64, *problem) {
	s := c.id
	if s == "" {
		s = c.r.PathValue("id")
	}
	n, err := parseDecimal(s)
	if err != nil || n < 1 {
		return 0, invalidParameter(fmt.Sprintf("id: must be a positive 64-bit integer, got %q", s))
	}
	return n, nil
}
