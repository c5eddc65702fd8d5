package main

import (
	"bytes"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/apitest"
)

// Protects: the example serves every active installation of the demo plugin
// concurrently through one InstallationClients (one cached token each), each
// seeing only its own user's transcripts, with traffic the contract allows
// and no secret in the output.
func TestManyInstallations(t *testing.T) {
	hc := &http.Client{Transport: apitest.NewValidator(t).WithBasePath("/v1").Transport(nil)}
	var out bytes.Buffer
	if err := run(t.Context(), &out, scribe.WithHTTPClient(hc)); err != nil {
		t.Fatalf("run: %v", err)
	}
	got := out.String()
	if re := regexp.MustCompile(`(ask_live_|dk_live_|whsec_)[^\[]|eyJ[A-Za-z0-9_-]+\.`); re.MatchString(got) {
		t.Fatal("output carries something shaped like a secret")
	}
	flat := strings.Join(strings.Fields(got), " ") // alignment is not the point
	for _, line := range []string{
		"Plugin #100: 13 active installations, 1 uninstalled",
		"#1 Grace Hopper 3 transcripts, 357 s of audio", // the demo's 3, not Alan's
		"#4 Barbara Liskov 1 transcript, 60 s of audio",
		"#15 Tony Hoare 2 transcripts, 180 s of audio",
		"Done: 13 installations, 36 transcripts, 13 tokens in the cache",
	} {
		if !strings.Contains(flat, line) {
			t.Errorf("output lacks %q", line)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", got)
	}
}
