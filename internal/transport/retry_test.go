package transport

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"net/url"
	"testing"
	"time"
)

// TestRetryAfter protects both forms of Retry-After (RFC 9110 §10.2.3).
func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)
	tests := []struct {
		header string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"7", 7 * time.Second, true},
		{" 120 ", 120 * time.Second, true},
		{"-1", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
		{"99999999999999999", 24 * time.Hour, true}, // clamped, no overflow
		{"Sat, 21 Nov 2026 09:30:30 GMT", 30 * time.Second, true},
		{"Saturday, 21-Nov-26 09:31:00 GMT", time.Minute, true}, // RFC 850
		{"Sat Nov 21 09:30:05 2026", 5 * time.Second, true},     // asctime
		{"Sat, 21 Nov 2026 09:00:00 GMT", 0, true},              // in the past: no wait
		{"Fri, 31 Dec 9999 23:59:59 GMT", MaxRetryAfter, true},  // capped like the seconds form
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.header != "" {
			h.Set("Retry-After", tt.header)
		}
		got, ok := RetryAfter(h, now)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("RetryAfter(%q) = %s, %v; want %s, %v", tt.header, got, ok, tt.want, tt.wantOK)
		}
	}
}

// TestJitterBounds protects the backoff schedule: between min and the
// capped exponential ceiling min(max, min·2^(n+1)), both ends reachable.
func TestJitterBounds(t *testing.T) {
	t.Parallel()
	const minW, maxW = 500 * time.Millisecond, 8 * time.Second
	lowest := func(int64) int64 { return 0 }
	highest := func(n int64) int64 { return n - 1 }
	tests := []struct {
		attempt  int
		wantHigh time.Duration
	}{
		{0, time.Second}, {1, 2 * time.Second}, {2, 4 * time.Second}, {3, 8 * time.Second}, {10, 8 * time.Second}, {100, 8 * time.Second},
	}
	for _, tt := range tests {
		if got := Jitter(minW, maxW, tt.attempt, lowest); got != minW {
			t.Errorf("attempt %d: lowest wait = %s, want %s", tt.attempt, got, minW)
		}
		if got := Jitter(minW, maxW, tt.attempt, highest); got != tt.wantHigh {
			t.Errorf("attempt %d: highest wait = %s, want %s", tt.attempt, got, tt.wantHigh)
		}
	}
	if got := Jitter(0, 0, 3, highest); got != 0 {
		t.Errorf("Jitter(0, 0) = %s, want 0", got)
	}
	if got := Jitter(time.Second, time.Second, 3, highest); got != time.Second {
		t.Errorf("Jitter(1s, 1s) = %s, want 1s", got)
	}
}

// TestRetryable protects the retry table of answers (docs/contract.md, "Rate limits and idempotency"), 409
// idempotency_key_in_use included and idempotency_key_reused excluded.
func TestRetryable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		method string
		status int
		code   string
		want   bool
	}{
		{"GET", 503, "", true},
		{"GET", 500, "", true},
		{"POST", 500, "", false},
		{"POST", 503, "", true},
		{"GET", 429, "rate_limited", true},
		{"GET", 502, "", true},
		{"GET", 504, "", true},
		{"GET", 404, "not_found", false},
		{"GET", 501, "", false},
		{"POST", 409, "idempotency_key_in_use", true},
		{"POST", 409, "idempotency_key_reused", false},
		{"POST", 409, "", false},
		{"GET", 307, "", false},
	}
	for _, tt := range tests {
		if got := Retryable(tt.method, tt.status, tt.code); got != tt.want {
			t.Errorf("Retryable(%s, %d, %q) = %v, want %v", tt.method, tt.status, tt.code, got, tt.want)
		}
	}
}

// TestRetryableError protects the classification of failed attempts:
// connection errors and timeouts are retried, what go-retryablehttp knows
// to be permanent is not.
func TestRetryableError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  error
		want bool
	}{
		{errors.New("read tcp 127.0.0.1:1234: connection reset by peer"), true},
		{ErrAttemptTimeout, true},
		{&url.Error{Op: "Get", URL: "x", Err: errors.New(`unsupported protocol scheme "ftp"`)}, false},
		{&url.Error{Op: "Get", URL: "x", Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}}, false},
	}
	for _, tt := range tests {
		if got := RetryableError(tt.err); got != tt.want {
			t.Errorf("RetryableError(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
