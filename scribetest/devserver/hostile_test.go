package devserver_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/scribehq/scribe-go/scribetest"
)

// hostileSecrets are credential-shaped texts a hostile peer puts in what it
// sends; none may be shown, in any spelling.
var hostileSecrets = []string{"ask_live_HOSTILEsecretKEY1", "dk_live_HOSTILEdevKEY2", "whsec_HOSTILEab+cd/ef==",
	"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"}

// rawReceiver answers every request with the bytes answer, written as they
// are (no HTTP library would write them), then closes the connection.
func rawReceiver(t *testing.T, answer string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if req, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
					_, _ = io.Copy(io.Discard, req.Body)
					_, _ = io.WriteString(c, answer)
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/hook"
}

// Issue 49 items 2 and 3: invalid UTF-8, terminal escapes and credentials
// in every place a receiver or a client controls (status line, Location,
// headers and body of an answer; path, query, Idempotency-Key and body of
// a request) are recorded sanitized, so that every admin endpoint and
// dashboard page still answers (no 5xx), as valid UTF-8, without the
// secrets or an escape character.
func TestHostileBytesBreakNoAdminEndpoint(t *testing.T) {
	t.Parallel()
	s := newDevServer(t, scribetest.WithFixtures(scribetest.DemoFixtures()), fastSchedule)
	base := strings.TrimSuffix(s.URL(), "/")
	evil := " \xff\xfe " + strings.Join(hostileSecrets, " ") + " \x1b]0;owned\x07\x1b[2J"
	receivers := []string{
		"HTTP/1.1 503 Busy" + evil + "\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 302 Found\r\nLocation: http://x.example/\xff\xfe?k=" + strings.Join(hostileSecrets, "&k=") + "\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 500 Oops\r\nX-Bad: \xff\xfe\r\nContent-Length: 8\r\n\r\n\xff\xfe\x1b[2Jok",
		"HTTP/1.1 422 No" + evil + "\r\nContent-Length: 0\r\n\r\n",
		"NOT HTTP" + evil + "\r\n\r\n",
	}
	for i, answer := range receivers {
		body := `{"plugin_id":100,"type":"installation.created","uri":"` + rawReceiver(t, answer) + `"}`
		if code, got := do(t, "POST", base+"/_scribetest/trigger", body, nil); code != 200 {
			t.Fatalf("trigger %d: %d %s", i, code, got)
		}
	}
	key := "ask_live_KEYinPATH" // and every other place a client controls
	for _, target := range []string{"/transcripts/%FF%FE" + key, "/transcripts?q=%FF%FE%1B%5B2J&webhook_secret=whsec_ab%2Bcd%2Fef%3D", "/plugins/" + "%1B]0;x%07"} {
		do(t, "GET", base+target, "", http.Header{"Idempotency-Key": {"\xff\xfe" + key}, "Authorization": {"Bearer \xff"}})
	}
	do(t, "POST", base+"/transcripts", "{\"text\":\"\xff\xfe\"}", http.Header{"Idempotency-Key": {"k\xff\xfe"}, "Content-Type": {"application/json"}})
	if err := s.WaitForDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"deliveries", "requests", "faults", "fixtures", "healthz", "ui/", "ui/events", "ui/requests", "ui/requests?status=4xx"} {
		code, got := do(t, "GET", base+"/_scribetest/"+path, "", nil)
		if code != 200 || !utf8.ValidString(got) || strings.ContainsAny(got, "\x1b\x07") {
			t.Errorf("GET %s: %d, valid UTF-8 %v, escape characters %v: %.300q", path, code, utf8.ValidString(got), strings.ContainsAny(got, "\x1b\x07"), got)
		}
		for _, secret := range append(hostileSecrets, key, "HOSTILE", "KEYinPATH", "cd%2Fef") {
			if strings.Contains(got, secret) {
				t.Errorf("GET %s shows %q", path, secret)
			}
		}
	}
	_, got := do(t, "GET", base+"/_scribetest/deliveries", "", nil)
	for _, want := range []string{"answered 503 Busy \ufffd ask_live_[REDACTED] dk_live_[REDACTED] whsec_[REDACTED] [REDACTED] ", `\\x1b]0;owned\\a\\x1b[2J`,
		"redirect to http://x.example/\ufffd?k=ask_live_[REDACTED] not followed", "answered 422 No \ufffd", "the receiver answered a malformed HTTP response"} {
		if !strings.Contains(got, want) {
			t.Errorf("the deliveries do not say %q: %.2000s", want, got)
		}
	}
}

// do sends one request and returns the status and body; 0 when it failed.
func do(t *testing.T, method, url, body string, h http.Header) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	if body != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Issue 49 item 5, through the admin API: an event whose body went past the
// body budget answers its resend with 409 saying the body is no longer kept.
func TestResendPastTheBodyBudgetIs409(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, nil)
	s := newDevServer(t, scribetest.WithFixtures(scribetest.DemoFixtures()), fastSchedule, scribetest.WithBodyBudget(1))
	base := strings.TrimSuffix(s.URL(), "/")
	if code, got := do(t, "POST", base+"/_scribetest/trigger", `{"plugin_id":100,"type":"installation.created","uri":"`+rc.url()+`"}`, nil); code != 200 {
		t.Fatalf("trigger: %d %s", code, got)
	}
	if err := s.WaitForDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	events, _ := s.Events(0, 1)
	code, got := do(t, "POST", base+"/_scribetest/events/"+events[0].ID+"/resend", "", nil)
	if code != http.StatusConflict || !strings.Contains(got, "its body is no longer kept") {
		t.Errorf("resend: %d %s, want 409 saying its body is no longer kept", code, got)
	}
}
