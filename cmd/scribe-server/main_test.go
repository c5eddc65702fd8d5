package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/apitest"
	"github.com/scribehq/scribe-go/internal/keygen"
)

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

// TestRunShutsDownBesideAnUnusedConnection: a connection a client opened
// but never sent a request on (an HTTP client's spare dial) does not hold
// the shutdown: http.Server.Shutdown alone waits up to 5 s for one, which
// made the binary exit 1 with "context deadline exceeded" after a signal.
func TestRunShutsDownBesideAnUnusedConnection(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0"}, pw, io.Discard)
		pw.Close()
	}()
	url := firstLine(t, pr)
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run returned %v after the context ended, want nil", err)
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
		{[]string{"-addr", "127.0.0.1:0", "-admin", "-webhook-schedule-scale", "1e12"}, 200}, // saturates: retries a week apart
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

// TestRunRateLimitFlag: -rate-limit N/DURATION limits each credential to N
// requests per DURATION; the next is 429 with Retry-After, and another
// credential has its own quota. (An hour, so that no window ends between
// the calls.)
func TestRunRateLimitFlag(t *testing.T) {
	t.Parallel()
	base := startServer(t, defaultLimits, "-rate-limit", "2/1h")
	const demoKey = "dk_live_c2NyaWJlLWRlbW8tZGV2ZWxvcGVyLWtleS1wdWJsaWM"
	for i, want := range []int{200, 200, 429} {
		r, _ := http.NewRequest(http.MethodGet, base+"/plugins", nil)
		r.Header.Set("Authorization", "Bearer "+demoKey)
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want || resp.Header.Get("RateLimit-Limit") != "2" || (want == 429) != (resp.Header.Get("Retry-After") != "") {
			t.Errorf("call %d: %d, RateLimit-Limit %q, Retry-After %q; want %d", i+1, resp.StatusCode,
				resp.Header.Get("RateLimit-Limit"), resp.Header.Get("Retry-After"), want)
		}
	}
	if status, _, _ := get(t, base+"/users/me", mint(t, demoSecretKey, "0b6d3f9e-2c4a-4e8b-9a1d-5f7c3e2b1a90", time.Now())); status != 200 {
		t.Errorf("an installation's first call: %d, want 200 (its own quota)", status)
	}
}

// TestRunAllowedHostsFlag: the binary answers localhost and IP literals,
// refuses any other Host with 403 (DNS rebinding), and -allowed-hosts adds
// names, such as a compose service name.
func TestRunAllowedHostsFlag(t *testing.T) {
	t.Parallel()
	base := startServer(t, defaultLimits, "-admin", "-allowed-hosts", "scribe,app.test")
	port := base[strings.LastIndex(base, ":"):]
	for host, want := range map[string]int{"scribe" + port: 200, "APP.test": 200, "localhost" + port: 200, "[::1]" + port: 200,
		"evil.example" + port: 403, "scribe.evil.example": 403} {
		r, _ := http.NewRequest(http.MethodGet, base+"/_scribetest/deliveries", nil)
		r.Host = host
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d, want %d", host, resp.StatusCode, want)
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
		{[]string{"-allowed-hosts", "scribe:8080"}, `"scribe:8080" is not a host name`},
		{[]string{"-body-budget", "0"}, "give a positive size"},
		{[]string{"-body-budget", "12XB"}, "give a positive size"},
		{[]string{"-body-budget", "9999999999GiB"}, "give a positive size"},
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

// The credentials and uuids of testdata/contract.json.
const (
	fixtureFile  = "testdata/contract.json"
	devKey       = "dk_live_cmdtest"                                      // user 7, owns plugins 100 and 101
	otherDevKey  = "dk_live_cmdtest_other"                                // user 10, owns nothing at start
	readKey      = "ask_live_c2NyaWJlLXNlcnZlci1iaW5hcnktdGVzdC1rZXktMDE" // plugin 100: user read, transcript read
	noneKey      = "ask_live_c2NyaWJlLXNlcnZlci1iaW5hcnktdGVzdC1rZXktMDI" // plugin 101: user read, transcript none
	readUUID     = "0b6d3f9e-2c4a-4e8b-9a1d-5f7c3e2b1a90"                 // plugin 100 installed by user 8
	noneUUID     = "5e1c7a2b-8d3f-4c6e-b9a0-2f4d6e8a1c3b"                 // plugin 101 installed by user 8
	deletedUUID  = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"                 // plugin 100, uninstalled by user 9
	problemJSON  = "application/problem+json"
	bearerPrefix = "Bearer "
)

// call is one request to the binary.
type call struct {
	method, path, token string
	body                string
	contentType         string // "application/json" when empty and body is not
	idempotencyKey      string
	// invalid marks a request the contract forbids on purpose (a missing
	// token, limit=0, an unknown method...): the validator then checks only
	// the response.
	invalid bool
}

// reply is what the binary answered.
type reply struct {
	status int
	header http.Header
	body   []byte
	code   string // the problem code, "" for a 2xx
}

// send sends c to the server at base through an apitest validator, which
// reports to t every request (unless c.invalid) or response outside the
// contract. It also checks the rules every answer obeys: a Request-Id
// header, and problem+json for every non-2xx.
func send(t *testing.T, base string, c call) reply {
	t.Helper()
	ctx := t.Context()
	if c.invalid {
		ctx = apitest.AllowInvalidRequest(ctx)
	}
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
	}
	req, err := http.NewRequestWithContext(ctx, c.method, base+c.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", bearerPrefix+c.token)
	}
	if c.body != "" {
		ct := c.contentType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	if c.idempotencyKey != "" {
		req.Header.Set("Idempotency-Key", c.idempotencyKey)
	}
	hc := &http.Client{Transport: apitest.NewValidator(t).WithBasePath("/api/v1").Transport(nil)}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", c.method, c.path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", c.method, c.path, err)
	}
	r := reply{status: resp.StatusCode, header: resp.Header, body: b}
	// Every response carries a Request-Id (docs/errors.md).
	if resp.Header.Get("Request-Id") == "" {
		t.Errorf("%s %s: no Request-Id header", c.method, c.path)
	}
	if r.status >= 300 {
		// Every non-2xx answer is a problem (docs/errors.md).
		if ct := resp.Header.Get("Content-Type"); ct != problemJSON {
			t.Errorf("%s %s: %d with Content-Type %q, want %s", c.method, c.path, r.status, ct, problemJSON)
		}
		var p struct{ Code string }
		if err := json.Unmarshal(b, &p); err != nil {
			t.Errorf("%s %s: problem body: %v", c.method, c.path, err)
		}
		r.code = p.Code
	}
	return r
}

// mint returns an installation JWT for uuid signed with the secret key
// value, issued at iat.
func mint(t *testing.T, value, uuid string, iat time.Time) string {
	t.Helper()
	key, err := auth.ParseSecretKey(value)
	if err != nil {
		t.Fatalf("fixture secret key: %v", err)
	}
	tok, err := auth.Mint(key, uuid, iat)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// tamper returns tok with its payload replaced by claims that name another
// installation, keeping the original signature.
func tamper(t *testing.T, tok, uuid string) string {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("a JWT has 3 segments, got %d", len(parts))
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	claims["plugin_installation_uuid"] = uuid
	payload, err = json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	parts[1] = base64.RawURLEncoding.EncodeToString(payload)
	return strings.Join(parts, ".")
}

// TestBinary builds the command, starts it with the fixture file
// testdata/contract.json, checks the contract rules (docs/contract.md and docs/errors.md) over
// plain HTTP through an apitest validator, and stops it with SIGTERM.
func TestBinary(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	// Like a Go tool: a bad flag exits 2, reported once; -version exits 0.
	for _, tc := range []struct {
		args []string
		code int
		once string
	}{
		{[]string{"-nope"}, 2, "flag provided but not defined: -nope"},
		{[]string{"-webhook-schedule-scale", "0"}, 2, "-webhook-schedule-scale 0"},
		{[]string{"-version"}, 0, "scribe-server 0."},
	} {
		out, err := exec.Command(bin, tc.args...).CombinedOutput()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code || strings.Count(string(out), tc.once) != 1 {
			t.Errorf("scribe-server %v: exit %d, want %d, with %q once; output:\n%s", tc.args, code, tc.code, tc.once, out)
		}
	}

	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-base-path", "/api/v1", "-fixtures", fixtureFile)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	base := firstLine(t, stdout)
	if !strings.HasSuffix(base, "/api/v1") {
		t.Fatalf("base URL %q lacks the base path /api/v1", base)
	}

	// The subtests run one after another: "create plugin" adds plugins, and
	// SIGTERM must come after all of them.
	t.Run("developer key", func(t *testing.T) { testDeveloperKey(t, base) })
	t.Run("installation JWT", func(t *testing.T) { testInstallationJWT(t, base) })
	t.Run("pagination", func(t *testing.T) { testPagination(t, base) })
	t.Run("create plugin", func(t *testing.T) { testCreatePlugin(t, base) })
	t.Run("method not allowed", func(t *testing.T) { testMethodNotAllowed(t, base) })

	// SIGTERM shuts the server down gracefully: exit status 0.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("after SIGTERM the server exited with %v, want status 0; stderr:\n%s", err, stderr.String())
	}
}

// testDeveloperKey checks authentication with developer keys and the
// query parameter rules on GET operations.
func testDeveloperKey(t *testing.T, base string) {
	tests := []struct {
		rule    string
		path    string
		token   string
		invalid bool
		status  int
		code    string
	}{
		{"a developer reads their plugin", "/plugins/100", devKey, false, 200, ""},
		{"a developer reads their plugin's webhooks", "/plugins/100/webhooks", devKey, false, 200, ""},
		{"no Authorization header is 401 missing_token", "/plugins/100", "", true, 401, "missing_token"},
		{"an unknown developer key is 401 invalid_token", "/plugins/100", "dk_live_wrong", false, 401, "invalid_token"},
		{"a developer key on an installation operation is 403 wrong_token_kind", "/transcripts", devKey, false, 403, "wrong_token_kind"},
		{"an unknown plugin is 404", "/plugins/999", devKey, false, 404, "not_found"},
		{"another developer's plugin is 404, not 403", "/plugins/100", otherDevKey, false, 404, "not_found"},
		{"another developer's plugin's webhooks are 404", "/plugins/100/webhooks", otherDevKey, false, 404, "not_found"},
		{"limit=0 is 400 invalid_parameter", "/plugins?limit=0", devKey, true, 400, "invalid_parameter"},
		{"limit=101 is 400 invalid_parameter", "/plugins?limit=101", devKey, true, 400, "invalid_parameter"},
		{"limit=abc is 400 invalid_parameter", "/plugins?limit=abc", devKey, true, 400, "invalid_parameter"},
		{"after_id=-1 is 400 invalid_parameter", "/plugins?after_id=-1", devKey, true, 400, "invalid_parameter"},
		{"a path id that is not a positive integer is 400 invalid_parameter", "/plugins/abc", devKey, true, 400, "invalid_parameter"},
		{"a path outside the base path is 404", "/../../plugins", devKey, true, 404, "not_found"},
	}
	for _, tt := range tests {
		r := send(t, base, call{method: "GET", path: tt.path, token: tt.token, invalid: tt.invalid})
		if r.status != tt.status || r.code != tt.code {
			t.Errorf("%s: GET %s = %d %q, want %d %q", tt.rule, tt.path, r.status, r.code, tt.status, tt.code)
		}
	}
}

// testInstallationJWT checks the JWT rules of docs/contract.md, "Tokens" with tokens the
// test mints, and the permission and ownership rules of §3.
func testInstallationJWT(t *testing.T, base string) {
	now := time.Now()
	otherKey, err := keygen.SecretKey()
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := auth.Mint(otherKey, readUUID, now)
	if err != nil {
		t.Fatal(err)
	}
	valid := mint(t, readKey, readUUID, now)
	const challenge = `Bearer error="invalid_token"`

	tests := []struct {
		rule   string
		path   string
		token  string
		status int
		code   string
	}{
		{"a valid JWT lists the installing user's transcripts", "/transcripts", valid, 200, ""},
		{"a valid JWT reads the installing user", "/users/me", valid, 200, ""},
		{"a valid JWT reads the installing user's transcript", "/transcripts/1", valid, 200, ""},
		{"another user's transcript is 404", "/transcripts/4", valid, 404, "not_found"},
		{"a JWT signed with a key that is not the plugin's is 401 invalid_token", "/transcripts", foreign, 401, "invalid_token"},
		{"a JWT whose payload was changed after signing is 401 invalid_token", "/transcripts", tamper(t, valid, noneUUID), 401, "invalid_token"},
		{"a JWT issued 2 h ago (expired) is 401 token_expired", "/transcripts", mint(t, readKey, readUUID, now.Add(-2*time.Hour)), 401, "token_expired"},
		{"a JWT issued 10 min ahead (beyond the 60 s leeway) is 401 token_expired", "/transcripts", mint(t, readKey, readUUID, now.Add(10*time.Minute)), 401, "token_expired"},
		{"a JWT for an uninstalled installation is 401 installation_deleted", "/transcripts", mint(t, readKey, deletedUUID, now), 401, "installation_deleted"},
		{"transcript permission none is 403 permission_denied", "/transcripts", mint(t, noneKey, noneUUID, now), 403, "permission_denied"},
		{"user permission read still reads the user when transcripts are none", "/users/me", mint(t, noneKey, noneUUID, now), 200, ""},
		{"a JWT on a developer operation is 403 wrong_token_kind", "/plugins", valid, 403, "wrong_token_kind"},
		{"a garbage token is 401 invalid_token", "/transcripts", "not.a.jwt", 401, "invalid_token"},
	}
	for _, tt := range tests {
		r := send(t, base, call{method: "GET", path: tt.path, token: tt.token})
		if r.status != tt.status || r.code != tt.code {
			t.Errorf("%s: GET %s = %d %q, want %d %q", tt.rule, tt.path, r.status, r.code, tt.status, tt.code)
		}
		// A refused token gets the RFC 6750 challenge; 403 carries none.
		want := ""
		if tt.status == 401 {
			want = challenge
		}
		if got := r.header.Get("WWW-Authenticate"); got != want {
			t.Errorf("%s: WWW-Authenticate = %q, want %q", tt.rule, got, want)
		}
	}

	// An installation sees its user's transcripts only.
	r := send(t, base, call{method: "GET", path: "/transcripts", token: valid})
	var list struct {
		Data       []struct{ ID int64 }
		TotalCount int64 `json:"total_count"`
	}
	if err := json.Unmarshal(r.body, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Data) != 1 || list.Data[0].ID != 1 || list.TotalCount != 1 {
		t.Errorf("GET /transcripts for user 8 = %s, want transcript 1 alone", r.body)
	}
}

// testPagination walks GET /plugins one item at a time with after_id.
func testPagination(t *testing.T, base string) {
	type page struct {
		IDs        []int64
		HasMore    bool
		TotalCount int64
	}
	var got []page
	path := "/plugins?limit=1"
	for range 5 { // at most 5 pages: a server that never ends the walk fails
		r := send(t, base, call{method: "GET", path: path, token: devKey})
		if r.status != 200 {
			t.Fatalf("GET %s = %d %q", path, r.status, r.code)
		}
		var l struct {
			Data       []struct{ ID int64 }
			HasMore    bool  `json:"has_more"`
			TotalCount int64 `json:"total_count"`
		}
		if err := json.Unmarshal(r.body, &l); err != nil {
			t.Fatal(err)
		}
		p := page{HasMore: l.HasMore, TotalCount: l.TotalCount}
		for _, d := range l.Data {
			p.IDs = append(p.IDs, d.ID)
		}
		got = append(got, p)
		if !l.HasMore || len(l.Data) == 0 {
			break
		}
		path = fmt.Sprintf("/plugins?limit=1&after_id=%d", l.Data[len(l.Data)-1].ID)
	}
	want := []page{
		{IDs: []int64{100}, HasMore: true, TotalCount: 2},
		{IDs: []int64{101}, HasMore: false, TotalCount: 2},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("walking /plugins?limit=1 (-want +got):\n%s", diff)
	}
}

// testCreatePlugin checks POST /plugins: bodies, media types, size and
// Idempotency-Key (docs/errors.md; docs/contract.md, "Rate limits and idempotency"). It uses the second developer, whose
// plugin list the other subtests do not read.
func testCreatePlugin(t *testing.T, base string) {
	const body = `{"name": "Binary test", "permissions": {"user": "read", "transcript": "none"}}`
	tests := []struct {
		rule        string
		body        string
		contentType string
		invalid     bool
		status      int
		code        string
	}{
		{"a valid JSON body creates a plugin: 200", body, "", false, 200, ""},
		{"application/json with charset=utf-8 is JSON", body, "application/json; charset=utf-8", false, 200, ""},
		{"a body that is not JSON is 400 validation_failed", `{"name":`, "", true, 400, "validation_failed"},
		{"a member of the wrong type is 400 validation_failed", `{"name": 5}`, "", true, 400, "validation_failed"},
		{"an unknown member is 400 validation_failed", `{"name": "x", "colour": "red"}`, "", true, 400, "validation_failed"},
		{"a Content-Type that is not JSON is 415", body, "text/plain", true, 415, "unsupported_media_type"},
		{"a body over 1 MiB is 413", `{"name": "` + strings.Repeat("a", 1<<20) + `"}`, "", true, 413, "request_too_large"},
	}
	for _, tt := range tests {
		r := send(t, base, call{method: "POST", path: "/plugins", token: otherDevKey, body: tt.body, contentType: tt.contentType, invalid: tt.invalid})
		if r.status != tt.status || r.code != tt.code {
			t.Errorf("%s: POST /plugins = %d %q, want %d %q", tt.rule, r.status, r.code, tt.status, tt.code)
		}
		if tt.status == 200 {
			if ct := r.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("%s: Content-Type %q, want application/json", tt.rule, ct)
			}
			var p struct {
				ID   int64
				Name string
			}
			if err := json.Unmarshal(r.body, &p); err != nil || p.ID <= 0 || p.Name != "Binary test" {
				t.Errorf("%s: body %s, want the new plugin", tt.rule, r.body)
			}
		}
	}

	// The same Idempotency-Key with the same body replays the first answer:
	// one plugin, not two.
	created := func(r reply) int64 {
		t.Helper()
		var p struct{ ID int64 }
		if r.status != 200 || json.Unmarshal(r.body, &p) != nil {
			t.Fatalf("POST /plugins with an Idempotency-Key = %d %q %s, want 200", r.status, r.code, r.body)
		}
		return p.ID
	}
	c := call{method: "POST", path: "/plugins", token: otherDevKey, body: body, idempotencyKey: "binary-test-key-1"}
	first := send(t, base, c)
	second := send(t, base, c)
	if a, b := created(first), created(second); a != b {
		t.Errorf("a replayed Idempotency-Key created plugin %d, then %d; want the same plugin", a, b)
	}
	if got := second.header.Get("Idempotent-Replayed"); got != "true" {
		t.Errorf("a replay has Idempotent-Replayed %q, want \"true\"", got)
	}
	// The same key with another body is 409 idempotency_key_reused.
	c.body = `{"name": "Another body"}`
	if r := send(t, base, c); r.status != 409 || r.code != "idempotency_key_reused" {
		t.Errorf("the same Idempotency-Key with another body = %d %q, want 409 idempotency_key_reused", r.status, r.code)
	}
}

// testMethodNotAllowed: a known path with a method it does not take is 405
// with an Allow header naming the methods it does take.
func testMethodNotAllowed(t *testing.T, base string) {
	tests := []struct {
		method, path string
		allow        []string
	}{
		{"GET", "/plugins/100/secret_keys", []string{"POST"}},
		{"PUT", "/plugins/100", []string{"GET"}},
		{"DELETE", "/plugins", []string{"GET", "POST"}},
		{"POST", "/transcripts", []string{"GET"}},
	}
	for _, tt := range tests {
		r := send(t, base, call{method: tt.method, path: tt.path, token: devKey, invalid: true})
		if r.status != 405 || r.code != "method_not_allowed" {
			t.Errorf("%s %s = %d %q, want 405 method_not_allowed", tt.method, tt.path, r.status, r.code)
		}
		allow := strings.Split(r.header.Get("Allow"), ",")
		for i := range allow {
			allow[i] = strings.TrimSpace(allow[i])
		}
		for _, m := range tt.allow {
			if !slices.Contains(allow, m) {
				t.Errorf("%s %s: Allow %q lacks %s", tt.method, tt.path, r.header.Get("Allow"), m)
			}
		}
	}
}
