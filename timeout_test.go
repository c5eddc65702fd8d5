package scribe_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/scribehq/scribe-go"
)

// stallingServer answers every request after stall has done its part, then
// waits until the client hangs up.
func stallingServer(t *testing.T, stall func(w http.ResponseWriter)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stall(w)
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv
}

// beforeHeaders sends nothing: the attempt times out waiting for the headers.
func beforeHeaders(http.ResponseWriter) {}

// halfBody sends the headers of a 200 and half its body, then stalls.
func halfBody(body string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = io.WriteString(w, body[:len(body)/2])
		_ = http.NewResponseController(w).Flush()
	}
}

// isTimeout is the check retry middleware and metrics make of an error.
func isTimeout(err error) bool {
	var netErr net.Error
	return errors.As(err, &netErr) && netErr.Timeout()
}

// TestTimeoutsAreNetErrors protects that every timeout the SDK reports is
// one that Go code recognises as such: errors.As to a net.Error whose
// Timeout is true, and errors.Is context.DeadlineExceeded. It holds for the
// SDK's own per-attempt timeout (WithRequestTimeout, 60 s by default)
// before the headers and mid-body, through a pager, and after the retries
// are spent, as it does for a context's deadline and for an http.Client's
// Timeout.
func TestTimeoutsAreNetErrors(t *testing.T) {
	t.Parallel()
	const short = 100 * time.Millisecond // the timeouts that may end an attempt anywhere
	const headers = time.Second          // long enough for the headers to come back on a loaded machine
	get := func(c *scribe.Client, ctx context.Context) error { _, err := c.GetTranscript(ctx, 42); return err }
	walk := func(c *scribe.Client, ctx context.Context) error {
		for _, err := range c.ListTranscripts(ctx, nil).All() {
			if err != nil {
				return err
			}
		}
		return errors.New("the walk ended without an error")
	}
	tests := []struct {
		name         string
		stall        func(http.ResponseWriter)
		call         func(*scribe.Client, context.Context) error
		opts         []scribe.Option
		ctxTimeout   time.Duration // the caller's context's, if any
		hcTimeout    time.Duration // the http.Client's, if any
		wantAttempts int64
		wantCut      bool // a *ResponseInterruptedError
	}{
		{"attempt timeout before the headers", beforeHeaders, get, []scribe.Option{scribe.WithRequestTimeout(short), scribe.WithMaxRetries(0)}, 0, 0, 1, false},
		{"attempt timeout mid-body", halfBody(transcriptJSON), get, []scribe.Option{scribe.WithRequestTimeout(headers), scribe.WithMaxRetries(0)}, 0, 0, 1, true},
		{"attempt timeout through a pager", beforeHeaders, walk, []scribe.Option{scribe.WithRequestTimeout(short), scribe.WithMaxRetries(0)}, 0, 0, 1, false},
		{"attempt timeout, retries exhausted", beforeHeaders, get, []scribe.Option{scribe.WithRequestTimeout(short), scribe.WithMaxRetries(2)}, 0, 0, 3, false},
		{"attempt timeout mid-body, retries exhausted", halfBody(transcriptJSON), get, []scribe.Option{scribe.WithRequestTimeout(headers), scribe.WithMaxRetries(1)}, 0, 0, 2, true},
		{"context deadline", beforeHeaders, get, []scribe.Option{scribe.WithMaxRetries(0)}, short, 0, 1, false},
		{"http.Client.Timeout", beforeHeaders, get, []scribe.Option{scribe.WithMaxRetries(0)}, 0, short, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := stallingServer(t, tt.stall)
			hc := srv.Client()
			hc.Timeout = tt.hcTimeout
			// Attempts are counted as the client sends them: on a busy
			// machine a timeout may end one before it reaches the server.
			sent := &countingTransport{base: hc.Transport}
			hc.Transport = sent
			opts := append([]scribe.Option{scribe.WithHTTPClient(hc), scribe.WithDeveloperKey(testDeveloperKey), scribe.WithRetryWait(0, 0)}, tt.opts...)
			c, err := scribe.NewClient(srv.URL, opts...)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if tt.ctxTimeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.ctxTimeout)
				defer cancel()
			}
			err = tt.call(c, ctx)
			if !isTimeout(err) {
				t.Errorf("err = %v: errors.As(err, &netErr) && netErr.Timeout() is false", err)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v: errors.Is(err, context.DeadlineExceeded) is false", err)
			}
			var cut *scribe.ResponseInterruptedError
			if errors.As(err, &cut) != tt.wantCut {
				t.Errorf("err = %v (%T): a *ResponseInterruptedError: %v, want %v", err, err, !tt.wantCut, tt.wantCut)
			}
			if strings.HasPrefix(tt.name, "attempt") && !strings.Contains(err.Error(), "attempt timed out after") {
				t.Errorf("err = %v, want it to say the attempt timed out", err)
			}
			if got := sent.n.Load(); got != tt.wantAttempts {
				t.Errorf("%d attempts sent, want %d", got, tt.wantAttempts)
			}
		})
	}
}
