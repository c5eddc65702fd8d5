package scribe_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest"
)

// How a lossyLink treats the server's answers.
const (
	linkPass     = iota // passed on
	linkReset           // read whole from the server, then the client's connection is reset
	linkCutBody         // the headers and a few bytes of the body passed on, then the connection reset
	linkWithhold        // read whole from the server and never passed on, until the client hangs up
)

// lossyLink is a TCP proxy in front of a server that loses the server's
// answers after the server has done the work, as a network can: the request
// goes through whole, the answer does not.
type lossyLink struct {
	ln       net.Listener
	target   string
	mode     atomic.Int32
	withheld chan struct{} // receives when an answer is withheld

	mu    sync.Mutex
	conns []net.Conn // closed when the test ends
}

func newLossyLink(t *testing.T, target string) *lossyLink {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &lossyLink{ln: ln, target: target, withheld: make(chan struct{}, 16)}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		l.mu.Lock()
		for _, c := range l.conns {
			c.Close()
		}
		l.mu.Unlock()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { l.serve(c) })
		}
	})
	return l
}

// track keeps c to close when the test ends.
func (l *lossyLink) track(c net.Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.conns = append(l.conns, c)
}

// set makes the link treat the next answers by mode, and forgets the
// answers withheld so far.
func (l *lossyLink) set(mode int32) {
	l.mode.Store(mode)
	for {
		select {
		case <-l.withheld:
		default:
			return
		}
	}
}

// client returns an HTTP client whose every connection goes through l.
func (l *lossyLink) client() *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, l.ln.Addr().String())
		},
	}}
}

func (l *lossyLink) serve(client net.Conn) {
	defer client.Close()
	l.track(client)
	server, err := net.Dial("tcp", l.target)
	if err != nil {
		return
	}
	defer server.Close()
	l.track(server)
	go func() { _, _ = io.Copy(server, client); server.Close() }()
	buf := make([]byte, 64<<10)
	for {
		n, err := server.Read(buf)
		if err != nil {
			return
		}
		answer := buf[:n]
		switch l.mode.Load() {
		case linkReset:
			reset(client)
			return
		case linkCutBody:
			if i := bytes.Index(answer, []byte("\r\n\r\n")); i >= 0 && i+8 < n {
				_, _ = client.Write(answer[:i+8])
			}
			reset(client)
			return
		case linkWithhold:
			select {
			case l.withheld <- struct{}{}:
			default:
			}
			_, _ = io.Copy(io.Discard, client) // until the client hangs up
			return
		}
		if _, err := client.Write(answer); err != nil {
			return
		}
	}
}

// reset closes c with a TCP RST, as a broken network or a crashed peer does.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}

// TestIdempotencyKeyOfRecovers protects the recovery docs/client.md
// promises: a POST (CreatePlugin against the reference server) whose answer
// is lost after the service created the plugin fails, whether by connection
// resets until the retries run out, a cut-off body, attempt timeouts, the
// caller's cancellation or deadline (or by 503 answers, which create
// nothing); every such error
// keeps what errors.Is and errors.As find in it and names its
// Idempotency-Key through IdempotencyKeyOf; and repeating the call with
// that key yields the plugin already created, so exactly one exists.
//
// The timeouts leave a loaded machine a second for the request to reach the
// server and be served; the link withholds the answer after that.
func TestIdempotencyKeyOfRecovers(t *testing.T) {
	t.Parallel()
	srv := scribetest.NewTestServer(t)
	dev, err := srv.CreateDeveloper(scribe.User{FirstName: "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	link := newLossyLink(t, u.Host)
	c, err := srv.DeveloperClient(dev.Key, scribe.WithHTTPClient(link.client()), scribe.WithRetryWait(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	isTimeout := func(err error) bool {
		var ne net.Error
		return errors.As(err, &ne) && ne.Timeout() && errors.Is(err, context.DeadlineExceeded)
	}
	tests := []struct {
		name    string
		mode    int32
		fault   *scribetest.Fault // injected by the server instead
		opts    []scribe.Option
		ctx     func() (context.Context, context.CancelFunc)
		created bool // the service created the plugin before the call failed
		check   func(error) bool
	}{
		{name: "connection resets, retries exhausted", mode: linkReset, opts: []scribe.Option{scribe.WithMaxRetries(2)}, created: true,
			check: func(err error) bool { var ne net.Error; return errors.As(err, &ne) || errors.Is(err, io.EOF) }},
		{name: "body cut off", mode: linkCutBody, opts: []scribe.Option{scribe.WithMaxRetries(1)}, created: true,
			check: func(err error) bool {
				var cut *scribe.ResponseInterruptedError
				return errors.As(err, &cut) && errors.Is(err, scribe.ErrResponseInterrupted)
			}},
		{name: "attempt timeouts", mode: linkWithhold, opts: []scribe.Option{scribe.WithRequestTimeout(time.Second), scribe.WithMaxRetries(1)}, created: true,
			check: isTimeout},
		{name: "cancelled", mode: linkWithhold, opts: []scribe.Option{scribe.WithMaxRetries(0)}, created: true,
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				go func() { <-link.withheld; cancel() }()
				return ctx, cancel
			},
			check: func(err error) bool { return errors.Is(err, context.Canceled) }},
		{name: "deadline expired", mode: linkWithhold, created: true,
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), time.Second)
			},
			check: isTimeout},
		{name: "error answers, retries exhausted", fault: &scribetest.Fault{Method: "POST", Path: "/plugins", Times: -1, Status: http.StatusServiceUnavailable},
			opts: []scribe.Option{scribe.WithMaxRetries(1)},
			check: func(err error) bool {
				var apiErr *scribe.Error
				return errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusServiceUnavailable
			}},
	}
	named := func(name string) []scribe.Plugin {
		var ps []scribe.Plugin
		for _, p := range srv.Plugins() {
			if p.Name == name {
				ps = append(ps, p)
			}
		}
		return ps
	}
	for _, tt := range tests { // one at a time: they share the link
		t.Run(tt.name, func(t *testing.T) {
			params := &scribe.CreatePluginParams{Name: "Plugin " + tt.name}
			ctx, cancel := context.WithCancel(context.Background())
			if tt.ctx != nil {
				ctx, cancel = tt.ctx()
			}
			defer cancel()
			link.set(tt.mode)
			if tt.fault != nil {
				if err := srv.InjectFault(*tt.fault); err != nil {
					t.Fatal(err)
				}
			}
			_, err := c.CreatePlugin(ctx, params, tt.opts...)
			link.set(linkPass)
			srv.ClearFaults()
			if err == nil {
				t.Fatal("CreatePlugin succeeded through the fault")
			}
			if !tt.check(err) {
				t.Errorf("err = %v (%T): errors.Is/As do not find what this failure is", err, err)
			}
			key, ok := scribe.IdempotencyKeyOf(err)
			if !ok || key == "" {
				t.Fatalf("IdempotencyKeyOf(%v) = %q, %v; want the call's key", err, key, ok)
			}
			sent := false
			for _, r := range srv.Requests() {
				sent = sent || (r.Method == http.MethodPost && r.Path == "/plugins" && r.IdempotencyKey == key)
			}
			if !sent {
				t.Errorf("the server saw no POST /plugins with the key %q", key)
			}
			if got := len(named(params.Name)); tt.created && got != 1 {
				t.Fatalf("%d plugins created before the call failed, want 1 (else this case shows nothing)", got)
			}

			p, err := c.CreatePlugin(context.Background(), params, scribe.WithIdempotencyKey(key))
			if err != nil {
				t.Fatalf("repeating the call with its key: %v", err)
			}
			if ps := named(params.Name); len(ps) != 1 || ps[0].ID != p.ID {
				t.Errorf("after the repeat: %d plugins named %q (%v), want exactly one, plugin %d", len(ps), params.Name, ps, p.ID)
			}
		})
	}
}

// TestIdempotencyKeyOf protects which errors name a key: those of a POST
// that sent one, and no others.
func TestIdempotencyKeyOf(t *testing.T) {
	t.Parallel()
	if k, ok := scribe.IdempotencyKeyOf(nil); ok || k != "" {
		t.Errorf("IdempotencyKeyOf(nil) = %q, %v", k, ok)
	}
	f := newFake(t, respond(200, "application/json", "{}")) // not a plugin: a *DecodeError
	c := f.client(scribe.WithMaxRetries(0))
	_, err := c.CreatePlugin(context.Background(), &scribe.CreatePluginParams{Name: "x"}, scribe.WithIdempotencyKey("key-1"))
	var de *scribe.DecodeError
	if k, ok := scribe.IdempotencyKeyOf(err); !errors.As(err, &de) || k != "key-1" || !ok {
		t.Errorf("a POST whose answer did not decode: IdempotencyKeyOf(%v) = %q, %v; want key-1 and a *DecodeError", err, k, ok)
	}
	if _, err := c.GetPlugin(context.Background(), 1); err == nil {
		t.Error("GetPlugin decoded {}")
	} else if k, ok := scribe.IdempotencyKeyOf(err); ok {
		t.Errorf("a GET's error names the key %q", k)
	}
	if _, err := c.CreatePlugin(context.Background(), &scribe.CreatePluginParams{}); err == nil {
		t.Error("CreatePlugin without a name was sent")
	} else if k, ok := scribe.IdempotencyKeyOf(err); ok {
		t.Errorf("a POST refused before sending (%v) names the key %q", err, k)
	}
	if _, err := c.CreatePlugin(context.Background(), &scribe.CreatePluginParams{Name: "x"}, scribe.WithIdempotencyKey("")); err == nil {
		t.Error("CreatePlugin decoded {}")
	} else if k, ok := scribe.IdempotencyKeyOf(err); ok {
		t.Errorf("a POST sent without a key names the key %q", k)
	}
}
