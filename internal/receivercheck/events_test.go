package receivercheck

import (
	"testing"
	"time"

	"github.com/scribehq/scribe-go/webhook"
)

// The tampered-body rule sends the signed body with exactly one byte
// changed, and the body stays valid JSON and a valid event, so that a
// receiver cannot refuse it for anything but its signature.
func TestTamperedBodyDiffersByOneByte(t *testing.T) {
	now := time.Now()
	s := newScene(now)
	e, err := s.event(webhook.EventTranscriptCreated, "evt_1", now)
	if err != nil {
		t.Fatal(err)
	}
	altered := s
	altered.tr.Headline = tamperedHeadline
	e2, err := altered.event(webhook.EventTranscriptCreated, "evt_1", now)
	if err != nil {
		t.Fatal(err)
	}
	a, err := encodeEvent(e)
	if err != nil {
		t.Fatal(err)
	}
	b, err := encodeEvent(e2)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) {
		t.Fatalf("lengths %d and %d differ", len(a), len(b))
	}
	diff := 0
	for i := range a {
		if a[i] != b[i] {
			diff++
		}
	}
	if diff != 1 {
		t.Errorf("the bodies differ in %d bytes, want 1:\n%s\n%s", diff, a, b)
	}
	ev, err := webhook.ParseEvent(b)
	if err != nil {
		t.Fatal(err)
	}
	if tr, err := ev.Transcript(); err != nil || tr.Headline != tamperedHeadline {
		t.Errorf("the tampered body decodes to %+v, %v", tr, err)
	}
}

// Every event decodes with the webhook package as the event it claims to
// be: the typed accessors read its data, and only the unknown type is
// unknown.
func TestEventsDecode(t *testing.T) {
	now := time.Now()
	s := newScene(now)
	for _, typ := range append(eventTypes, UnknownEventType) {
		e, err := s.event(typ, newEventID(), now)
		if err != nil {
			t.Fatal(err)
		}
		body, err := encodeEvent(e)
		if err != nil {
			t.Fatal(err)
		}
		got, err := webhook.ParseEvent(body)
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		if got.ID != e.ID || got.Type != typ || got.PluginID != s.inst.PluginID || got.PluginInstallationUUID != s.inst.UUID || !got.CreatedOn.Equal(now) {
			t.Errorf("%s decodes to %+v", typ, got)
		}
		if typ.Known() != (typ != UnknownEventType) {
			t.Errorf("%s: Known() = %t", typ, typ.Known())
		}
		switch typ {
		case webhook.EventInstallationCreated, webhook.EventInstallationDeleted:
			inst, err := got.Installation()
			if err != nil || inst.UUID != s.inst.UUID || (inst.DeletedOn != nil) != (typ == webhook.EventInstallationDeleted) {
				t.Errorf("%s: Installation() = %+v, %v", typ, inst, err)
			}
		case webhook.EventTranscriptCreated, webhook.EventTranscriptUpdated:
			tr, err := got.Transcript()
			if err != nil || tr.ID != s.tr.ID || tr.User.ID != s.inst.UserID {
				t.Errorf("%s: Transcript() = %+v, %v", typ, tr, err)
			}
		}
	}
}

// A result whose processing was not checked reads NOT CHECKED with its
// reason, and the summary counts such rules apart, only when there are some.
func TestNotCheckedIsSaid(t *testing.T) {
	r := Result{Rule: "redelivery", Claim: "a claim", NotChecked: true, Detail: "Its answers keep the rule, but processing is not checked: why."}
	if got, want := r.String(), "NOT CHECKED redelivery: a claim. Its answers keep the rule, but processing is not checked: why."; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	for _, tc := range []struct {
		s    Summary
		want string
	}{
		{Summary{Passed: 9}, "9 passed, 0 failed"},
		{Summary{Passed: 7, NotChecked: 2}, "7 passed, 0 failed, 2 not checked"},
		{Summary{Passed: 6, Failed: 1, NotChecked: 2}, "6 passed, 1 failed, 2 not checked"},
	} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.s, got, tc.want)
		}
	}
}
