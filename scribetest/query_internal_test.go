package scribetest

import (
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"net/url"
	"testing"
)

// oldPageQuery is how checkQuery and parsePage read a query before they
// read plain ones in place: url.ParseQuery for both.
func oldPageQuery(raw string) (string, pageParams) {
	q, err := url.ParseQuery(raw)
	if raw != "" && err != nil {
		return "the query string is malformed: " + err.Error(), pageParams{}
	}
	for _, name := range pageQuery {
		if len(q[name]) > 1 {
			return name + ": given more than once; give it once", pageParams{}
		}
	}
	pp := pageParams{limit: defaultLimit}
	if v, ok := q["limit"]; ok {
		n, err := parseDecimal(v[0])
		if err != nil || n < 1 || n > maxLimit {
			return fmt.Sprintf("limit: must be an integer from 1 to %d, got %q", maxLimit, v[0]), pageParams{}
		}
		pp.limit = int(n)
	}
	if v, ok := q["after_id"]; ok {
		n, err := parseDecimal(v[0])
		if err != nil {
			return fmt.Sprintf("after_id: must be an integer of 0 or more, got %q", v[0]), pageParams{}
		}
		pp.afterID = n
	}
	return "", pp
}

// TestPageQueryAsParseQuery protects the in-place reading of plain query
// strings (plainQuery): for every query, checkQuery and parsePage answer
// what they answered with url.ParseQuery (the same 400s, each naming the
// same parameter and value, the same limit and after_id), on a table of
// edge cases and on random queries over the characters that matter.
func TestPageQueryAsParseQuery(t *testing.T) {
	t.Parallel()
	queries := []string{"", "limit=5", "limit=5&after_id=9", "after_id=9&limit=5", "limit=5&limit=6", "limit=&after_id=",
		"limit", "after_id", "&&limit=7&&", "=5", "limit=5=6", "limit=1;after_id=2", "limit=%35", "limit=%zz", "limit=+5",
		"x=1&x=2&limit=3", "LIMIT=3", "limit=0", "limit=101", "after_id=-1", "after_id=99999999999999999999", "limit=5&x=%zz"}
	rng := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"limit", "after_id", "x", "=", "&", "1", "0", "5", ";", "%", "%3", "%35", "+", ""}
	for range 3000 {
		q := ""
		for range rng.IntN(8) {
			q += pieces[rng.IntN(len(pieces))]
		}
		queries = append(queries, q)
	}
	for _, raw := range queries {
		r := httptest.NewRequest("GET", "/transcripts?"+raw, nil)
		if r.URL.RawQuery != raw {
			continue // not a query the request line carries as such
		}
		wantErr, wantPP := oldPageQuery(raw)
		var gotErr string
		var gotPP pageParams
		if p := checkQuery(r, pageQuery); p != nil {
			gotErr = p.detail
		} else if pp, p := parsePage(r); p != nil {
			gotErr = p.detail
		} else {
			gotPP = pp
		}
		if gotErr != wantErr || gotPP != wantPP {
			t.Errorf("query %q: got %q %+v, want %q %+v", raw, gotErr, gotPP, wantErr, wantPP)
		}
	}
}
