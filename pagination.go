package scribe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/url"
	"slices"
	"strconv"

	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/internal/wire"
)

// defaultPageSize is the page size the service uses when ListParams.Limit is 0.
const defaultPageSize = 20

// MaxPageSize is the largest ListParams.Limit the service accepts.
const MaxPageSize = 100

// maxEmptyPages is how many pages in a row may come back empty while saying
// has_more before a walk gives up with ErrPaginationStalled: the first is
// asked for again once, the second ends the walk.
const maxEmptyPages = 2

// ErrPaginationStalled is returned (wrapped) when the service's cursor does
// not advance while it says has_more: a page whose last id is not greater
// than the cursor it was asked with (the same page again, or an earlier
// one) ends the walk at once, and an empty page claiming has_more is asked
// for again once, then ends the walk. The walk stops rather than loop
// forever or yield items twice.
var ErrPaginationStalled = errors.New("scribe: pagination stalled: the cursor did not advance")

// ListParams are the paging parameters every list operation takes, embedded
// in its params type. The zero value walks the whole collection from the
// start in pages of the service's default size.
type ListParams struct {
	// Limit is the page size, 1 to 100; 0 means the service's default (20).
	Limit int
	// AfterID starts the walk after this id (items are ordered by ascending
	// id); 0 starts at the beginning. The id need not exist any more.
	AfterID int64
	// MaxItems caps the number of items a walk yields; 0 means no cap. The
	// last page is cut short to the cap, and no page is fetched beyond it.
	MaxItems int
}

// Page is one page of a list operation.
type Page[T any] struct {
	// Data are the page's items, in ascending id order.
	Data []T
	// HasMore reports whether items exist after this page.
	HasMore bool
	// TotalCount counts every item of the collection visible to the caller,
	// not only those after this page.
	TotalCount int
	// NextAfterID is the AfterID that fetches the page after this one: the
	// id of its last item, or the cursor it was fetched with when it is
	// empty. Keep it to resume a walk later with a new List call.
	NextAfterID int64
	// Response is what the answer that carried this page said besides its
	// body: status, headers, the request id to quote when reporting a
	// problem (Response.RequestID) and rate-limit figures
	// (Response.RateLimit). It is never nil.
	Response *Response
}

// Pager walks the pages of one list operation. A List method returns it
// without sending anything; the requests go out as it is iterated, with the
// context and options given to the List call. All and Pages may be ranged
// over several times, each range a new walk from the params' AfterID; Next
// pages by hand with a cursor of its own.
//
// The walk cannot loop forever: an empty page that claims has_more is asked
// for again once (the cursor stays where it was), and a second one in a row
// stops the walk with ErrPaginationStalled; so does, at once, a page whose
// last id does not advance past the cursor.
type Pager[T any] struct {
	ctx    context.Context
	op     string // the method name, for argument errors
	params ListParams
	idOf   func(T) int64
	fetch  func(ctx context.Context, afterID int64, limit int) (*Page[T], error)
	next   cursor // Next's position
	// nextStarted reports whether next was initialized from params.
	nextStarted bool
	// check, if set, validates the List call's other arguments.
	check func() error
}

// cursor is the position of one walk.
type cursor struct {
	afterID int64
	yielded int
	empties int
	done    bool
}

// envelope is a page as it decodes: the list envelope the reference server
// encodes (wire.List).
type envelope[T any] wire.List[T]

// unidentified: a page is read only with its data and has_more, and each
// item with what identifies it (decode.go). A false has_more is the last
// page only where body has it: a page without it could end a walk early.
func (e *envelope[T]) unidentified(body []byte) (string, string) {
	switch {
	case !e.HasMore && !apijson.Present(body, "has_more"):
		return "has_more", "true or false"
	case e.Data == nil:
		return "data", "an array"
	}
	for i := range e.Data {
		if r, ok := any(&e.Data[i]).(resource); ok {
			if m, w := r.unidentified(nil); m != "" {
				return "data/" + strconv.Itoa(i) + "/" + m, w
			}
		}
	}
	return "", ""
}

// zero is apijson.Zero of a page (decode.go), but for has_more, which
// unidentified has found in the body already: false on every last page.
func (e *envelope[T]) zero() bool {
	for i := range e.Data {
		if apijson.Zero(&e.Data[i]) {
			return true
		}
	}
	return e.TotalCount == 0
}

// newPager returns the pager of the list operation r.
func newPager[T any](ctx context.Context, c *Client, r request, params ListParams, idOf func(T) int64, opts []Option) *Pager[T] {
	opts = slices.Clone(opts) // the caller's slice may change after List returns
	return &Pager[T]{
		ctx:    ctx,
		op:     r.op.Name,
		params: params,
		idOf:   idOf,
		fetch: func(ctx context.Context, afterID int64, limit int) (*Page[T], error) {
			q := url.Values{}
			if afterID > 0 {
				q.Set("after_id", strconv.FormatInt(afterID, 10))
			}
			if limit > 0 {
				q.Set("limit", strconv.Itoa(limit))
			}
			r := r
			r.query = q.Encode()
			var env envelope[T]
			resp, err := c.do(ctx, r, &env, opts)
			if err != nil {
				return nil, err
			}
			return &Page[T]{Data: env.Data, HasMore: env.HasMore, TotalCount: env.TotalCount, Response: resp}, nil
		},
	}
}

// All returns an iterator over every item of every page. It stops at the
// first error, which it yields once (with the zero T), and stops fetching
// when the loop body breaks.
func (p *Pager[T]) All() iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		for page, err := range p.Pages() {
			if err != nil {
				yield(zero, err)
				return
			}
			for _, item := range page.Data {
				if err := p.ctx.Err(); err != nil {
					yield(zero, fmt.Errorf("scribe: %s: %w", p.op, err))
					return
				}
				if !yield(item, nil) {
					return
				}
			}
		}
	}
}

// Pages returns an iterator over the pages, fetching each as the loop asks
// for it. It stops at the first error, which it yields once (with a nil
// page), and stops fetching when the loop body breaks.
func (p *Pager[T]) Pages() iter.Seq2[*Page[T], error] {
	return func(yield func(*Page[T], error) bool) {
		c := cursor{afterID: p.params.AfterID}
		for {
			page, err := p.step(&c)
			if err == io.EOF {
				return
			}
			if err != nil {
				c.done = true
				yield(nil, err)
				return
			}
			if !yield(page, nil) {
				return
			}
		}
	}
}

// Next fetches the next page of the pager's own walk and returns io.EOF once
// the last one has been returned. After any other error the position is
// unchanged, so calling Next again retries the same page. Next is not safe
// for concurrent use.
func (p *Pager[T]) Next() (*Page[T], error) {
	if !p.nextStarted {
		p.next = cursor{afterID: p.params.AfterID}
		p.nextStarted = true
	}
	saved := p.next
	page, err := p.step(&p.next)
	if err != nil && err != io.EOF {
		p.next = saved
	}
	return page, err
}

// step fetches the page after c and advances c; io.EOF means the walk is over.
func (p *Pager[T]) step(c *cursor) (*Page[T], error) {
	if c.done {
		return nil, io.EOF
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	if err := p.ctx.Err(); err != nil {
		return nil, fmt.Errorf("scribe: %s: %w", p.op, err)
	}
	limit := p.params.Limit
	if p.params.MaxItems > 0 {
		pageSize := limit
		if pageSize == 0 {
			pageSize = defaultPageSize
		}
		if remaining := p.params.MaxItems - c.yielded; remaining < pageSize {
			limit = remaining // fetch no more than the cap lets through
		}
	}
	page, err := p.fetch(p.ctx, c.afterID, limit)
	if err != nil {
		return nil, err
	}
	if len(page.Data) == 0 && page.HasMore {
		c.empties++
		if c.empties >= maxEmptyPages {
			return nil, fmt.Errorf("%w: %d empty pages with has_more in a row after id %d [request id %s]; report this to the platform",
				ErrPaginationStalled, c.empties, c.afterID, page.Response.RequestID)
		}
	} else {
		c.empties = 0
	}
	// Every id must pass the cursor, in ascending order: an item at or
	// before it (the same page again, an earlier one, or one overlapping the
	// cursor) would be yielded twice, and a page that does not advance the
	// cursor could loop forever.
	prev := c.afterID
	for _, item := range page.Data {
		id := p.idOf(item)
		if id <= prev {
			return nil, fmt.Errorf("%w: asked for the items after id %d, the page holds id %d after id %d [request id %s]; report this to the platform",
				ErrPaginationStalled, c.afterID, id, prev, page.Response.RequestID)
		}
		prev = id
	}
	if p.params.MaxItems > 0 && c.yielded+len(page.Data) >= p.params.MaxItems {
		if keep := p.params.MaxItems - c.yielded; keep < len(page.Data) {
			page.Data = page.Data[:keep:keep]
			page.HasMore = true // the rest of this page is still there
		}
		c.done = true
	}
	if n := len(page.Data); n > 0 {
		c.afterID = p.idOf(page.Data[n-1])
	}
	c.yielded += len(page.Data)
	page.NextAfterID = c.afterID
	if !page.HasMore {
		c.done = true
	}
	return page, nil
}

// validate refuses paging parameters the service would answer 400.
func (p *Pager[T]) validate() error {
	if p.ctx == nil {
		return &ArgumentError{Func: p.op, Arg: "ctx", Reason: "is nil; pass context.Background() or a request's context"}
	}
	switch {
	case p.params.Limit < 0 || p.params.Limit > MaxPageSize:
		return &ArgumentError{Func: p.op, Arg: "params.Limit", Reason: fmt.Sprintf("is %d; want 1 to %d, or 0 for the default page size", p.params.Limit, MaxPageSize)}
	case p.params.AfterID < 0:
		return &ArgumentError{Func: p.op, Arg: "params.AfterID", Reason: fmt.Sprintf("is %d; want an id, or 0 to start at the beginning", p.params.AfterID)}
	case p.params.MaxItems < 0:
		return &ArgumentError{Func: p.op, Arg: "params.MaxItems", Reason: fmt.Sprintf("is %d; want a cap, or 0 for none", p.params.MaxItems)}
	}
	if p.check != nil {
		return p.check()
	}
	return nil
}
