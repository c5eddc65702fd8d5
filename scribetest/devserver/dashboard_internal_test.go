package devserver

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A pager counts the items a page shows from 1 and links to the pages on
// either side that exist; past the last page it shows nothing and links
// back to the last.
func TestPager(t *testing.T) {
	t.Parallel()
	link := func(n int) string { return "p" + string(rune('0'+n)) }
	for _, tt := range []struct {
		n, total int
		want     pagerView
	}{
		{1, 0, pagerView{Page: 1, Pages: 1}},
		{1, 20, pagerView{Page: 1, Pages: 1, First: 1, Last: 20, Total: 20}},
		{1, 45, pagerView{Page: 1, Pages: 3, First: 1, Last: 20, Total: 45, Next: "p2"}},
		{3, 45, pagerView{Page: 3, Pages: 3, First: 41, Last: 45, Total: 45, Prev: "p2"}},
		{9, 45, pagerView{Page: 9, Pages: 3, Total: 45, Prev: "p3"}},
	} {
		if diff := cmp.Diff(tt.want, newPager(tt.n, 20, tt.total, link)); diff != "" {
			t.Errorf("page %d of %d items (-want +got):\n%s", tt.n, tt.total, diff)
		}
	}
}

// The page parameter is a positive number, bounded; anything else is page 1.
func TestPageNumber(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]int{"": 1, "?page=2": 2, "?page=0": 1, "?page=-3": 1, "?page=x": 1, "?page=99999999999999999999": 1, "?page=123456789": maxRecords} {
		if got := pageNumber(httptest.NewRequest("GET", "/"+q, nil)); got != want {
			t.Errorf("%q: page %d, want %d", q, got, want)
		}
	}
}

// Times are the server clock's, in UTC to the millisecond; latencies are
// milliseconds, to a tenth below 10.
func TestDashboardFormats(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 21, 10, 30, 0, 123456789, time.FixedZone("CET", 3600))
	if got := clock(at); got != "2026-11-21 09:30:00.123" {
		t.Errorf("clock = %q", got)
	}
	if got := clock(time.Time{}); got != "" {
		t.Errorf("clock of the zero time = %q", got)
	}
	for d, want := range map[time.Duration]string{1500 * time.Microsecond: "1.5 ms", 0: "0.0 ms", 173400 * time.Microsecond: "173 ms"} {
		if got := millisText(d); got != want {
			t.Errorf("millisText(%v) = %q, want %q", d, got, want)
		}
	}
}
