package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/auth"
)

// built is the command, built once for the tests that run it as a process.
var built struct {
	once sync.Once
	bin  string
	err  error
	dir  string
}

// TestMain removes the binary the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// binary builds the command once, or skips t where it cannot be built.
func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a binary")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to build the binary")
	}
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "scribe-server-test"); built.err == nil {
			built.bin = filepath.Join(built.dir, "scribe-server")
			out, err := exec.Command(goTool, "build", "-o", built.bin, ".").CombinedOutput()
			if err != nil {
				built.err = errors.New(string(out))
			}
		}
	})
	if built.err != nil {
		t.Fatalf("go build: %v", built.err)
	}
	return built.bin
}

// process is the command running in a process of its own.
type process struct {
	cmd    *exec.Cmd
	base   string
	stderr *bytes.Buffer
}

// startProcess runs bin with args and returns it once it announced its
// address; it is killed when t ends.
func startProcess(t *testing.T, bin string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(bin, append([]string{"-addr", "127.0.0.1:0"}, args...)...), stderr: &bytes.Buffer{}}
	p.cmd.Stderr = p.stderr
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.cmd.Process.Kill(); _ = p.cmd.Wait() })
	br := bufio.NewReader(stdout)
	line, err := br.ReadString('\n')
	if err != nil {
		_ = p.cmd.Wait()
		t.Fatalf("scribe-server %v: %v; stderr:\n%s", args, err, p.stderr)
	}
	go func() { _, _ = io.Copy(io.Discard, br) }()
	p.base = strings.TrimPrefix(strings.TrimSpace(line), "listening on ")
	return p
}

// exitOf runs bin with args to its end and returns its exit status and
// standard error.
func exitOf(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(bin, append([]string{"-addr", "127.0.0.1:0"}, args...)...)
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), stderr.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String()
}

// request sends a request with a JSON body (if any) and token (if any), and
// decodes the answer into out (if not nil); anything but a 2xx fails t.
func request(t *testing.T, method, url, token, body string, out any) {
	t.Helper()
	r, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		r.Header.Set("Authorization", bearerPrefix+token)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, url, err, raw)
		}
	}
}

// The demo set's developer key.
const demoDevKey = "dk_live_c2NyaWJlLWRlbW8tZGV2ZWxvcGVyLWtleS1wdWJsaWM"

// TestStateSurvivesKill: writes answered 2xx by a server started with
// -state, through the API and the admin API, are all there after a kill -9
// and a restart on the same directory, with their events and deliveries;
// a second process on the directory, -fixtures on a directory that holds a
// state, and a damaged state are refused, the last left as it was.
func TestStateSurvivesKill(t *testing.T) {
	t.Parallel()
	bin, dir := binary(t), t.TempDir()
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }))
	defer recv.Close()

	first := startProcess(t, bin, "-admin", "-state", dir)
	admin := strings.TrimSuffix(first.base, "/") + "/_scribetest"
	var key struct {
		ID    int64
		Value string
	}
	var hook struct {
		ID            int64
		SigningSecret string `json:"signing_secret"`
	}
	var inst struct{ UUID string }
	request(t, "POST", first.base+"/plugins/100/secret_keys", demoDevKey, `{"description":"made before the kill"}`, &key)
	request(t, "POST", admin+"/webhooks", "", `{"plugin_id":100,"uri":"`+recv.URL+`"}`, &hook)
	request(t, "POST", admin+"/installations", "", `{"plugin_id":100,"user_id":9}`, &inst)
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.cmd.Wait()

	again := startProcess(t, bin, "-admin", "-state", dir)
	admin = strings.TrimSuffix(again.base, "/") + "/_scribetest"
	secret, err := auth.ParseSecretKey(key.Value)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := auth.Mint(secret, inst.UUID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var me struct{ ID int64 }
	request(t, "GET", again.base+"/users/me", tok, "", &me) // the key and the installation, together
	if me.ID != 9 {
		t.Errorf("GET /users/me with the new key and installation: user %d, want 9", me.ID)
	}
	var hooks struct{ Data []struct{ ID int64 } }
	request(t, "GET", again.base+"/plugins/100/webhooks", demoDevKey, "", &hooks)
	if len(hooks.Data) != 1 || hooks.Data[0].ID != hook.ID {
		t.Errorf("webhooks after the restart: %+v, want webhook %d", hooks.Data, hook.ID)
	}
	// The installation's event: pending when the server was killed, or
	// attempted since; the restarted server knows it, and resends it.
	var event string
	for deadline := time.Now().Add(waitLimit); event == ""; time.Sleep(10 * time.Millisecond) {
		var d struct {
			Attempts, Pending []struct {
				EventID   string `json:"event_id"`
				EventType string `json:"event_type"`
				WebhookID int64  `json:"webhook_id"`
			}
		}
		request(t, "GET", admin+"/deliveries", "", "", &d)
		for _, a := range append(d.Attempts, d.Pending...) {
			if a.EventType == "installation.created" && a.WebhookID == hook.ID {
				event = a.EventID
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the restart, no delivery of installation.created to webhook %d: %+v", hook.ID, d)
		}
	}
	request(t, "POST", admin+"/events/"+event+"/resend", "", "", nil)

	// A second process on the directory is refused, naming it.
	if code, stderr := exitOf(t, bin, "-state", dir); code != 1 || !strings.Contains(stderr, "in use by another process") || !strings.Contains(stderr, dir) {
		t.Errorf("a second process on %s: exit %d, %s; want 1, naming it as in use", dir, code, stderr)
	}
	if err := again.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = again.cmd.Wait()

	// -fixtures on a directory that holds a state is refused.
	if code, stderr := exitOf(t, bin, "-state", dir, "-fixtures", fixtureFile); code != 1 || !strings.Contains(stderr, "already holds a state") {
		t.Errorf("-fixtures with an existing state: exit %d, %s; want 1, saying so", code, stderr)
	}

	// A damaged state is refused and left as it is.
	file := filepath.Join(dir, "state.db")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	copy(b[4*4096:5*4096], bytes.Repeat([]byte{0xA5}, 4096))
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, stderr := exitOf(t, bin, "-state", dir); code != 1 || !strings.Contains(stderr, file) || !strings.Contains(stderr, "corrupt") {
		t.Errorf("a damaged state: exit %d, %s; want 1, naming %s as corrupt", code, stderr, file)
	}
	if after, _ := os.ReadFile(file); !bytes.Equal(after, b) {
		t.Error("the damaged state was changed")
	}
}
