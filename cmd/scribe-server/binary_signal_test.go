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
