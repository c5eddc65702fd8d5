package conformance_test

import (
	"bufio"
	"os"
	"slices"
	"strings"
	"testing"
)

// The generated client proves the document against oapi-codegen's default
// configuration only while oapi-codegen.yaml sets nothing but the package,
// the output file and what to generate: an output-options entry (skip-prune,
// a type mapping, ...) could make a broken document generate. This test
// keeps it that way.
func TestCodegenConfigIsTheDefault(t *testing.T) {
	f, err := os.Open("oapi-codegen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var top, generate []string
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		key, _, _ := strings.Cut(strings.TrimSpace(line), ":")
		if !strings.HasPrefix(line, " ") {
			top, section = append(top, key), key
		} else if section == "generate" {
			generate = append(generate, line)
		} else {
			t.Errorf("oapi-codegen.yaml sets %q under %s", strings.TrimSpace(line), section)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(top)
	if !slices.Equal(top, []string{"generate", "output", "package"}) {
		t.Errorf("oapi-codegen.yaml sets %v; only package, output and generate keep the defaults", top)
	}
	want := []string{"  models: true", "  client: true"}
	if !slices.Equal(generate, want) {
		t.Errorf("generate: %q, want %q", generate, want)
	}
}
