package scribetest

import (
	"slices"
	"testing"
)

// TestRingKeepsTheLastValuesInOrder protects the bounded records: the last
// max values, oldest first, however many were pushed.
func TestRingKeepsTheLastValuesInOrder(t *testing.T) {
	for _, pushed := range []int{0, 1, 3, 4, 5, 9, 10} {
		r := ring[int]{max: 4}
		var want []int
		for i := range pushed {
			r.push(i)
			want = append(want, i)
		}
		want = want[max(0, len(want)-4):]
		if got := r.all(); !slices.Equal(got, want) {
			t.Errorf("after %d pushes: all() = %v, want %v", pushed, got, want)
		}
	}
}

// TestZeroRingKeepsMaxRecords protects the zero value's bound.
func TestZeroRingKeepsMaxRecords(t *testing.T) {
	var r ring[int]
	for i := range maxRecords + 5 {
		r.push(i)
	}
	got := r.all()
	if len(got) != maxRecords || got[0] != 5 || got[len(got)-1] != maxRecords+4 {
		t.Errorf("len %d, first %d, last %d; want %d, 5, %d", len(got), got[0], got[len(got)-1], maxRecords, maxRecords+4)
	}
}
