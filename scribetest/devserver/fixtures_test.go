package devserver_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"testing"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest"
)

// GET /_scribetest/fixtures answers ExportFixtures as application/json;
// POST /_scribetest/reset does Reset.
func TestAdminFixturesAndReset(t *testing.T) {
	t.Parallel()
	s := newDevServer(t, scribetest.WithFixtures(scribetest.DemoFixtures()), scribetest.WithLogger(slog.New(slog.DiscardHandler)))
	start := exported(t, s)
	if _, err := s.CreateUser(scribe.User{FirstName: "Added"}); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(s.URL() + "/_scribetest/fixtures")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := exported(t, s); resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || !bytes.Equal(body, want) {
		t.Errorf("GET /_scribetest/fixtures: %d %s\n%s\nwant 200 application/json\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body, want)
	}
	if status, got := adminDo(t, s, http.MethodPost, "/_scribetest/reset", ""); status != 200 || len(got) != 0 {
		t.Errorf("POST /_scribetest/reset: %d %v, want 200 {}", status, got)
	}
	if got := exported(t, s); !bytes.Equal(got, start) {
		t.Errorf("after POST /_scribetest/reset:\n%s\nwant:\n%s", got, start)
	}
}

// exported is s's state as ExportFixtures writes it.
func exported(t *testing.T, s *scribetest.Server) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := s.ExportFixtures(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// POST /_scribetest/reset forgets check-receiver's results too, as it
// forgets the events they name and the request log: GET
// /_scribetest/checks then answers an empty list.
func TestAdminResetForgetsReceiverChecks(t *testing.T) {
	t.Parallel()
	s := newDevServer(t, scribetest.WithFixtures(scribetest.DemoFixtures()), scribetest.WithLogger(slog.New(slog.DiscardHandler)))
	check := `{"receiver":"http://127.0.0.1:9/a","rule":"valid","verdict":"pass","events":["transcript.created evt_A"]}`
	if status, got := adminDo(t, s, http.MethodPost, "/_scribetest/checks", check); status != 200 {
		t.Fatalf("POST /_scribetest/checks: %d %v", status, got)
	}
	if _, got := adminDo(t, s, http.MethodGet, "/_scribetest/checks", ""); len(got["checks"].([]any)) != 1 { // a panic if not a list
		t.Fatalf("GET /_scribetest/checks before the reset: %v, want the one result", got)
	}
	if status, got := adminDo(t, s, http.MethodPost, "/_scribetest/reset", ""); status != 200 {
		t.Fatalf("POST /_scribetest/reset: %d %v", status, got)
	}
	if _, got := adminDo(t, s, http.MethodGet, "/_scribetest/checks", ""); got["checks"] == nil || len(got["checks"].([]any)) != 0 {
		t.Errorf("GET /_scribetest/checks after the reset: %v, want an empty list", got)
	}
}
