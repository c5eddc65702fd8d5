package scribe

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// One version everywhere: scribe.Version (which scribe-server -version and
// the User-Agent print) is a version the changelog has a section for, and
// the module that ships beside the SDK requires that version of it. A
// release that bumps one without the others fails here.
func TestVersionIsTheSameEverywhere(t *testing.T) {
	t.Parallel()
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(Version) {
		t.Fatalf("Version = %q, want MAJOR.MINOR.PATCH", Version)
	}
	for _, nested := range []string{"webhook/redisdedupe/go.mod", "otelscribe/go.mod"} {
		gomod, err := os.ReadFile(nested)
		if err != nil {
			t.Fatal(err)
		}
		if want := "github.com/scribehq/scribe-go v" + Version + "\n"; !strings.Contains(string(gomod), want) {
			t.Errorf("%s does not require %q", nested, strings.TrimSpace(want))
		}
	}
	changelog, err := os.ReadFile("CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := "\n## [" + Version + "]"; !strings.Contains(string(changelog), want) {
		t.Errorf("CHANGELOG.md has no section %q", strings.TrimSpace(want))
	}
}
