package scribetest

import (
	"fmt"
	"strings"
	"testing"
)

// TestRingKeepsTheLast: a ring holds the last maxRecords values, oldest
// first.
func TestRingKeepsTheLast(t *testing.T) {
	t.Parallel()
	var r ring[int]
	for i := range maxRecords + 5 {
		r.Push(i)
	}
	all := r.All()
	if len(all) != maxRecords || all[0] != 5 || all[len(all)-1] != maxRecords+4 {
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
		if got := truncate(tt.in, 4); got != tt.want {
			t.Errorf("truncate(%q, 4) = %q, want %q", tt.in, got, tt.want)
		}
	}
	long := strings.Repeat("x", 100)
	if got := truncate(long, 200); fmt.Sprintf("%p", []byte(got)) == fmt.Sprintf("%p", []byte(long)) {
		t.Error("not a copy")
	}
}

// Backward yields what the ring keeps, newest first, across its wrap, and
// stops when the loop does.
func TestRingBackward(t *testing.T) {
	t.Parallel()
	var r ring[int]
	for i := range maxRecords + 5 {
		r.Push(i)
	}
	var got []int
	for v := range r.Backward {
		got = append(got, v)
	}
	if len(got) != maxRecords || got[0] != maxRecords+4 || got[4] != maxRecords || got[5] != maxRecords-1 || got[maxRecords-1] != 5 {
		t.Errorf("Backward yielded %d values, from %d to %d", len(got), got[0], got[len(got)-1])
	}
	n := 0
	for range r.Backward {
		if n++; n == 3 {
			break
		}
	}
	if n != 3 {
		t.Errorf("the loop ran %d times after a break at 3", n)
	}
}
