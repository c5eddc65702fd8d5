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
	st = New(fixedClock{}, func(e Event) {
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
	tr, _ := addTranscript(st, NewTranscript{UserID: user.ID, Type: "dictation"})
	if _, err := updateTranscript(st, tr.ID, func(t *scribe.Transcript) { t.Headline = "new" }); err != nil {
		t.Fatal(err)
	}
	if _, err := uninstall(st, in.UUID); err != nil {
		t.Fatal(err)
	}
	if _, err := addTranscript(st, NewTranscript{UserID: user.ID}); err != nil { // nobody with permission has it installed now
		t.Fatal(err)
	}
	want := []string{"installation.created 1", "installation.created 2", "transcript.created 1", "transcript.updated 1", "installation.deleted 1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestTranscriptsRoundTrip: a transcript is stored as the library's
// encoding and reads back as it was given, defaults filled in; an update
// keeps the id, owner and creation time; the generation moves on every
// write.
func TestTranscriptsRoundTrip(t *testing.T) {
	t.Parallel()
	st := New(fixedClock{}, nil)
	u, _ := addUser(st, scribe.User{FirstName: "Grace", LastName: "Hopper"}, "")
	gen := st.Gen()
	meta, err := EncodeMetadata(map[string]json.RawMessage{"b": json.RawMessage(`[1, 2]`), "a": json.RawMessage(`"x"`)})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := addTranscript(st, NewTranscript{UserID: u.ID, Headline: "h", Text: "a \"quoted\" <text> é", Metadata: meta})
	if err != nil {
		t.Fatal(err)
	}
	if st.Gen() == gen {
		t.Error("the generation did not move on")
	}
	want := scribe.Transcript{ID: 1, Headline: "h", Text: "a \"quoted\" <text> é", CreatedOn: fixedClock{}.Now(),
		Metadata: map[string]json.RawMessage{"a": json.RawMessage(`"x"`), "b": json.RawMessage(`[1,2]`)},
		User:     scribe.TranscriptUser{ID: u.ID, FirstName: "Grace", LastName: "Hopper"},
		Job:      scribe.TranscriptJob{ID: 1}, Audio: scribe.TranscriptAudio{ID: 1, CreatedOn: fixedClock{}.Now()}}
	if diff := cmp.Diff(want, tr); diff != "" {
		t.Errorf("stored (-want +got):\n%s", diff)
	}
	b, _ := st.Transcript(u.ID, tr.ID)
	if !strings.Contains(string(b), `"metadata":{"a":"x","b":[1,2]}`) {
		t.Errorf("encoding %s: want the metadata's keys sorted, compact", b)
	}
	up, err := updateTranscript(st, tr.ID, func(t *scribe.Transcript) { t.ID, t.Headline, t.User.ID = 99, "new", 99 })
	if err != nil || up.ID != tr.ID || up.User != tr.User || up.Headline != "new" {
		t.Errorf("update = %+v, %v; want the id and owner kept", up, err)
	}
	if _, err := addTranscript(st, NewTranscript{UserID: u.ID, CreatedOn: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}); err == nil {
		t.Error("a year the encoding cannot hold was stored")
	}
	if _, err := addTranscript(st, NewTranscript{UserID: 404}); !errors.Is(err, ErrNotFound) {
		t.Errorf("a transcript of nobody: %v, want ErrNotFound", err)
	}
}

// TestArenaCompacts: replaced and deleted encodings are let go once they
// outweigh the live ones; the live ones read the same after.
func TestArenaCompacts(t *testing.T) {
	t.Parallel()
	st := New(fixedClock{}, nil)
	u, _ := addUser(st, scribe.User{}, "")
	text := strings.Repeat("x", 1<<20)
	keep, _ := addTranscript(st, NewTranscript{UserID: u.ID, Text: "keep"})
	tr, _ := addTranscript(st, NewTranscript{UserID: u.ID, Text: text})
	for i := range 40 {
		if _, err := updateTranscript(st, tr.ID, func(t *scribe.Transcript) { t.Headline = fmt.Sprint(i) }); err != nil {
			t.Fatal(err)
		}
	}
	if st.tr.arena.dead >= arenaCompactMin {
		t.Errorf("%d dead bytes kept", st.tr.arena.dead)
	}
	if got := st.TranscriptsOf(u.ID); len(got) != 2 || got[0].Text != keep.Text || got[1].Headline != "39" {
		t.Errorf("after compaction: %d transcripts", len(got))
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

func addTranscript(st *Store, t NewTranscript) (scribe.Transcript, error) {
	return Write(st, func(tx *Tx) (scribe.Transcript, error) {
		out, _, err := tx.AddTranscript(t)
		return out, err
	})
}

func updateTranscript(st *Store, id int64, fn func(*scribe.Transcript)) (scribe.Transcript, error) {
	return Write(st, func(tx *Tx) (scribe.Transcript, error) { return tx.UpdateTranscript(id, fn) })
}
