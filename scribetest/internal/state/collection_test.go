package state

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestPage: a page starts after after_id whether or not it is in the
// collection, says whether a greater id exists and how many the owner has,
// and holds only the owner's rows, whatever order they were added in.
func TestPage(t *testing.T) {
	t.Parallel()
	c := NewCollection(func(id int64) int64 { return id }, nil)
	for _, id := range []int64{5, 1, 3, 9, 7} { // out of order
		c.Add(1, id)
	}
	c.Add(2, 4) // another owner's
	c.Remove(9)
	for _, tt := range []struct {
		after int64
		limit int
		want  []int64
		more  bool
	}{
		{0, 10, []int64{1, 3, 5, 7}, false},
		{0, 2, []int64{1, 3}, true},
		{3, 2, []int64{5, 7}, false},
		{4, 1, []int64{5}, true},
		{7, 5, []int64{}, false},
		{100, 5, []int64{}, false},
	} {
		got, more, total := c.Page(1, tt.after, tt.limit)
		if !slices.Equal(got, tt.want) || more != tt.more || total != 4 {
			t.Errorf("page(%d, %d) = %v, more %v, total %d; want %v, %v, 4", tt.after, tt.limit, got, more, total, tt.want, tt.more)
		}
	}
	if got := c.All(); !slices.Equal(got, []int64{1, 3, 4, 5, 7}) || c.Last != 9 {
		t.Errorf("all = %v, last %d; want every owner's by id, and 9 the last taken", got, c.Last)
	}
}

// TestRingKeepsTheLast: a ring holds the last MaxRecords values, oldest
// first.
func TestRingKeepsTheLast(t *testing.T) {
	t.Parallel()
	var r Ring[int]
	for i := range MaxRecords + 5 {
		r.Push(i)
	}
	all := r.All()
	if len(all) != MaxRecords || all[0] != 5 || all[len(all)-1] != MaxRecords+4 {
		t.Fatalf("ring of %d from %d to %d", len(all), all[0], all[len(all)-1])
	}
}

// TestTruncate: a value is cut at a character boundary, marked, and never
// returned as a substring of what it was cut from.
func TestTruncate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"GET", "GET"},
		{strings.Repeat("a", 10), "aaaa" + TruncatedMarker},
		{"aaaébb", "aaa" + TruncatedMarker}, // é is 2 bytes at 3..4: cut before it
	} {
		if got := Truncate(tt.in, 4); got != tt.want {
			t.Errorf("Truncate(%q, 4) = %q, want %q", tt.in, got, tt.want)
		}
	}
	long := strings.Repeat("x", 100)
	if got := Truncate(long, 200); fmt.Sprintf("%p", []byte(got)) == fmt.Sprintf("%p", []byte(long)) {
		t.Error("not a copy")
	}
}
