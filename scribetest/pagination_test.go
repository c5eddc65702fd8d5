package scribetest_test

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/wire"
	"github.com/scribehq/scribe-go/scribetest"
)

// page fetches one page of the user's transcripts.
func (e *env) page(t *testing.T, token, query string) wire.List[scribe.Transcript] {
	t.Helper()
	resp, body := e.do(t, req{method: "GET", path: "/transcripts" + query, token: token})
	if resp.StatusCode != 200 {
		t.Fatalf("GET /transcripts%s = %d: %s", query, resp.StatusCode, body)
	}
	return decode[wire.List[scribe.Transcript]](t, body)
}

func idsOf(ts []scribe.Transcript) []int64 {
	out := []int64{}
	for _, tr := range ts {
		out = append(out, tr.ID)
	}
	return out
}

type pageSummary struct {
	IDs        []int64
	HasMore    bool
	TotalCount int
}

// TestPaginationEdges checks docs/pagination.md on the user's three transcripts.
func TestPaginationEdges(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.userToken(t)
	id := func(i int) int64 { return e.transcripts[i].ID }

	tests := []struct {
		query string
		want  pageSummary
	}{
		{"", pageSummary{[]int64{id(0), id(1), id(2)}, false, 3}},
		{"?limit=2", pageSummary{[]int64{id(0), id(1)}, true, 3}},
		{fmt.Sprintf("?limit=2&after_id=%d", id(1)), pageSummary{[]int64{id(2)}, false, 3}},
		{fmt.Sprintf("?limit=1&after_id=%d", id(1)), pageSummary{[]int64{id(2)}, false, 3}}, // has_more only if a greater id exists
		{fmt.Sprintf("?after_id=%d", id(2)), pageSummary{[]int64{}, false, 3}},
		{"?after_id=9007199254740991", pageSummary{[]int64{}, false, 3}},
		{fmt.Sprintf("?after_id=%d", e.otherTranscript.ID), pageSummary{[]int64{}, false, 3}}, // another user's id is just a number
	}
	for _, tt := range tests {
		got := e.page(t, tok, tt.query)
		if diff := cmp.Diff(tt.want, pageSummary{idsOf(got.Data), got.HasMore, got.TotalCount}); diff != "" {
			t.Errorf("GET /transcripts%s (-want +got):\n%s", tt.query, diff)
		}
	}

	// A deleted cursor still works, and total_count follows the deletion.
	if err := e.s.DeleteTranscript(id(1)); err != nil {
		t.Fatal(err)
	}
	got := e.page(t, tok, fmt.Sprintf("?after_id=%d", id(1)))
	if diff := cmp.Diff(pageSummary{[]int64{id(2)}, false, 2}, pageSummary{idsOf(got.Data), got.HasMore, got.TotalCount}); diff != "" {
		t.Errorf("after a deleted id (-want +got):\n%s", diff)
	}
}

// TestDefaultLimit: without limit a page holds 20 items.
func TestDefaultLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for range 22 {
		if _, err := e.s.CreateTranscript(e.user.ID, scribetest.TranscriptParams{Type: "dictation"}); err != nil {
			t.Fatal(err)
		}
	}
	got := e.page(t, e.userToken(t), "")
	if len(got.Data) != 20 || !got.HasMore || got.TotalCount != 25 {
		t.Errorf("default page: %d items, has_more %v, total %d; want 20, true, 25", len(got.Data), got.HasMore, got.TotalCount)
	}
}

// TestWalkUnderConcurrentChanges is the property of docs/pagination.md: while
// goroutines insert and delete transcripts, walking every page returns no
// item twice (ids strictly increase) and every item that existed for the
// whole walk.
func TestWalkUnderConcurrentChanges(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.userToken(t)

	// Stable items exist before every walk and are never deleted; churn
	// items come and go during the walks.
	stable := map[int64]bool{}
	for _, tr := range e.transcripts {
		stable[tr.ID] = true
	}
	for range 60 {
		tr, err := e.s.CreateTranscript(e.user.ID, scribetest.TranscriptParams{Type: "meeting"})
		if err != nil {
			t.Fatal(err)
		}
		stable[tr.ID] = true
	}

	const perInserter = 400
	var (
		inserters sync.WaitGroup
		deleter   sync.WaitGroup
		inserted  atomic.Bool // every inserter has finished
		churn     = make(chan int64, 2*perInserter)
		changes   atomic.Int64
	)
	for range 2 {
		inserters.Go(func() {
			for range perInserter {
				tr, err := e.s.CreateTranscript(e.user.ID, scribetest.TranscriptParams{Type: "churn"})
				if err != nil {
					t.Error(err)
					return
				}
				changes.Add(1)
				churn <- tr.ID
				runtime.Gosched()
			}
		})
	}
	go func() { inserters.Wait(); inserted.Store(true); close(churn) }()
	deleter.Go(func() { // deletes every other churn item
		for id := range churn {
			if id%2 == 0 {
				continue
			}
			if err := e.s.DeleteTranscript(id); err != nil {
				t.Error(err)
				return
			}
			changes.Add(1)
		}
	})

	overlapped := false // some walk saw changes happen while it ran
	for walk := 0; walk < 3 || !inserted.Load(); walk++ {
		before := changes.Load()
		seen := []int64{}
		after := int64(0)
		for {
			pg := e.page(t, tok, fmt.Sprintf("?limit=7&after_id=%d", after))
			seen = append(seen, idsOf(pg.Data)...)
			if !pg.HasMore {
				break
			}
			after = pg.Data[len(pg.Data)-1].ID
		}
		overlapped = overlapped || changes.Load() != before
		if !slices.IsSorted(seen) || len(slices.Compact(slices.Clone(seen))) != len(seen) {
			t.Fatalf("walk %d returned an id twice or out of order: %v", walk, seen)
		}
		for id := range stable {
			if _, found := slices.BinarySearch(seen, id); !found {
				t.Errorf("walk %d skipped transcript %d, which existed throughout", walk, id)
			}
		}
	}
	deleter.Wait()
	if !overlapped {
		t.Fatal("no change happened during any walk; the test proved nothing")
	}
}
