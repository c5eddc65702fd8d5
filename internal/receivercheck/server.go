package receivercheck

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/redact"
	"github.com/scribehq/scribe-go/webhook"
)

// The live scene: with Config.Server, each event is about resources made on
// a reference server, and the receiver's calls to that server with an
// event's installation token show whether it processed the event.

// Server is a reference server the check makes its scenes on and reads the
// receiver's calls from: a scribetest.Server, or a running scribe-server
// -admin through its admin API.
type Server interface {
	// NewScene makes, without emitting any event, a user (SceneUser),
	// that user's installation of the plugin and one transcript of the
	// user (SceneTranscript); with uninstalled, the installation is then
	// uninstalled. It returns both as the server serves them.
	NewScene(ctx context.Context, uninstalled bool) (scribe.PluginInstallation, scribe.Transcript, error)
	// Calls returns the requests the server answered that carried a token
	// of the installation uuid (once the token's signature verified),
	// oldest first.
	Calls(ctx context.Context, uuid string) ([]Call, error)
	// RemoveScene removes, emitting no event, the user a scene was made
	// for, with that user's installation and transcript.
	RemoveScene(ctx context.Context, userID int64) error
}

// Call is a request the receiver made to the server.
type Call struct {
	Method string
	Path   string
	Status int
	Code   string // the problem code of an error answer
}

// maxCallPath bounds the path of a call quoted in a report.
const maxCallPath = 200

// String returns "GET /users/me 200", or with the problem code of an error.
// The method and path are the receiver's: any credential in them is
// redacted, and control characters are written as escapes, so that they
// cannot rewrite the terminal.
func (c Call) String() string {
	s := fmt.Sprintf("%s %s %d", redact.Field(c.Method, maxCallPath), redact.Field(c.Path, maxCallPath), c.Status)
	if c.Code != "" {
		s += " " + c.Code
	}
	return s
}

// Note says how the check sees whether the receiver processed an event, for
// the faces to print before the results; "" with Processed, the exact count.
func Note(cfg Config) string {
	switch {
	case cfg.Processed != nil:
		return ""
	case cfg.Server != nil:
		return "each event names an installation and a transcript made on the server; the receiver's calls to the server " +
			"with an event's installation token (such as GET /users/me, GET /transcripts/{id}) show that it processed the event, " +
			"and a rule where it made none is \"not checked\""
	}
	return "the events name an installation that exists on no server, so a receiver that calls the service back gets 401, " +
		"and whether it processes an event twice is not checked: to check both, run against a server " +
		"(check-receiver -server URL -plugin ID with scribe-server -admin, or WithServer in Go)"
}

// newScene returns the scene of an event of type typ: one made on the
// server, uninstalled for installation.deleted, or the fixed one.
func (c *checker) newScene(ctx context.Context, typ webhook.EventType) (scene, error) {
	if c.server == nil {
		return c.scene, nil
	}
	// Not cut short by ctx: a scene the server made after a signal, whose
	// answer was never read, would be left behind, since only its answer
	// names the user to remove.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sceneCleanup)
	defer cancel()
	inst, tr, err := c.server.NewScene(sctx, typ == webhook.EventInstallationDeleted)
	if err != nil {
		return scene{}, fmt.Errorf("making the installation and transcript of a %s event on the server: %w", typ, err)
	}
	c.made = append(c.made, inst.UserID)
	if err := ctx.Err(); err != nil {
		return scene{}, err // made, and removed with the others at the end
	}
	return scene{inst: inst, tr: tr}, nil
}

// sceneCleanup bounds how long removing the scenes may take, after the
// check's context ended too (a signal).
const sceneCleanup = 10 * time.Second

// removeScenes removes the scenes made on the server, so that they do not
// pile up in its listings, even when ctx has ended.
func (c *checker) removeScenes(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sceneCleanup)
	defer cancel()
	var errs []error
	for _, user := range c.made {
		if err := c.server.RemoveScene(ctx, user); err != nil {
			errs = append(errs, fmt.Errorf("removing the scene of user %d from the server: %w", user, err))
		}
	}
	return errors.Join(errs...)
}

// fresh returns a delivery of a new event of type typ, about a scene of its
// own, signed at.
func (c *checker) fresh(ctx context.Context, typ webhook.EventType, at time.Time, what string) (delivery, error) {
	sc, err := c.newScene(ctx, typ)
	if err != nil {
		return delivery{}, err
	}
	e, err := sc.event(typ, newEventID(), at)
	if err != nil {
		return delivery{}, err
	}
	return c.signed(e, at, what)
}

// Waiting for the receiver's calls: they are taken as all made once none
// came for callsQuiet (a receiver may call the server after it answers,
// from a queue), and at most callsMax after the answer.
const (
	callsQuiet = 150 * time.Millisecond
	callsMax   = 3 * time.Second
)

// calls returns, for each delivery, the calls the receiver made to the
// server with its event's installation, once they stopped coming.
func (c *checker) calls(ctx context.Context, ds ...delivery) ([][]Call, error) {
	read := func() ([][]Call, int, error) {
		out, n := make([][]Call, len(ds)), 0
		for i, d := range ds {
			calls, err := c.server.Calls(ctx, d.uuid)
			if err != nil {
				return nil, 0, fmt.Errorf("reading the receiver's calls from the server: %w", err)
			}
			out[i], n = calls, n+len(calls)
		}
		return out, n, nil
	}
	last, n, err := read()
	deadline := time.Now().Add(callsMax)
	for err == nil && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(callsQuiet):
		}
		var cur [][]Call
		var m int
		if cur, m, err = read(); err == nil && m == n {
			return cur, nil
		}
		last, n = cur, m
	}
	return last, err
}

// listCalls names the calls, at most five: "GET /users/me 200, GET …".
func listCalls(calls []Call) string {
	var names []string
	for i, call := range calls {
		if i == 5 {
			names = append(names, fmt.Sprintf("and %d more", len(calls)-i))
			break
		}
		names = append(names, call.String())
	}
	return strings.Join(names, ", ")
}

// plural says "1 call" or "N calls".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// timesCalled says "once" or "N times".
func timesCalled(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}
