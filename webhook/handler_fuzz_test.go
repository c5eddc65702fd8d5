package webhook

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

// FuzzHandler holds the receiver to NewHandler's promise on any request:
// the answer is one of the documented statuses (a 500 only when the
// function failed, a 422 only when it failed permanently), one line of
// text; a delivery signed with the receiver's secret reaches the function
// exactly once however often it is sent, while an unsigned one never
// does; and neither the answer nor the log ever holds the secret (as
// whsec_ text or bare base64) or the signature, even when the function's
// error quotes the secret. The harness signs the fuzzer's delivery when
// asked to, since the fuzzer cannot compute an HMAC.
//
//	go test -run '^$' -fuzz FuzzHandler -fuzztime 2m ./webhook/
func FuzzHandler(f *testing.F) {
	for _, seed := range []struct {
		sign         bool
		method       uint8
		id, ts, body string
	}{
		{true, 0, "evt_1", "", `{"id":"evt_1","type":"installation.created","created_on":"2026-11-21T09:30:00Z","plugin_id":1,"plugin_installation_uuid":"u","data":{}}`},
		{true, 0, "evt_2", "", `{"id":"evt_2","type":"fail","data":{}}`}, {true, 0, "evt_3", "", `{"id":"evt_3","type":"permanent","data":{}}`},
		{true, 0, "evt_4", "", `{"id":"evt_4","type":"panic","data":{}}`}, {true, 0, "evt_5", "", `not json`},
		{false, 0, "evt_1", "1795253400", `{}`}, {false, 1, "", "", ``}, {true, 0, "a.b", "", `{}`}, {false, 0, "evt_1", "-1", `{}`},
	} {
		f.Add(seed.sign, seed.method, seed.id, seed.ts, seed.body)
	}
	secret := mustSecret(f, vectorSecret)
	now := time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)
	v, err := NewVerifier(secret, WithClock(func() time.Time { return now }))
	if err != nil {
		f.Fatal(err)
	}
	forbidden := []string{secret.Reveal(), base64.StdEncoding.EncodeToString(hmacKey(secret)), base64.RawStdEncoding.EncodeToString(hmacKey(secret))}
	f.Fuzz(func(t *testing.T, sign bool, method uint8, id, ts, body string) {
		var logs bytes.Buffer
		calls := map[string]int{}
		h := NewHandler(v, func(_ context.Context, e *Event) error {
			calls[e.ID]++
			switch e.Type {
			case "fail":
				return fmt.Errorf("the function failed holding %s", secret.Reveal())
			case "permanent":
				return Permanent(fmt.Errorf("refused, secret %s", secret.Reveal()))
			case "panic":
				panic("the function panicked holding " + secret.Reveal())
			}
			return nil
		}, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
		header := http.Header{}
		if sign {
			header = SignHeaders(secret, id, now, []byte(body))
		} else {
			header.Set(HeaderID, id)
			header.Set(HeaderTimestamp, ts)
			header.Set(HeaderSignature, "v1,"+base64.StdEncoding.EncodeToString([]byte(id+ts+body)))
		}
		if slices.ContainsFunc(slices.Concat(header.Values(HeaderID), header.Values(HeaderTimestamp)), func(s string) bool {
			return strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f })
		}) {
			return // net/http refuses such a header before a handler sees it
		}
		signature := header.Get(HeaderSignature)
		for range 2 { // the same delivery twice: the function runs at most once
			r := httptest.NewRequest([]string{"POST", "GET", "PUT"}[int(method)%3], "/hook", strings.NewReader(body))
			r.Header = header.Clone()
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			answer := rec.Body.String()
			switch rec.Code {
			case http.StatusOK, http.StatusBadRequest, http.StatusUnauthorized, http.StatusMethodNotAllowed, http.StatusConflict, StatusPermanentFailure:
			case http.StatusInternalServerError:
				if len(calls) == 0 {
					t.Fatalf("500 without the function having run: %q", answer)
				}
			default:
				t.Fatalf("undocumented status %d: %q", rec.Code, answer)
			}
			if strings.Count(strings.TrimSuffix(answer, "\n"), "\n") > 0 {
				t.Fatalf("%d answer is not one line: %q", rec.Code, answer)
			}
			for _, s := range append(forbidden, signature) {
				if len(s) >= 16 && (strings.Contains(answer, s) || strings.Contains(logs.String(), s)) {
					t.Fatalf("the answer %q or the log %q holds %q", answer, logs.String(), s)
				}
			}
		}
		for id, n := range calls {
			if !sign {
				t.Fatalf("an unsigned delivery reached the function (%s)", id)
			}
			if n > 1 && !slices.Contains([]string{"fail", "permanent", "panic"}, typeOf(body)) {
				t.Fatalf("the function ran %d times for delivery %s", n, id)
			}
		}
	})
}

// typeOf is the "type" an event body names, if any, for the harness.
func typeOf(body string) string {
	e, err := ParseEvent([]byte(body))
	if err != nil {
		return ""
	}
	return string(e.Type)
}
