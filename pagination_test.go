package scribe_test

import (
	"context"
	"errors"
	"io"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
	"github.com/scribehq/scribe-go"
)

func pluginItem(id int) string {
	return `{"id":` + strconv.Itoa(id) + `,"name":"p` + strconv.Itoa(id) + `","description":"","permissions":{"user":"none","transcript":"none"},"published":false,"disabled":false,"crm_integration_id":null,"logo_uri":"","user_id":7,"created_on":"2026-11-01T08:00:00Z","updated_on":"2026-11-01T08:00:00Z"}`
}

func pluginPage(hasMore bool, ids ...int) httpmock.Responder {
	items := make([]string, len(ids))
	for i, id := range ids {
		items[i] = pluginItem(id)
	}
	return ok(page(hasMore, 7, items...))
}

// walk ranges over All and returns the ids seen and the errors yielded.
func walk(p *scribe.Pager[scribe.Plugin]) (ids []int64, errs []error) {
	for pl, err := range p.All() {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ids = append(ids, pl.ID)
	}
	return ids, errs
}

func queries(f *fake) []string {
	var qs []string
	for _, r := range f.requests() {
		qs = append(qs, r.Query)
	}
	return qs
}

// TestPagerWalksEveryPage protects a walk across several pages: each request
// continues after the last id seen, and the walk ends when has_more is false.
func TestPagerWalksEveryPage(t *testing.T) {
	t.Parallel()
	f := newFake(t, pluginPage(true, 1, 2), pluginPage(true, 3, 5), pluginPage(false, 8))
	ids, errs := walk(f.client().ListPlugins(context.Background(), &scribe.ListPluginsParams{ListParams: scribe.ListParams{Limit: 2}}))
	if errs != nil {
		t.Fatal(errs)
	}
	if diff := cmp.Diff([]int64{1, 2, 3, 5, 8}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"limit=2", "after_id=2&limit=2", "after_id=5&limit=2"}, queries(f)); diff != "" {
		t.Errorf("queries (-want +got):\n%s", diff)
	}
}

// TestPagerPages protects the page view: metadata of each page and the
// cursor to resume from.
func TestPagerPages(t *testing.T) {
	t.Parallel()
	f := newFake(t, pluginPage(true, 1, 2), pluginPage(false, 3))
	type pageInfo struct {
		N           int
		HasMore     bool
		TotalCount  int
		RequestID   string
		NextAfterID int64
	}
	var got []pageInfo
	for p, err := range f.client().ListPlugins(context.Background(), nil).Pages() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, pageInfo{len(p.Data), p.HasMore, p.TotalCount, p.Response.RequestID, p.NextAfterID})
	}
	want := []pageInfo{{2, true, 7, "req_test", 2}, {1, false, 7, "req_test", 3}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
}

// TestPagerEmptyMiddlePage protects that an empty page claiming has_more is
// passed over: the cursor stays, and the walk goes on.
func TestPagerEmptyMiddlePage(t *testing.T) {
	t.Parallel()
	f := newFake(t, pluginPage(true, 1, 2), pluginPage(true), pluginPage(false, 3))
	ids, errs := walk(f.client().ListPlugins(context.Background(), nil))
	if errs != nil {
		t.Fatal(errs)
	}
	if diff := cmp.Diff([]int64{1, 2, 3}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"", "after_id=2", "after_id=2"}, queries(f)); diff != "" {
		t.Errorf("queries (-want +got):\n%s", diff)
	}
}

// TestPagerStalls protects that two empty has_more pages in a row (one
// repeat) stop the walk with ErrPaginationStalled instead of looping forever.
func TestPagerStalls(t *testing.T) {
	t.Parallel()
	f := newFake(t, pluginPage(true, 1), pluginPage(true))
	ids, errs := walk(f.client().ListPlugins(context.Background(), nil))
	if len(errs) != 1 || !errors.Is(errs[0], scribe.ErrPaginationStalled) {
		t.Fatalf("errs = %v, want one ErrPaginationStalled", errs)
	}
	if diff := cmp.Diff([]int64{1}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if n := len(f.requests()); n != 3 {
		t.Errorf("requests = %d, want 3 (one page, two empty ones)", n)
	}
}

// TestPagerErrorMidWalk protects that an error ends the walk: it is yielded
// once, after the items before it, and nothing more is fetched.
func TestPagerErrorMidWalk(t *testing.T) {
	t.Parallel()
	f := newFake(t, pluginPage(true, 1, 2), problem(403, scribe.CodePluginDisabled, "disabled"), pluginPage(false, 3))
	ids, errs := walk(f.client().ListPlugins(context.Background(), nil))
	if diff := cmp.Diff([]int64{1, 2}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if len(errs) != 1 || !errors.Is(errs[0], scribe.ErrForbidden) {
		t.Errorf("errs = %v, want one ErrForbidden", errs)
	}
	if n := len(f.requests()); n != 2 {
		t.Errorf("requests = %d, want 2", n)
	}
}

// TestPagerMaxItems protects the cap: no more items than MaxItems, the last
// page asked no larger than needed, nothing fetched beyond it.
func TestPagerMaxItems(t *testing.T) {
	t.Parallel()
	f := newFake(t, pluginPage(true, 1, 2, 3), pluginPage(true, 4, 5, 6))
	p := f.client().ListPlugins(context.Background(), &scribe.ListPluginsParams{ListParams: scribe.ListParams{Limit: 3, MaxItems: 4}})
	ids, errs := walk(p)
	if errs != nil {
		t.Fatal(errs)
	}
	if diff := cmp.Diff([]int64{1, 2, 3, 4}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	// The fake ignores limit=1 and sends 3 items: the client cuts the page.
	if diff := cmp.Diff([]string{"limit=3", "after_id=3&limit=1"}, queries(f)); diff != "" {
		t.Errorf("queries (-want +got):\n%s", diff)
	}
}

// TestPagerLeavesParamsAlone protects that walking never changes the
// caller's params, and that changing them after List does not change the walk.
func TestPagerLeavesParamsAlone(t *testing.T) {
	t.Parallel()
	f := newFake(t, pluginPage(true, 1, 2), pluginPage(false, 3))
	params := &scribe.ListPluginsParams{ListParams: scribe.ListParams{Limit: 2, AfterID: 0, MaxItems: 10}}
	before := *params
	p := f.client().ListPlugins(context.Background(), params)
	params.Limit = 99 // after List: must not affect the walk
	if _, errs := walk(p); errs != nil {
		t.Fatal(errs)
	}
	params.Limit = before.Limit
	if diff := cmp.Diff(before, *params); diff != "" {
		t.Errorf("params changed (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"limit=2", "after_id=2&limit=2"}, queries(f)); diff != "" {
		t.Errorf("queries (-want +got):\n%s", diff)
	}
}

// TestPagerIsLazy protects that List sends nothing until iterated, and that
// breaking out of the loop stops fetching.
func TestPagerIsLazy(t *testing.T) {
	t.Parallel()
	f := newFake(t, pluginPage(true, 1, 2), pluginPage(true, 3, 4), pluginPage(false, 5))
	p := f.client().ListPlugins(context.Background(), nil)
	if n := len(f.requests()); n != 0 {
		t.Fatalf("List sent %d requests before iteration", n)
	}
	for pl, err := range p.All() {
		if err != nil {
			t.Fatal(err)
		}
		if pl.ID == 2 {
			break
		}
	}
	if n := len(f.requests()); n != 1 {
		t.Errorf("requests = %d after breaking on the first page, want 1", n)
	}
}

// TestPagerRangesAgain protects that each range over All is a new walk from
// the start.
func TestPagerRangesAgain(t *testing.T) {
	t.Parallel()
	f := newFake(t, pluginPage(false, 1, 2))
	p := f.client().ListPlugins(context.Background(), nil)
	a, _ := walk(p)
	b, _ := walk(p)
	if diff := cmp.Diff(a, b); diff != "" || len(a) != 2 {
		t.Errorf("second walk differs (-first +second):\n%s", diff)
	}
}

// TestPagerCancel protects that cancelling the List call's context stops the
// walk with the context's error, yielded once.
func TestPagerCancel(t *testing.T) {
	t.Parallel()
	f := newFake(t, pluginPage(true, 1, 2, 3), pluginPage(false, 4))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ids []int64
	var errs []error
	for pl, err := range f.client().ListPlugins(ctx, nil).All() {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ids = append(ids, pl.ID)
		cancel()
	}
	if diff := cmp.Diff([]int64{1}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
		t.Errorf("errs = %v, want one context.Canceled", errs)
	}
	if n := len(f.requests()); n != 1 {
		t.Errorf("requests = %d, want 1", n)
	}
}

// TestPagerNext protects hand paging: Next returns page after page, then
// io.EOF; after an error it retries the same page.
func TestPagerNext(t *testing.T) {
	t.Parallel()
	f := newFake(t, pluginPage(true, 1, 2), problem(503, scribe.CodeServiceUnavailable, "down"), pluginPage(false, 3))
	p := f.client(scribe.WithMaxRetries(0)).ListPlugins(context.Background(), &scribe.ListPluginsParams{ListParams: scribe.ListParams{AfterID: 0}})
	var got []int
	var errs int
	for {
		pg, err := p.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if errs++; errs > 1 {
				t.Fatalf("second error: %v", err)
			}
			continue
		}
		got = append(got, len(pg.Data))
	}
	if diff := cmp.Diff([]int{2, 1}, got); diff != "" {
		t.Errorf("page sizes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"", "after_id=2", "after_id=2"}, queries(f)); diff != "" {
		t.Errorf("queries (-want +got):\n%s", diff)
	}
	if _, err := p.Next(); err != io.EOF {
		t.Errorf("Next after the end = %v, want io.EOF", err)
	}
}
