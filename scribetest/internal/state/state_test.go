package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/webhook"
)

type fixedClock struct{}

func (fixedClock) Now() time.Time { return time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC) }

// TestEventsFunnel: every change publishes its events through the one
// hook, after the lock: installations to their plugin, transcripts only to
// plugins with transcript permission installed by the user now.
func TestEventsFunnel(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	var st *Store
	st = New(fixedClock{}.Now, func(e webhook.Event) {
		st.Users() // the lock is released: reading the store from the hook does not deadlock
		mu.Lock()
		defer mu.Unlock()
		got = append(got, fmt.Sprint(e.Type, " ", e.PluginID))
	})
	dev, _ := addUser(st, scribe.User{}, "dk_live_dev")
	user, _ := addUser(st, scribe.User{}, "")
	reader, _ := addPlugin(st, scribe.Plugin{Name: "reader", UserID: dev.ID, Permissions: scribe.Permissions{User: "none", Transcript: "read"}})
	blind, _ := addPlugin(st, scribe.Plugin{Name: "blind", UserID: dev.ID, Permissions: scribe.Permissions{User: "none", Transcript: "none"}})
	in, err := install(st, scribe.PluginInstallation{PluginID: reader.ID, UserID: user.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := install(st, scribe.PluginInstallation{PluginID: blind.ID, UserID: user.ID}); err != nil {
		t.Fatal(err)
	}
	tr, _ := addTranscript(st, scribe.Transcript{User: scribe.TranscriptUser{ID: user.ID}, Type: "dictation"})
	if _, err := updateTranscript(st, tr.ID, func(t *scribe.Transcript) { t.Headline = "new" }); err != nil {
		t.Fatal(err)
	}
	if _, err := uninstall(st, in.UUID); err != nil {
		t.Fatal(err)
	}
	if _, err := addTranscript(st, scribe.Transcript{User: scribe.TranscriptUser{ID: user.ID}}); err != nil { // nobody with permission has it installed now
		t.Fatal(err)
	}
	want := []string{"installation.created 1", "installation.created 2", "transcript.created 1", "transcript.updated 1", "installation.deleted 1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestTranscriptsRoundTrip: a transcript reads back as it was given,
// defaults filled in, and is encoded as the library encodes it (metadata
// compact, keys sorted); an update keeps the id, owner and creation time;
// what the library cannot encode is refused.
func TestTranscriptsRoundTrip(t *testing.T) {
	t.Parallel()
	st := New(fixedClock{}.Now, nil)
	u, _ := addUser(st, scribe.User{FirstName: "Grace", LastName: "Hopper"}, "")
	meta := map[string]json.RawMessage{"b": json.RawMessage(`[1, 2]`), "a": json.RawMessage(`"x"`)}
	tr, err := addTranscript(st, scribe.Transcript{User: scribe.TranscriptUser{ID: u.ID}, Headline: "h", Text: "a \"quoted\" <text> é", Metadata: meta})
	if err != nil {
		t.Fatal(err)
	}
	want := scribe.Transcript{ID: 1, Headline: "h", Text: "a \"quoted\" <text> é", CreatedOn: fixedClock{}.Now(), Metadata: meta,
		User: scribe.TranscriptUser{ID: u.ID, FirstName: "Grace", LastName: "Hopper"},
		Job:  scribe.TranscriptJob{ID: 1}, Audio: scribe.TranscriptAudio{ID: 1, CreatedOn: fixedClock{}.Now()}}
	if diff := cmp.Diff(want, tr); diff != "" {
		t.Errorf("stored (-want +got):\n%s", diff)
	}
	stored, _ := st.Transcript(u.ID, tr.ID)
	if b, _ := apijson.Marshal(stored); !strings.Contains(string(b), `"metadata":{"a":"x","b":[1,2]}`) {
		t.Errorf("encoding %s: want the metadata's keys sorted, compact", b)
	}
	up, err := updateTranscript(st, tr.ID, func(t *scribe.Transcript) { t.ID, t.Headline, t.User.ID = 99, "new", 99 })
	if err != nil || up.ID != tr.ID || up.User != tr.User || up.Headline != "new" {
		t.Errorf("update = %+v, %v; want the id and owner kept", up, err)
	}
	for _, bad := range []scribe.Transcript{
		{User: scribe.TranscriptUser{ID: u.ID}, CreatedOn: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{User: scribe.TranscriptUser{ID: u.ID}, Text: "\xff"},
		{User: scribe.TranscriptUser{ID: u.ID}, Metadata: map[string]json.RawMessage{"k": json.RawMessage("{")}},
	} {
		if _, err := addTranscript(st, bad); err == nil {
			t.Errorf("a transcript the encoding cannot hold was stored: %+v", bad)
		}
	}
	if _, err := updateTranscript(st, tr.ID, func(t *scribe.Transcript) { t.Metadata["k"] = json.RawMessage("nul") }); err == nil {
		t.Error("an update to metadata that is not JSON was stored")
	}
	if _, err := addTranscript(st, scribe.Transcript{User: scribe.TranscriptUser{ID: 404}}); !errors.Is(err, ErrNotFound) {
		t.Errorf("a transcript of nobody: %v, want ErrNotFound", err)
	}
}

// TestReadBackSharesNothing: a transcript read back is the caller's: its
// metadata changed changes nothing on the server.
func TestReadBackSharesNothing(t *testing.T) {
	t.Parallel()
	st := New(fixedClock{}.Now, nil)
	u, _ := addUser(st, scribe.User{}, "")
	if _, err := addTranscript(st, scribe.Transcript{User: scribe.TranscriptUser{ID: u.ID}, Metadata: map[string]json.RawMessage{"a": json.RawMessage("1")}}); err != nil {
		t.Fatal(err)
	}
	mine := st.TranscriptsOf(u.ID)[0]
	mine.Metadata["a"][0] = '2'
	mine.Metadata["b"] = json.RawMessage("3")
	if got := st.TranscriptsOf(u.ID)[0].Metadata; len(got) != 1 || string(got["a"]) != "1" {
		t.Errorf("the server's metadata is %s after the caller changed its copy", got)
	}
}

// TestValidateHTTPURL: the URIs api/openapi.yaml's pattern admits are
// taken, the others refused, userinfo included, and an error quotes at most
// a bounded excerpt.
func TestValidateHTTPURL(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"https://example.com", "http://127.0.0.1:8080/hook?x=1", "https://[::1]:8443/p"} {
		if err := ValidateHTTPURL(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "mailto:a@b", "https://}", "https://[::1", "https://user:pw@example.com/", "https://ex ample.com",
		"ftp://example.com", "https://", "https://example.com/\x00", "https://" + strings.Repeat("a", 3000)} {
		err := ValidateHTTPURL(bad)
		if err == nil {
			t.Errorf("%.40q accepted", bad)
		} else if len(err.Error()) > 300 || strings.Contains(err.Error(), "pw@") {
			t.Errorf("%.40q: error %q quotes too much", bad, err)
		}
	}
}

// The writes of the tests, each in a transaction of its own.

func addUser(st *Store, u scribe.User, key string) (scribe.User, error) {
	return Write(st, func(tx *Tx) (scribe.User, error) { return tx.AddUser(u, key) })
}

func addPlugin(st *Store, p scribe.Plugin) (scribe.Plugin, error) {
	return Write(st, func(tx *Tx) (scribe.Plugin, error) { return tx.AddPlugin(p) })
}

func install(st *Store, in scribe.PluginInstallation) (scribe.PluginInstallation, error) {
	return Write(st, func(tx *Tx) (scribe.PluginInstallation, error) { return tx.Install(in) })
}

func uninstall(st *Store, uuid string) (scribe.PluginInstallation, error) {
	return Write(st, func(tx *Tx) (scribe.PluginInstallation, error) { return tx.Uninstall(uuid) })
}

func addTranscript(st *Store, t scribe.Transcript) (scribe.Transcript, error) {
	return Write(st, func(tx *Tx) (scribe.Transcript, error) { return tx.AddTranscript(t) })
}

func updateTranscript(st *Store, id int64, fn func(*scribe.Transcript)) (scribe.Transcript, error) {
	return Write(st, func(tx *Tx) (scribe.Transcript, error) { return tx.UpdateTranscript(id, fn) })
}

// TestClearRacesNoRead: a Clear (Server.Reset) while requests read the
// store is no data race (run with -race): the readers' collections are the
// ones Clear empties, not fields it replaces under their feet.
func TestClearRacesNoRead(t *testing.T) {
	t.Parallel()
	st := New(fixedClock{}.Now, nil)
	var wg sync.WaitGroup
	wg.Go(func() {
		for range 200 {
			_ = st.Update(func(tx *Tx) error { tx.Clear(); return nil })
		}
	})
	for range 200 {
		st.PagePlugins(1, 0, 20)
		st.PageWebhooks(1, 0, 20)
		st.PageInstallations(1, 0, 20)
		st.TranscriptPage(1, 0, 20)
	}
	wg.Wait()
}
