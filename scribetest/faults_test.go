package scribetest_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest"
)

func inject(t *testing.T, s *scribetest.Server, f scribetest.Fault) {
	t.Helper()
	if err := s.InjectFault(f); err != nil {
		t.Fatal(err)
	}
}

// retryWaits records the waits a client logs before its retries.
type retryWaits struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (r *retryWaits) Enabled(context.Context, slog.Level) bool { return true }
func (r *retryWaits) Handle(_ context.Context, rec slog.Record) error {
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key == "wait" && rec.Message == "scribe: retrying" {
			r.mu.Lock()
			r.waits = append(r.waits, a.Value.Duration())
			r.mu.Unlock()
		}
		return true
	})
	return nil
}
func (r *retryWaits) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *retryWaits) WithGroup(string) slog.Handler      { return r }

// TestClientRetriesLeaveTheClockAlone: the clients the server hands out
// retry injected failures after waits of milliseconds of their own
// (WithRetryWait), not the SDK's default backoff, and never move the
// server's clock, which tokens, the idempotency window and webhook retries
// read: on a FakeClock, Now is the same after two retried 503s as before
// them. WithWebhookScheduleScale leaves their waits alone. (The waits are
// read from the client's log, not timed.)
func TestClientRetriesLeaveTheClockAlone(t *testing.T) {
	t.Parallel()
	e := newEnv(t, scribetest.WithWebhookScheduleScale(1000))
	key, err := e.s.CreateSecretKey(e.plugin.ID, "retries")
	if err != nil {
		t.Fatal(err)
	}
	for name, newClient := range map[string]func(opts ...scribe.Option) (*scribe.Client, error){
		"developer": func(opts ...scribe.Option) (*scribe.Client, error) { return e.s.DeveloperClient(e.devA.Key, opts...) },
		"installation": func(opts ...scribe.Option) (*scribe.Client, error) {
			return e.s.InstallationClient(key.Key, e.inst.UUID, opts...)
		},
	} {
		waits := &retryWaits{}
		c, err := newClient(scribe.WithLogger(slog.New(waits)))
		if err != nil {
			t.Fatal(err)
		}
		before := e.s.Clock().Now()
		if err := e.s.FailNext(2, http.StatusServiceUnavailable); err != nil {
			t.Fatal(err)
		}
		var resp scribe.Response
		if name == "developer" {
			_, err = c.GetPlugin(context.Background(), e.plugin.ID, scribe.WithResponseInto(&resp))
		} else {
			_, err = c.GetMe(context.Background(), scribe.WithResponseInto(&resp))
		}
		if err != nil || resp.Attempts != 3 {
			t.Fatalf("%s: %v after %d attempts; want success on the third", name, err, resp.Attempts)
		}
		if now := e.s.Clock().Now(); !now.Equal(before) {
			t.Errorf("%s: the retries moved the server's clock from %s to %s", name, before, now)
		}
		if len(waits.waits) != 2 || waits.waits[0]+waits.waits[1] > 20*time.Millisecond {
			t.Errorf("%s: waited %v before the retries; want two waits of at most 10 ms", name, waits.waits)
		}
	}
}

// TestFailNext: FailNext(2, 503) fails the next two requests with the
// contract's 503 problem, then the server serves normally; FiredFaults
// reports both, with the request ids the answers carried.
func TestFailNext(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if err := e.s.FailNext(2, http.StatusServiceUnavailable); err != nil {
		t.Fatal(err)
	}
	get := req{method: "GET", path: "/plugins", token: e.devA.Key.Reveal()}
	var ids []string
	for i := range 2 {
		resp, body := e.do(t, get)
		p := problemOf(t, resp, body)
		if resp.StatusCode != 503 || p.Code != scribe.CodeServiceUnavailable || p.RequestID != resp.Header.Get("Request-Id") || p.RequestID == "" {
			t.Fatalf("request %d: %d %+v, want 503 service_unavailable with the Request-Id", i+1, resp.StatusCode, p)
		}
		ids = append(ids, p.RequestID)
	}
	if resp, _ := e.do(t, get); resp.StatusCode != 200 {
		t.Fatalf("third request: status %d, want 200", resp.StatusCode)
	}
	var got []string
	for _, f := range e.s.FiredFaults() {
		if f.Method != "GET" || f.Path != "/v1/plugins" || !f.Time.Equal(t0) || f.Fault.Status != 503 {
			t.Errorf("fired fault = %+v", f)
		}
		got = append(got, f.RequestID)
	}
	if diff := cmp.Diff(ids, got); diff != "" {
		t.Errorf("fired faults' request ids (-want +got):\n%s", diff)
	}
}

// TestFaultAnswers: each status a fault may answer with carries the
// contract's code; Retry-After is sent (rounded up to seconds) when given,
// and always on a 429, which also announces a spent quota.
func TestFaultAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fault scribetest.Fault
		code  string
		want  quotaHeaders
	}{
		{scribetest.Fault{Status: 500}, scribe.CodeInternalError, quotaHeaders{}},
		{scribetest.Fault{Status: 502}, scribe.CodeBadGateway, quotaHeaders{}},
		{scribetest.Fault{Status: 503}, scribe.CodeServiceUnavailable, quotaHeaders{}},
		{scribetest.Fault{Status: 503, RetryAfter: 1500 * time.Millisecond}, scribe.CodeServiceUnavailable, quotaHeaders{RetryAfter: "2"}},
		{scribetest.Fault{Status: 504}, scribe.CodeGatewayTimeout, quotaHeaders{}},
		{scribetest.Fault{Status: 429}, scribe.CodeRateLimited, quotaHeaders{"1000", "0", "0", "0"}},
		{scribetest.Fault{Status: 429, RetryAfter: 30 * time.Second}, scribe.CodeRateLimited, quotaHeaders{"1000", "0", "30", "30"}},
	}
	e := newEnv(t) // faults are used up one by one: the cases share a server
	for _, tt := range tests {
		inject(t, e.s, tt.fault)
		resp, body := e.do(t, req{method: "GET", path: "/users/me", token: e.userToken(t)})
		p := problemOf(t, resp, body)
		if resp.StatusCode != tt.fault.Status || p.Code != tt.code || p.Status != tt.fault.Status {
			t.Errorf("%+v: %d %s, want %d %s", tt.fault, resp.StatusCode, p.Code, tt.fault.Status, tt.code)
		}
		if diff := cmp.Diff(tt.want, quotaOf(resp)); diff != "" {
			t.Errorf("%+v: headers (-want +got):\n%s", tt.fault, diff)
		}
	}
}

// TestFaultMatching: a fault applies only to requests of its method and
// path (exact, {name} for one segment, {name...} for the rest); the others
// pass it by, and it waits for a matching one.
func TestFaultMatching(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		fault   scribetest.Fault
		method  string
		path    string
		matches bool
	}{
		{"any request", scribetest.Fault{}, "GET", "/plugins", true},
		{"method", scribetest.Fault{Method: "POST"}, "GET", "/plugins", false},
		{"method, lower case", scribetest.Fault{Method: "post"}, "POST", "/plugins", true},
		{"exact path", scribetest.Fault{Path: "/plugins"}, "GET", "/plugins", true},
		{"exact path, other", scribetest.Fault{Path: "/plugins"}, "GET", "/plugins/1", false},
		{"exact id", scribetest.Fault{Path: "/plugins/1"}, "GET", "/plugins/1", true},
		{"wildcard", scribetest.Fault{Path: "/plugins/{id}"}, "GET", "/plugins/1", true},
		{"wildcard, deeper path", scribetest.Fault{Path: "/plugins/{id}"}, "GET", "/plugins/1/webhooks", false},
		{"wildcard, shorter path", scribetest.Fault{Path: "/plugins/{id}"}, "GET", "/plugins", false},
		{"wildcard in the middle", scribetest.Fault{Path: "/plugins/{id}/secret_keys"}, "POST", "/plugins/1/secret_keys", true},
		{"rest wildcard", scribetest.Fault{Path: "/plugins/{rest...}"}, "GET", "/plugins/1/webhooks", true},
		{"rest wildcard, other root", scribetest.Fault{Path: "/plugins/{rest...}"}, "GET", "/transcripts", false},
		{"rest wildcard, the root alone", scribetest.Fault{Path: "/plugins/{rest...}"}, "GET", "/plugins", false},
		{"rest wildcard, empty rest", scribetest.Fault{Path: "/plugins/{rest...}"}, "GET", "/plugins/", true},
		{"rest wildcard, a newline in the rest", scribetest.Fault{Path: "/plugins/{rest...}"}, "GET", "/plugins/a%0Ab", true},
		{"wildcard, empty segment", scribetest.Fault{Path: "/plugins/{id}"}, "GET", "/plugins/", false},
		{"exact path, a dot is a dot", scribetest.Fault{Path: "/plugins/1.0"}, "GET", "/plugins/100", false},
		{"method and path", scribetest.Fault{Method: "GET", Path: "/users/me"}, "GET", "/users/me", true},
		{"unknown path", scribetest.Fault{Path: "/nowhere"}, "GET", "/nowhere", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			tt.fault.Status = 502
			inject(t, e.s, tt.fault)
			resp, _ := e.do(t, req{method: tt.method, path: tt.path, token: e.devA.Key.Reveal(), body: `{"name":"x"}`})
			if got := resp.StatusCode == 502; got != tt.matches {
				t.Errorf("%s %s with %+v: status %d; matched %t, want %t", tt.method, tt.path, tt.fault, resp.StatusCode, got, tt.matches)
			}
			if n := len(e.s.FiredFaults()); (n == 1) != tt.matches {
				t.Errorf("%d faults fired; matched %t", n, tt.matches)
			}
		})
	}
}

// TestFaultOrderAndTimes: faults fire in the order injected, each for its
// Times; a negative Times lasts until ClearFaults.
func TestFaultOrderAndTimes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	inject(t, e.s, scribetest.Fault{Status: 502, Times: 2})
	inject(t, e.s, scribetest.Fault{Status: 504})
	inject(t, e.s, scribetest.Fault{Status: 500, Times: -1})
	get := req{method: "GET", path: "/plugins", token: e.devA.Key.Reveal()}
	var got []int
	for range 6 {
		resp, _ := e.do(t, get)
		got = append(got, resp.StatusCode)
	}
	e.s.ClearFaults()
	resp, _ := e.do(t, get)
	got = append(got, resp.StatusCode)
	if diff := cmp.Diff([]int{502, 502, 504, 500, 500, 500, 200}, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if n := len(e.s.FiredFaults()); n != 6 {
		t.Errorf("FiredFaults has %d entries, want 6", n)
	}
}

// TestFaultBeforeAuthentication: a fault fires whatever the credential, even
// none, and a faulted request counts against no rate limit.
func TestFaultBeforeAuthentication(t *testing.T) {
	t.Parallel()
	e := newEnv(t, scribetest.WithRateLimit(1, time.Minute))
	inject(t, e.s, scribetest.Fault{Status: 503, Times: 2})
	for _, tok := range []string{"", e.devA.Key.Reveal()} {
		if resp, _ := e.do(t, req{method: "GET", path: "/plugins", token: tok}); resp.StatusCode != 503 {
			t.Errorf("status %d, want 503 before authentication", resp.StatusCode)
		}
	}
	if resp, _ := e.do(t, req{method: "GET", path: "/plugins", token: e.devA.Key.Reveal()}); resp.StatusCode != 200 {
		t.Errorf("after the faults: status %d, want 200 (a faulted request used the quota)", resp.StatusCode)
	}
}

// TestInjectFaultRejects: a fault the server cannot play is an error that
// says why, and nothing is injected.
func TestInjectFaultRejects(t *testing.T) {
	t.Parallel()
	s := scribetest.NewTestServer(t, scribetest.WithBasePath("/v1"))
	tests := []struct {
		fault scribetest.Fault
		want  string
	}{
		{scribetest.Fault{Status: 404}, "Status 404"},
		{scribetest.Fault{Status: 200}, "Status 200"},
		{scribetest.Fault{}, "does nothing"},
		{scribetest.Fault{Drop: true, Status: 503}, "exclude"},
		{scribetest.Fault{Drop: true, RetryAfter: time.Second}, "exclude"},
		{scribetest.Fault{Status: 503, Delay: -time.Second}, "negative"},
		{scribetest.Fault{Status: 503, RetryAfter: -time.Second}, "negative"},
		{scribetest.Fault{Delay: time.Second, RetryAfter: time.Second}, "needs a status"},
		{scribetest.Fault{Status: 503, Path: "plugins"}, "beginning with /"},
		{scribetest.Fault{Status: 503, Path: "/plugins?limit=1"}, "without query"},
		{scribetest.Fault{Status: 503, Path: "/v1/plugins"}, `relative to the base path, as "/plugins"`},
		{scribetest.Fault{Status: 503, Path: "/plugins/{id"}, "wildcard"},
		{scribetest.Fault{Status: 503, Path: "/plugins/id}"}, "wildcard"},
		{scribetest.Fault{Status: 503, Path: "/plugins/{}"}, "wildcard"},
		{scribetest.Fault{Status: 503, Path: "/plugins/{rest...}/webhooks"}, "last segment"},
		{scribetest.Fault{Status: 503, Method: "GET /plugins"}, "not an HTTP method"},
	}
	for _, tt := range tests {
		err := s.InjectFault(tt.fault)
		fe, ok := errors.AsType[*scribetest.FaultError](err)
		if !ok || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), fe.Field+" "+fe.Reason) {
			t.Errorf("InjectFault(%+v) = %v, want a *FaultError containing %q", tt.fault, err, tt.want)
		}
	}
	if n := len(s.PendingFaults()); n != 0 {
		t.Errorf("refused faults left %d pending", n)
	}
	if err := s.FailNext(0, 503); err == nil {
		t.Error("FailNext(0, 503): no error")
	}
	if err := s.FailNext(1, 418); err == nil {
		t.Error("FailNext(1, 418): no error")
	}
	resp, err := http.Get(s.URL() + "/plugins")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || len(s.FiredFaults()) != 0 {
		t.Errorf("after refused faults: status %d, %d fired; want 401 and none", resp.StatusCode, len(s.FiredFaults()))
	}
}

// TestRetriedPOSTCreatesOnce: the SDK client meets two injected 503s on
// POST /plugins and retries with the same Idempotency-Key; the third
// attempt creates the plugin, exactly one.
func TestRetriedPOSTCreatesOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	inject(t, e.s, scribetest.Fault{Method: "POST", Path: "/plugins", Times: 2, Status: 503})
	c, err := e.s.DeveloperClient(e.devA.Key, scribe.WithRetryWait(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	before := pluginCount(e)
	p, err := c.CreatePlugin(context.Background(), &scribe.CreatePluginParams{Name: "Retried"})
	if err != nil {
		t.Fatalf("CreatePlugin after two 503s: %v", err)
	}
	if got := pluginCount(e); got != before+1 {
		t.Errorf("plugins: %d, want %d", got, before+1)
	}
	if all := e.s.Plugins(); all[len(all)-1].ID != p.ID {
		t.Errorf("the last plugin is %d, the client got %d", all[len(all)-1].ID, p.ID)
	}
	reqs := e.s.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3: %+v", len(reqs), reqs)
	}
	key := reqs[0].IdempotencyKey
	var statuses []int
	for _, r := range reqs {
		statuses = append(statuses, r.Status)
		if r.IdempotencyKey != key || key == "" {
			t.Errorf("Idempotency-Key %q, want the same non-empty key on every attempt (first %q)", r.IdempotencyKey, key)
		}
	}
	if diff := cmp.Diff([]int{503, 503, 200}, statuses); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
}

// TestFaultDrop: a dropped request gets a connection error, not an answer;
// the SDK client retries it and succeeds.
func TestFaultDrop(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	inject(t, e.s, scribetest.Fault{Path: "/plugins/{id}", Drop: true})
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	r, _ := http.NewRequest("GET", e.s.URL()+"/plugins/1", nil)
	if resp, err := hc.Do(r); err == nil {
		resp.Body.Close()
		t.Fatalf("a dropped request was answered %d", resp.StatusCode)
	}

	inject(t, e.s, scribetest.Fault{Path: "/plugins/{id}", Drop: true})
	c, err := e.s.DeveloperClient(e.devA.Key, scribe.WithRetryWait(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetPlugin(context.Background(), e.plugin.ID); err != nil {
		t.Fatalf("GetPlugin after a dropped connection: %v", err)
	}
	if n := len(e.s.FiredFaults()); n != 2 {
		t.Errorf("%d faults fired, want 2", n)
	}
	var statuses []int
	for _, r := range waitForFaultedRequests(t, e.s) {
		statuses = append(statuses, r.Status)
	}
	slices.Sort(statuses) // logged in the order the handlers returned
	if diff := cmp.Diff([]int{0, 0, 200}, statuses); diff != "" {
		t.Errorf("logged statuses (-want +got; 0: not answered):\n%s", diff)
	}
}

// TestFaultDelay: a delay-only fault serves the request normally once the
// delay has passed; a delay longer than the client's patience ends in the
// client's timeout or cancellation, and the server gives up waiting.
//
// Each step faults a path of its own. A request whose client gave up may
// still reach the server afterwards (on a loaded machine the 50 ms can run
// out before it is sent): it must not take the fault of a later step, and it
// is then served normally, which is why only the requests a fault fired on
// are checked.
func TestFaultDelay(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, err := e.s.DeveloperClient(e.devA.Key, scribe.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	path := func(id int64) string { return fmt.Sprintf("/plugins/%d", id) }

	inject(t, e.s, scribetest.Fault{Delay: time.Millisecond, Path: path(e.plugin.ID)})
	if _, err := c.GetPlugin(ctx, e.plugin.ID); err != nil {
		t.Fatalf("after a short delay: %v", err)
	}

	// ClearFaults keeps a fault whose request never arrived from waylaying
	// a later request.
	inject(t, e.s, scribetest.Fault{Delay: time.Hour, Status: 503, Path: path(e.pluginNone.ID)})
	if _, err = c.GetPlugin(ctx, e.pluginNone.ID, scribe.WithRequestTimeout(50*time.Millisecond)); err == nil {
		t.Error("request timeout during the delay: no error")
	}
	e.s.ClearFaults()

	inject(t, e.s, scribetest.Fault{Delay: time.Hour, Drop: true, Path: path(e.pluginDisabled.ID)})
	dctx, stop := context.WithTimeout(ctx, 50*time.Millisecond)
	defer stop()
	if _, err = c.GetPlugin(dctx, e.pluginDisabled.ID); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("context deadline during the delay: %v, want context.DeadlineExceeded", err)
	}
	e.s.ClearFaults()

	// Cancel once the server holds the request in its delay. The wait for
	// that is bounded: a request that never arrives fails the test instead
	// of hanging it for the hour.
	inject(t, e.s, scribetest.Fault{Delay: time.Hour, Path: path(e.plugin.ID)})
	fired := len(e.s.FiredFaults())
	cctx, cancel := context.WithTimeout(ctx, waitLimit)
	defer cancel()
	go func() {
		for len(e.s.FiredFaults()) == fired && cctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	if _, err = c.GetPlugin(cctx, e.plugin.ID); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled during the delay: %v, want context.Canceled; fired faults %+v", err, e.s.FiredFaults())
	}

	// The server stops waiting when the client goes: every request a fault
	// fired on is logged, the short delay's answered, the others not, well
	// before the hour is up.
	status := map[string]int{}
	for _, r := range waitForFaultedRequests(t, e.s) {
		status[r.RequestID] = r.Status
	}
	var want, got []string
	for i, f := range e.s.FiredFaults() {
		w := 0
		if i == 0 {
			w = 200
		}
		want = append(want, fmt.Sprintf("%s %d", f.Path, w))
		got = append(got, fmt.Sprintf("%s %d", f.Path, status[f.RequestID]))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses logged for the requests the faults fired on (-want +got; 0: not answered):\n%s\nlog: %+v", diff, e.s.Requests())
	}
}

// waitForFaultedRequests waits until the request log holds every request a
// fault fired on, and returns the log. A request that a fault dropped, or
// whose client went away during its delay, is logged when its handler
// returns, which may be after the client has seen the connection close. If
// waitLimit passes first it fails t with the fired faults and the log as
// last seen.
func waitForFaultedRequests(t *testing.T, s *scribetest.Server) []scribetest.Request {
	t.Helper()
	var fired []scribetest.FiredFault
	var log []scribetest.Request
	var missing []string
	eventually(t, "the request log holds every request a fault fired on", func() bool {
		fired, log, missing = s.FiredFaults(), s.Requests(), nil
		for _, f := range fired {
			if !slices.ContainsFunc(log, func(r scribetest.Request) bool { return r.RequestID == f.RequestID }) {
				missing = append(missing, f.Method+" "+f.Path+" "+f.RequestID)
			}
		}
		return len(missing) == 0
	}, func() string {
		return fmt.Sprintf("%d missing: %v\nfired faults: %+v\nrequest log: %+v", len(missing), missing, fired, log)
	})
	return log
}

// TestFaultsConcurrent: a fault for n requests fires exactly n times under
// concurrent requests.
func TestFaultsConcurrent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	inject(t, e.s, scribetest.Fault{Status: 503, Times: 20})
	status := e.statusesOf(t, 50, req{method: "GET", path: "/plugins", token: e.devA.Key.Reveal()})
	if diff := cmp.Diff(map[int]int{200: 30, 503: 20}, status); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if n := len(e.s.FiredFaults()); n != 20 {
		t.Errorf("%d faults fired, want 20", n)
	}
}

// A test of retry code scripts two 503s for POST /plugins: the SDK client
// retries with the same Idempotency-Key, and exactly one plugin is created.
func ExampleServer_InjectFault() {
	s, err := scribetest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	dev, _ := s.CreateDeveloper(scribe.User{FirstName: "Ada"})
	client, _ := s.DeveloperClient(dev.Key, scribe.WithRetryWait(0, 0))

	if err := s.InjectFault(scribetest.Fault{Method: "POST", Path: "/plugins", Times: 2, Status: 503}); err != nil {
		log.Fatal(err)
	}
	if _, err := client.CreatePlugin(context.Background(), &scribe.CreatePluginParams{Name: "CRM sync"}); err != nil {
		log.Fatal(err)
	}
	for _, r := range s.Requests() {
		fmt.Println(strings.TrimSpace(fmt.Sprint(r.Method, " ", r.Path, " ", r.Status, " ", r.Code)))
	}
	fmt.Println(len(s.FiredFaults()), "faults fired;", len(s.Plugins()), "plugin created")
	// Output:
	// POST /plugins 503 service_unavailable
	// POST /plugins 503 service_unavailable
	// POST /plugins 200
	// 2 faults fired; 1 plugin created
}

// TestPendingFaults: PendingFaults lists the faults not used up, in the
// order they are tried, each with what is left of its Times; a fault used
// up leaves the list, an endless one stays with a negative Times.
func TestPendingFaults(t *testing.T) {
	t.Parallel()
	s := scribetest.NewTestServer(t)
	twice := scribetest.Fault{Method: "GET", Path: "/plugins", Times: 2, Status: http.StatusServiceUnavailable, RetryAfter: time.Second}
	endless := scribetest.Fault{Path: "/users/me", Times: -1, Status: http.StatusBadGateway}
	for _, f := range []scribetest.Fault{twice, endless} {
		if err := s.InjectFault(f); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]scribetest.Fault{twice, endless}, s.PendingFaults()); diff != "" {
		t.Errorf("PendingFaults before any request (-want +got):\n%s", diff)
	}
	get := func() {
		resp, err := http.Get(s.URL() + "/plugins")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	get()
	once := twice
	once.Times = 1
	if diff := cmp.Diff([]scribetest.Fault{once, endless}, s.PendingFaults()); diff != "" {
		t.Errorf("PendingFaults after one use (-want +got):\n%s", diff)
	}
	get()
	if diff := cmp.Diff([]scribetest.Fault{endless}, s.PendingFaults()); diff != "" {
		t.Errorf("PendingFaults once used up (-want +got):\n%s", diff)
	}
	s.ClearFaults()
	if got := s.PendingFaults(); len(got) != 0 || len(s.FiredFaults()) != 2 {
		t.Errorf("after ClearFaults: %d pending, %d fired; want 0 and 2", len(got), len(s.FiredFaults()))
	}
}
