package state

import (
	"slices"
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
