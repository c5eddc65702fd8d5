package webhook

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
)

// signedDelivery is one delivery the fuzz targets signed with the vector
// secret. The fuzzer can copy these signatures, but it cannot compute new
// ones: HMAC-SHA256 does not let it.
type signedDelivery struct {
	id   string
	ts   int64
	body string
}

var fuzzSigned = []signedDelivery{
	{vectorID, vectorTimestamp, vectorBody},
	{"evt_2", vectorTimestamp - 60, `{"id":"evt_2","type":"transcript.created","data":{}}`},
}

// FuzzVerify checks that Verify never panics, never accepts a delivery that
// was not signed with its secret, and always accepts one that was.
//
// Soundness of the property: the only valid signatures the fuzzer can know are
// those of fuzzSigned (they are in the seeds), and Verify refuses a
// webhook-id containing "." and a timestamp that is not plain digits, so the
// signed content id "." timestamp "." body splits one way only. Hence an
// accepted delivery must have exactly the id, timestamp value and body of one
// entry of fuzzSigned, and its header must contain that entry's signature
// (checked with an independent HMAC). The converse is checked too: a header
// holding a signed entry's signature as one of its space-separated tokens,
// with that entry's id, timestamp and body, must verify (unless the timestamp
// is padded with zeros beyond 19 digits, which Verify refuses).
func FuzzVerify(f *testing.F) {
	sec := mustSecret(f, vectorSecret)
	key := hmacKey(sec)
	v, err := NewVerifier(sec, WithClock(fixedClock(vectorTime)))
	if err != nil {
		f.Fatal(err)
	}
	sig := func(d signedDelivery) string { return independentSignature(key, d.id, d.ts, d.body) }
	ts := func(d signedDelivery) string { return strconv.FormatInt(d.ts, 10) }
	for _, d := range fuzzSigned {
		f.Add(d.id, ts(d), sig(d), []byte(d.body))
		f.Add(d.id, ts(d), "v1a,AAAA "+sig(d)+" v2,x", []byte(d.body))
		f.Add(d.id, ts(d), sig(d), []byte(d.body+" "))
		f.Add(d.id+".", ts(d), sig(d), []byte(d.body))
		f.Add(d.id, "0"+ts(d), sig(d), []byte(d.body))
		f.Add(d.id, ts(d)+"0", sig(d), []byte(d.body))
	}
	a, b := fuzzSigned[0], fuzzSigned[1]
	f.Add(a.id, ts(a), sig(b), []byte(a.body))                            // another delivery's signature
	f.Add(a.id, ts(a), sig(a)+" "+sig(b), []byte(b.body))                 // a body swapped for another signed one
	f.Add(a.id+"."+ts(a), "1", sig(a), []byte(a.body))                    // the id eats the timestamp
	f.Add("", "", "", []byte(nil))                                        // nothing
	f.Add(a.id, "-1", "v1,", []byte("{}"))                                // junk
	f.Add(a.id, ts(a), "v1,"+strings.Repeat("A", 43)+"=", []byte(a.body)) // well-formed, wrong

	f.Fuzz(func(t *testing.T, id, tsText, sigHeader string, body []byte) {
		h := http.Header{canonicalID: {id}, canonicalTimestamp: {tsText}, canonicalSignature: {sigHeader}}
		err := v.Verify(h, body)
		if err != nil {
			var ve *VerificationError
			if !errors.As(err, &ve) {
				t.Fatalf("Verify error %T is not a *VerificationError: %v", err, err)
			}
			for _, d := range fuzzSigned {
				if strings.Contains(err.Error(), sig(d)[3:]) {
					t.Fatalf("error %q holds a signature", err)
				}
			}
		}

		tsValue, tsErr := strconv.ParseInt(tsText, 10, 64)
		tsDigits := tsText != "" && !strings.ContainsFunc(tsText, func(r rune) bool { return r < '0' || r > '9' })
		tokens := strings.FieldsFunc(sigHeader, unicode.IsSpace)
		i := slices.IndexFunc(fuzzSigned, func(d signedDelivery) bool {
			return d.id == id && tsErr == nil && tsDigits && d.ts == tsValue && bytes.Equal([]byte(d.body), body)
		})
		if err == nil {
			if i < 0 {
				t.Fatalf("Verify accepted a delivery that was never signed: id %q, timestamp %q, body %q", id, tsText, body)
			}
			if !slices.Contains(tokens, sig(fuzzSigned[i])) {
				t.Fatalf("Verify accepted header %q, which lacks the signature of the delivery", sigHeader)
			}
			return
		}
		if i >= 0 && slices.Contains(tokens, sig(fuzzSigned[i])) && len(tsText) <= 19 && len(body) <= DefaultMaxBodyBytes {
			t.Fatalf("Verify refused a correctly signed delivery (id %q, timestamp %q, header %q): %v", id, tsText, sigHeader, err)
		}
	})
}

// FuzzParseSignatureHeader checks that parsing any webhook-signature value
// never panics, yields only whitespace-free signatures of v1 entries, and
// stops when asked to.
func FuzzParseSignatureHeader(f *testing.F) {
	for _, s := range []string{
		"", " ", vectorSignature, vectorSignature + " " + vectorSignature,
		"v1a,hnO3f9T8Ytu9HwrXslvumlUpqtNVqkhqw/enGzPCXe5BdqzCInXqYXFymVJaA7AZdpXwVLPo3mNl8EM+m7TBAg== " + vectorSignature,
		"v1,", ",", "v1", "v1,,,", "\tv1,a\nv1,b\u00a0v1,c", "v1,a\x00b", "v2,x v1,y", "\xff\xfe,v1,\xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		var sigs []string
		for s := range v1Signatures(value) {
			if strings.ContainsFunc(s, unicode.IsSpace) {
				t.Fatalf("signature %q holds white space", s)
			}
			if !strings.Contains(value, "v1,"+s) {
				t.Fatalf("signature %q is not preceded by v1, in %q", s, value)
			}
			sigs = append(sigs, s)
		}
		if len(sigs) > strings.Count(value, "v1,") {
			t.Fatalf("%d signatures from %d v1 entries", len(sigs), strings.Count(value, "v1,"))
		}
		for range v1Signatures(value) {
			break // an early break must not panic
		}
	})
}

// FuzzParseEvent checks that no body makes ParseEvent or the typed accessors
// panic, and that whatever ParseEvent accepts has an id and a type.
func FuzzParseEvent(f *testing.F) {
	for _, s := range []string{installationEventBody, transcriptEventBody, `{}`, `null`, `{"id":"e","type":"t","data":null}`,
		`{"id":"e","type":"transcript.created","data":{"metadata":[]}}`, `{"id":"e","type":"installation.deleted","data":{"deleted_on":"x"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		e, err := ParseEvent(body)
		if err != nil {
			if !errors.Is(err, ErrMalformedEvent) {
				t.Fatalf("ParseEvent error is not ErrMalformedEvent: %v", err)
			}
			return
		}
		if e.ID == "" || e.Type == "" {
			t.Fatalf("ParseEvent accepted an event without id or type: %+v", e)
		}
		_, _ = e.Installation()
		_, _ = e.Transcript()
	})
}

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
	v, err := NewVerifier(secret, WithClock(fixedClock(now)))
	if err != nil {
		f.Fatal(err)
	}
	forbidden := []string{secret.Reveal(), base64.StdEncoding.EncodeToString(hmacKey(secret)), base64.RawStdEncoding.EncodeToString(hmacKey(secret))}
	f.Fuzz(func(t *testing.T, sign bool, method uint8, id, ts, body string) {
		var logs bytes.Buffer
		calls := map[string]int{}
		h := newHandler(t, v, func(_ context.Context, e *Event) error {
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
		}, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))), WithErrorDetails())
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
			case http.StatusOK, http.StatusBadRequest, http.StatusUnauthorized, http.StatusMethodNotAllowed, http.StatusConflict:
			case http.StatusInternalServerError, StatusPermanentFailure:
				if len(calls) == 0 {
					t.Fatalf("%d without the function having run: %q", rec.Code, answer)
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
