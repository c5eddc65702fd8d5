// Package receivercheck checks a webhook receiver, written in any language,
// against the delivery rules the service relies on (docs/webhooks.md, "Check
// your receiver"). It sends the receiver real signed deliveries of
// realistic events, and forged, tampered, stale, repeated and concurrent
// ones, and says for each rule whether the receiver's answers keep it. On a
// Server, each event is about resources made there, and the receiver's
// calls to the server show whether it processed an event again
// (docs/design/receivercheck.md).
//
// The command "scribe-server check-receiver" and scribetest.CheckReceiver
// are its two faces; this package is module-internal so that both share
// one engine.
package receivercheck

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/keygen"
	"github.com/scribehq/scribe-go/internal/redact"
	"github.com/scribehq/scribe-go/webhook"
)

// DefaultTimeout is the service's delivery timeout: any 2xx within it is a
// delivery, anything later is a failed attempt.
const DefaultTimeout = webhook.DeliveryTimeout

// Grace is how much longer than the timeout the check waits for an answer
// before it calls a delivery unanswered. Only the valid rule judges speed;
// the other rules take a late answer for what it says, so that a slow
// receiver fails the one rule about speed and not every rule.
const Grace = 5 * time.Second

// Concurrent is how many deliveries of one event the concurrent rule sends
// at once.
const Concurrent = 10

// staleBy is how far from now the stale-timestamp rule signs: a minute
// beyond the 5 minutes of tolerance, so that a receiver whose clock is a
// little off is not blamed.
const staleBy = webhook.DefaultTolerance + time.Minute

// maxExcerpt bounds the excerpt of an answer's body quoted in a report.
const maxExcerpt = 100

// userAgent is the User-Agent of the check's deliveries.
var userAgent = "scribe-check-receiver/" + scribe.Version

// ErrConfig is wrapped by the error Run returns for an unusable Config.
var ErrConfig = errors.New("receivercheck: invalid configuration")

// Config says which receiver to check, and how.
type Config struct {
	// URL is the receiver's endpoint: an absolute http:// or https:// URL,
	// the uri the webhook is registered with.
	URL string
	// Secret is the webhook's signing secret, which the receiver verifies
	// deliveries with. It never appears in a Result.
	Secret auth.WebhookSecret
	// Timeout is how long the receiver has to answer a valid delivery;
	// zero means DefaultTimeout, the service's.
	Timeout time.Duration
	// Processed, when not nil, reports how many times the receiver's
	// function ran for an event id. The check then also asserts exactly-once
	// processing: each event that should be processed ran once, each
	// refused one never. It is read once a delivery has been answered, so it
	// suits a receiver that processes an event before it answers, in the
	// same process as the check.
	Processed func(eventID string) int
	// Server, when not nil, is the reference server the events are about:
	// each event names an installation and a transcript made there, so a
	// receiver that calls the service back gets real answers, and the
	// receiver's calls with an event's installation token show that it
	// processed the event. Without Processed, the check then fails a
	// receiver that processes a redelivery or a concurrent duplicate again,
	// or acts on a delivery it refused, and says "not checked" where the
	// receiver made no call. Without Server or Processed, the rules about
	// processing (redelivery, concurrent) are "not checked".
	Server Server
	// Now, when not nil, is the clock deliveries are signed on and events
	// dated by: the Server's, so that a receiver verifying on that clock (a
	// FakeClock's) sees fresh deliveries, and stale ones stale. nil is the
	// system clock.
	Now func() time.Time
	// EventTypes, when not empty, are the event types the redelivery and
	// concurrent rules deliver, each in turn. By default they deliver one
	// type the receiver called the Server back for in the valid rule, and
	// otherwise transcript.updated (redelivery) and transcript.created
	// (concurrent). Each must be one the service sends (EventTypes).
	EventTypes []webhook.EventType
	// RequireChecked makes a rule whose processing is not checked a
	// failure, for a gate that must not pass what it could not see.
	RequireChecked bool
}

// Result is how the receiver kept one rule.
type Result struct {
	// Rule is the rule's short name, such as "wrong-secret".
	Rule string
	// Claim is what the rule says of a correct receiver.
	Claim string
	// Passed reports whether the receiver's answers kept the rule, and
	// its processing too where that was checked.
	Passed bool
	// NotChecked reports that the receiver's answers kept the rule but its
	// processing, which the claim is also about, could not be seen (no call
	// to the Server for the event); Passed is false.
	NotChecked bool
	// Detail says, for a rule not kept, what was sent, what came back and
	// why it matters, and for a rule not checked, why; "" for a rule kept.
	// It holds no secret: answers are quoted redacted.
	Detail string
	// Events are the events the rule sent, each as its type and id
	// ("transcript.created evt_…"), to find in the receiver's logs.
	Events []string
}

// String formats the result on one line: "PASS rule: claim [events]",
// "FAIL rule: claim [events]. detail" or "NOT CHECKED rule: claim [events].
// detail".
func (r Result) String() string {
	head := r.Rule + ": " + r.Claim
	if len(r.Events) > 0 {
		head += " [" + strings.Join(r.Events, ", ") + "]"
	}
	switch {
	case r.Passed:
		return "PASS " + head
	case r.NotChecked:
		return "NOT CHECKED " + head + ". " + r.Detail
	}
	return "FAIL " + head + ". " + r.Detail
}

// Summary counts the rules kept, broken and not checked.
type Summary struct {
	// Passed is the number of rules kept.
	Passed int
	// Failed is the number of rules broken.
	Failed int
	// NotChecked is the number of rules whose processing could not be
	// checked, though the receiver's answers kept them.
	NotChecked int
}

// String returns "N passed, M failed", and ", K not checked" when K > 0.
func (s Summary) String() string {
	out := fmt.Sprintf("%d passed, %d failed", s.Passed, s.Failed)
	if s.NotChecked > 0 {
		out += fmt.Sprintf(", %d not checked", s.NotChecked)
	}
	return out
}

// Run checks the receiver of cfg against every rule, one after the other,
// passing each Result to report as soon as it is known. Its error wraps
// ErrConfig for an unusable Config, or is ctx's error if ctx ends first; a
// receiver that does not answer breaks rules, it is not an error.
func Run(ctx context.Context, cfg Config, report func(Result)) (sum Summary, err error) {
	c, err := newChecker(cfg)
	if err != nil {
		return Summary{}, err
	}
	defer c.client.CloseIdleConnections()
	defer func() {
		if rerr := c.removeScenes(ctx); rerr != nil {
			err = errors.Join(err, rerr)
		}
	}()
	for _, r := range rules {
		c.sent = nil
		v, err := r.check(ctx, c)
		if err == nil {
			err = ctx.Err() // an answer cut short by ctx says nothing of the receiver
		}
		if err != nil {
			return sum, err
		}
		res := Result{Rule: r.name, Claim: r.claimFor(c), Events: c.sent}
		switch {
		case len(v.fails) > 0:
			sum.Failed++
			res.Detail = strings.Join(v.fails, " ") + " " + r.why
			c.broken[r.name] = true
		case v.unchecked != "" && c.requireChecked:
			sum.Failed++
			res.Detail = "Its answers keep the rule, but processing is not checked, and the check requires it (-require-checked): " + v.unchecked
		case v.unchecked != "":
			sum.NotChecked++
			res.NotChecked = true
			res.Detail = "Its answers keep the rule, but processing is not checked: " + v.unchecked
		default:
			sum.Passed++
			res.Passed = true
		}
		report(res)
	}
	return sum, nil
}

// verdict is what a rule found: one sentence per delivery that broke it,
// or why processing could not be checked.
type verdict struct {
	fails     []string
	unchecked string
}

// failing returns the verdict of the sentences that are not empty.
func failing(s ...string) verdict { return verdict{fails: appendNonEmpty(nil, s...)} }

// merge returns the verdict of a rule checked once per event type: every
// failure, else the reasons processing was not checked.
func merge(vs []verdict) verdict {
	var out verdict
	var unchecked []string
	for _, v := range vs {
		out.fails = append(out.fails, v.fails...)
		unchecked = appendNonEmpty(unchecked, v.unchecked)
	}
	if len(out.fails) == 0 {
		out.unchecked = strings.Join(unchecked, " ")
	}
	return out
}

// checker holds what every rule sends with.
type checker struct {
	url     string
	secret  auth.WebhookSecret
	forger  auth.WebhookSecret // another secret, for forged signatures
	timeout time.Duration
	count   func(string) int
	server  Server
	now     func() time.Time // the clock deliveries are signed on
	types   []webhook.EventType
	// requireChecked: a rule whose processing is not checked fails.
	requireChecked bool
	client         *http.Client
	scene          scene    // the fixed scene, when there is no server
	secrets        []string // the texts the secrets may be quoted as, redacted from answers
	// Filled in as the rules run.
	baseline map[webhook.EventType]int // on a server: the calls the valid rule's event of each type made
	broken   map[string]bool           // the rules broken so far
	sent     []string                  // the events the current rule sent: "type id"
	made     []int64                   // on a server: the users of the scenes made, to remove at the end
}

func newChecker(cfg Config) (*checker, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: the receiver URL %q is not an absolute http:// or https:// URL; give one such as http://127.0.0.1:9000/hook",
			ErrConfig, redact.Text(cfg.URL))
	}
	if cfg.Secret.IsZero() {
		return nil, fmt.Errorf("%w: no signing secret; give the webhook's signing secret (whsec_...)", ErrConfig)
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("%w: the timeout %v is negative; give a positive one, or zero for %v", ErrConfig, cfg.Timeout, DefaultTimeout)
	}
	var types []webhook.EventType
	for _, t := range cfg.EventTypes {
		if !slices.Contains(eventTypes, t) {
			return nil, fmt.Errorf("%w: the event type %s is not one the service sends; give one of %s",
				ErrConfig, strconv.Quote(redact.Text(string(t))), KnownEventTypes())
		}
		if !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	forger, err := keygen.WebhookSecret()
	if err != nil {
		return nil, err
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = Concurrent
	return &checker{
		url: cfg.URL, secret: cfg.Secret, forger: forger,
		timeout: cmp.Or(cfg.Timeout, DefaultTimeout), count: cfg.Processed, server: cfg.Server,
		now: now, types: types, requireChecked: cfg.RequireChecked,
		client: &http.Client{
			Transport: transport,
			// The service does not follow redirects: a 3xx is a failed attempt.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		scene:    newScene(now()),
		secrets:  append(redact.WebhookSecretForms(cfg.Secret.Reveal()), redact.WebhookSecretForms(forger.Reveal())...),
		baseline: map[webhook.EventType]int{}, broken: map[string]bool{},
	}, nil
}

// watching reports whether processing is seen from calls to the server:
// there is one, and no exact count.
func (c *checker) watching() bool { return c.server != nil && c.count == nil }

// blind reports whether processing cannot be seen at all: no server, no
// exact count.
func (c *checker) blind() bool { return c.server == nil && c.count == nil }

// KnownEventTypes names the event types the service sends, which
// Config.EventTypes may hold: "installation.created, transcript.created, …".
func KnownEventTypes() string {
	names := make([]string, len(eventTypes))
	for i, t := range eventTypes {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

// ran checks, when counting, that the receiver's function ran want times
// for d's event (at most once, when upTo): "" if so, else what it found.
func (c *checker) ran(d delivery, want int, upTo bool) string {
	if c.count == nil {
		return ""
	}
	n := c.count(d.id)
	if n == want || (upTo && n < want) {
		return ""
	}
	times := map[int]string{0: "never", 1: "once"}[want]
	if upTo {
		times = "at most " + times
	}
	ran := fmt.Sprintf("ran %d times", n)
	if n == 0 {
		ran = "never ran"
	}
	return fmt.Sprintf("Sent %s; the receiver's function %s for it, want %s.", d.what, ran, times)
}

// failed reports a delivery whose answer broke the rule.
func failed(d delivery, a answer) string { return fmt.Sprintf("Sent %s; got %s.", d.what, a) }

// notAccepted reports an answer other than 2xx to a delivery the receiver
// should accept, explained as handlingFailed says.
func (c *checker) notAccepted(ctx context.Context, d delivery, a answer, subject string) (string, error) {
	why, err := c.handlingFailed(ctx, d, a, subject)
	return failed(d, a) + why, err
}

// handlingFailed explains an answer a to a delivery d the receiver should
// accept: "" for a 4xx, which refused it, as the rule is about. A 5xx, or no
// answer, means the receiver failed while handling a valid event: that is
// said as such rather than blamed on what the rule checks (subject), with
// what the server saw of the receiver's calls.
func (c *checker) handlingFailed(ctx context.Context, d delivery, a answer, subject string) (string, error) {
	if a.status != 0 && a.status < 500 {
		return "", nil
	}
	s := " A 5xx to a valid delivery: the receiver failed while handling the event"
	switch {
	case a.unreachable:
		s = " Nothing answers at the receiver's URL (is the receiver running, and is the URL right?)"
	case a.timedOut:
		s = " The receiver did not answer a valid delivery in time"
	case a.status == 0:
		s = " No HTTP answer to a valid delivery: the receiver failed while handling the event"
	}
	if subject != "" && c.broken["valid"] {
		s += fmt.Sprintf(", as it did in the valid rule: fix that first; it is not about %s", subject)
	}
	s += "."
	switch {
	case a.unreachable: // it never saw the delivery: its calls and credentials are beside the point
		return s, nil
	case c.server == nil:
		return s + " If it calls the service back while handling events, run the check against a server (-server): " +
			"without one, the events name an installation that exists nowhere, so its calls get 401.", nil
	case c.count != nil:
		return s, nil
	}
	calls, err := c.calls(ctx, d)
	if err != nil {
		return "", err
	}
	if len(calls[0]) == 0 {
		return s + " The server saw no call from it with the event's installation (a token refused for its signature or form names none: does it sign with the plugin's secret key?).", nil
	}
	return s + " Its calls to the server with the event's installation: " + listCalls(calls[0]) + ".", nil
}
