package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fixture is a small fixture file: one developer with one plugin.
const fixture = `{
  "users": [{"id": 7, "first_name": "Ada", "developer_key": "dk_live_cmdtest"}],
  "plugins": [{"id": 100, "user_id": 7, "name": "CRM sync"}]
}`

func writeFixture(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fixtures.json")
	if err := os.WriteFile(path, []byte(fixture), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// firstLine reads the first line of r and returns the base URL it announces,
// failing t unless it is exactly "listening on <URL>". The rest of r is
// drained in the background.
func firstLine(t *testing.T, r io.Reader) string {
	t.Helper()
	br := bufio.NewReader(r)
	line, err := br.ReadString('\n')
	if err != nil {
		t.Fatalf("reading the first line: %v (got %q)", err, line)
	}
	go func() { _, _ = io.Copy(io.Discard, br) }()
	url, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "listening on ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line = %q, want \"listening on http://127.0.0.1:<port>...\"", line)
	}
	return url
}

// get sends GET path with token and returns the status, the Content-Type
// and the problem code, if any.
func get(t *testing.T, url, token string) (status int, contentType, code string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Request-Id") == "" {
		t.Errorf("GET %s: no Request-Id", url)
	}
	var p struct{ Code string }
	_ = json.NewDecoder(resp.Body).Decode(&p)
	return resp.StatusCode, resp.Header.Get("Content-Type"), p.Code
}

// TestRun starts the server in-process on a free port with the demo data,
// checks its first line and a request, and stops it through the context.
func TestRun(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-base-path", "/v1"}, pw, io.Discard)
		pw.Close()
	}()
	url := firstLine(t, pr)
	if !strings.HasSuffix(url, "/v1") {
		t.Errorf("base URL %q lacks the base path", url)
	}
	if status, _, _ := get(t, url+"/plugins", "dk_live_c2NyaWJlLWRlbW8tZGV2ZWxvcGVyLWtleS1wdWJsaWM"); status != 200 {
		t.Errorf("GET /plugins with the demo developer key = %d, want 200", status)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run returned %v after the context ended, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after the context ended")
	}
}

// TestRunAdminFlag: -admin mounts the admin API, which is absent without it
// (it takes no credentials, so it must never be on by accident).
func TestRunAdminFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"-addr", "127.0.0.1:0", "-admin", "-webhook-schedule-scale", "0.001"}, 200},
		{[]string{"-addr", "127.0.0.1:0"}, 404},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, tc.args, pw, io.Discard)
			pw.Close()
		}()
		url := firstLine(t, pr)
		resp, err := http.Get(url + "/_scribetest/deliveries")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%v: GET /_scribetest/deliveries = %d, want %d", tc.args, resp.StatusCode, tc.want)
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("%v: run returned %v", tc.args, err)
		}
	}
}

// TestRunRefusesBadInput: bad flags and bad fixture files are errors, not
// a server.
func TestRunRefusesBadInput(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"plugins": [{"user_id": 9, "name": "x"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-addr", "nonsense"}, "not host:port"},
		{[]string{"-fixtures", filepath.Join(t.TempDir(), "missing.json")}, "no such file"},
		{[]string{"-addr", "127.0.0.1:0", "-fixtures", bad}, "fixtures: plugins[0].user_id: no user with id 9"},
		{[]string{"-base-path", "v1"}, "must be a path"},
		{[]string{"extra"}, "unexpected argument"},
	}
	for _, tt := range tests {
		err := run(context.Background(), tt.args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("run(%q) = %v, want an error containing %q", tt.args, err, tt.want)
		}
	}
}

// TestBinary builds the command, starts it with a fixture file, talks to it
// over plain HTTP, and stops it with SIGTERM.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to build the binary")
	}
	bin := filepath.Join(t.TempDir(), "scribe-server")
	build := exec.Command(goTool, "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-base-path", "/api/v1", "-fixtures", writeFixture(t))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	url := firstLine(t, stdout)

	tests := []struct {
		path, token string
		status      int
		code        string
	}{
		{"/plugins/100", "dk_live_cmdtest", 200, ""},
		{"/plugins/100", "", 401, "missing_token"},
		{"/plugins/100", "dk_live_wrong", 401, "invalid_token"},
		{"/transcripts", "dk_live_cmdtest", 403, "wrong_token_kind"},
		{"/plugins/101", "dk_live_cmdtest", 404, "not_found"},
		{"/plugins/100/secret_keys", "dk_live_cmdtest", 405, "method_not_allowed"},
		{"/plugins?limit=0", "dk_live_cmdtest", 400, "invalid_parameter"},
	}
	for _, tt := range tests {
		status, ct, code := get(t, url+tt.path, tt.token)
		if status != tt.status || code != tt.code {
			t.Errorf("GET %s = %d %q, want %d %q", tt.path, status, code, tt.status, tt.code)
		}
		if tt.code != "" && ct != "application/problem+json" {
			t.Errorf("GET %s: Content-Type %q, want application/problem+json", tt.path, ct)
		}
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("after SIGTERM the server exited with %v, want status 0", err)
	}
}
