package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/scribehq/scribe-go/internal/keygen"
)

// startBinary starts the built command with args and returns its base URL;
// the process is killed when the test ends.
func startBinary(t *testing.T, bin string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-addr", "127.0.0.1:0"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, firstLine(t, stdout)
}

// The binary's healthcheck exits 0 while the server serves and 1, with the
// reason, once SIGTERM has stopped it: what an image's HEALTHCHECK runs.
func TestBinaryHealthcheck(t *testing.T) {
	bin := binary(t)
	server, base := startBinary(t, bin)
	if out, err := exec.Command(bin, "healthcheck", "-server", base).CombinedOutput(); err != nil || !strings.Contains(string(out), "answered 200") {
		t.Errorf("healthcheck of a serving server: %v, %s; want exit 0", err, out)
	}
	if err := server.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := server.Wait(); err != nil {
		t.Fatalf("the server after SIGTERM: %v", err)
	}
	out, err := exec.Command(bin, "healthcheck", "-server", base).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "connection refused") {
		t.Errorf("healthcheck of a stopped server: %v, %s; want exit 1 saying why", err, out)
	}
}

// check-receiver -server interrupted by SIGINT removes the scenes it made
// so far before it exits: plugin 100's installations are what they were.
func TestBinaryCheckReceiverInterrupted(t *testing.T) {
	bin := binary(t)
	_, base := startBinary(t, bin, "-admin")
	before := installationsOf(t, base)
	secret, err := keygen.WebhookSecret()
	if err != nil {
		t.Fatal(err)
	}
	var check atomic.Pointer[os.Process] // set once the check has started
	var interrupted atomic.Bool
	var made atomic.Int32 // the installations on the server when the check was interrupted
	var n atomic.Int32
	correct := correctReceiver(t, secret)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := check.Load(); n.Add(1) >= 3 && p != nil && interrupted.CompareAndSwap(false, true) {
			made.Store(int32(len(installationsOf(t, base)) - len(before)))
			_ = p.Signal(os.Interrupt)
		}
		correct.ServeHTTP(w, r)
	}))
	defer recv.Close()
	cmd := exec.Command(bin, "check-receiver", "-server", base, recv.URL)
	cmd.Env = append(os.Environ(), secretEnv+"="+secret.Reveal())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	check.Store(cmd.Process)
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || made.Load() < 2 {
		t.Fatalf("check-receiver after SIGINT: %v with %d scenes made; want exit 1 after some:\n%s", err, made.Load(), out.String())
	}
	if diff := cmp.Diff(before, installationsOf(t, base)); diff != "" {
		t.Errorf("plugin 100's installations after the interrupted check (-before +after):\n%s", diff)
	}
}

// A SIGTERM, as an orchestrator stops a container, while a webhook
// delivery is pending: with -state the delivery is kept, so the stop is no
// failure (exit 0, saying so) and the next server on the directory has it
// pending; without -state it is lost, so the server exits 1 naming it.
func TestBinarySIGTERMWithPendingDelivery(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }))
	t.Cleanup(recv.Close)
	for _, tc := range []struct {
		name     string
		state    bool
		code     int
		saysWhat string
	}{
		{"with -state", true, 0, "webhook deliveries not yet made: 1, kept in "},
		{"in memory", false, 1, "1 webhook delivery undelivered"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := []string{"-admin"}
			if tc.state {
				args = append(args, "-state", dir)
			}
			p := startProcess(t, bin, args...)
			admin := strings.TrimSuffix(p.base, "/") + "/_scribetest"
			request(t, "POST", admin+"/webhooks", "", `{"plugin_id":100,"uri":"`+recv.URL+`"}`, nil)
			request(t, "POST", admin+"/installations", "", `{"plugin_id":100,"user_id":9}`, nil)
			if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			code := 0
			if ee, ok := p.cmd.Wait().(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != tc.code || !strings.Contains(p.stderr.String(), tc.saysWhat) {
				t.Fatalf("after SIGTERM: exit %d, stderr:\n%s\nwant exit %d saying %q", code, p.stderr, tc.code, tc.saysWhat)
			}
			if !tc.state {
				return
			}
			again := startProcess(t, bin, "-admin", "-state", dir)
			var d struct {
				Pending []struct {
					EventType string `json:"event_type"`
				}
			}
			request(t, "GET", strings.TrimSuffix(again.base, "/")+"/_scribetest/deliveries", "", "", &d)
			if len(d.Pending) != 1 || d.Pending[0].EventType != "installation.created" {
				t.Errorf("pending deliveries of the next server on the directory: %+v, want the installation.created one", d.Pending)
			}
		})
	}
}
