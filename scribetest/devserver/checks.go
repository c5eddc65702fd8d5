package devserver

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/scribehq/scribe-go/internal/redact"
)

// The receiver checks: what "scribe-server check-receiver -server" found,
// one result per rule, POSTed to /_scribetest/checks as each is known and
// kept in the dev server's memory (the last maxChecks), for GET and the
// dashboard. They are not in the state directory, so a restart loses them.
// POST /_scribetest/reset forgets them, as it forgets the events they name;
// Server.Reset, in Go, cannot reach them and leaves them.

// maxChecks bounds the results kept: about a hundred runs of every rule.
const maxChecks = 1000

// Bounds of a result's text, which a client sent.
const (
	maxCheckText   = 256
	maxCheckDetail = 2 << 10
	maxCheckEvents = 16
)

// checkVerdicts are a result's verdicts, as check-receiver prints them.
var checkVerdicts = []string{"pass", "fail", "not_checked"}

// checkBody is one result, as POST /_scribetest/checks takes it.
type checkBody struct {
	Receiver string   `json:"receiver"` // the receiver's URL
	Rule     string   `json:"rule"`
	Verdict  string   `json:"verdict"`
	Claim    string   `json:"claim"`
	Detail   string   `json:"detail"`
	Events   []string `json:"events"` // "type id" of each event the rule sent
}

// check is a result kept, its text redacted and cut.
type check struct {
	checkBody
	Time time.Time `json:"time"`
}

// checks are the results kept, oldest first.
type checks struct {
	mu   sync.Mutex
	list []check
}

// add keeps b, received at, once it is a result check-receiver would send.
func (c *checks) add(b *checkBody, at time.Time) (check, error) {
	switch {
	case strings.TrimSpace(b.Rule) == "":
		return check{}, errors.New("rule: give the rule's name, such as redelivery")
	case !slices.Contains(checkVerdicts, b.Verdict):
		return check{}, fmt.Errorf("verdict %s: give one of %s", redact.Quote(b.Verdict, maxCheckText), strings.Join(checkVerdicts, ", "))
	case len(b.Events) > maxCheckEvents:
		return check{}, fmt.Errorf("events: %d given, at most %d", len(b.Events), maxCheckEvents)
	}
	k := check{checkBody: checkBody{Receiver: redact.Field(b.Receiver, maxCheckText), Rule: redact.Field(b.Rule, maxCheckText),
		Verdict: b.Verdict, Claim: redact.Field(b.Claim, maxCheckText), Detail: redact.Field(b.Detail, maxCheckDetail), Events: []string{}}, Time: at}
	for _, ev := range b.Events {
		k.Events = append(k.Events, redact.Field(ev, maxCheckText))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.list) == maxChecks {
		c.list = slices.Delete(c.list, 0, 1)
	}
	c.list = append(c.list, k)
	return k, nil
}

// all returns the results kept, oldest first.
func (c *checks) all() []check {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.list)
}

// clear forgets the results kept.
func (c *checks) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.list = nil
}
