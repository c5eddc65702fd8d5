package webhook

import (
	"crypto/hmac"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/scribehq/scribe-go/auth"
)

// DefaultTolerance is how far a delivery's webhook-timestamp may be from the
// receiver's clock, in either direction, before it is refused as a replay (or
// as a sign of a wrong clock).
const DefaultTolerance = 5 * time.Minute

// DefaultMaxBodyBytes caps the body a Verifier (and so NewHandler) accepts:
// 4 MiB. An event carries the whole resource, and a transcript's text can run
// to megabytes; the service emits no event larger than this (docs/contract.md, "Events and webhooks"),
// so the default admits every one. WithMaxBodyBytes changes it.
const DefaultMaxBodyBytes = 4 << 20

// Conditions a verification fails on. Every error of Verifier.Verify is a
// *VerificationError that matches exactly one of them with errors.Is.
var (
	// ErrMissingHeader means webhook-id, webhook-timestamp or webhook-signature is
	// absent or empty. VerificationError.Header says which.
	ErrMissingHeader = errors.New("missing header")
	// ErrInvalidID means webhook-id contains ".", the separator of the signed content.
	ErrInvalidID = errors.New("invalid webhook-id")
	// ErrInvalidTimestamp means webhook-timestamp is not integer Unix seconds.
	ErrInvalidTimestamp = errors.New("invalid webhook-timestamp")
	// ErrTimestampTooOld means webhook-timestamp is further in the past than the tolerance.
	ErrTimestampTooOld = errors.New("webhook-timestamp too old")
	// ErrTimestampTooNew means webhook-timestamp is further in the future than the tolerance.
	ErrTimestampTooNew = errors.New("webhook-timestamp too new")
	// ErrNoMatchingSignature means no v1 entry of webhook-signature matches the
	// body under any of the Verifier's secrets.
	ErrNoMatchingSignature = errors.New("no matching signature")
	// ErrBodyTooLarge means the body is larger than the Verifier's maximum.
	ErrBodyTooLarge = errors.New("body too large")
)

// VerificationError says why a delivery was refused. It never holds a secret
// or a signature. Match the reason with errors.Is against ErrMissingHeader,
// ErrInvalidID, ErrInvalidTimestamp, ErrTimestampTooOld, ErrTimestampTooNew,
// ErrNoMatchingSignature or ErrBodyTooLarge.
type VerificationError struct {
	// Err is the sentinel error naming the condition.
	Err error
	// Header is the header at fault ("webhook-id", ...), or "" for the body.
	Header string
	// Detail says what was found and what to do.
	Detail string
}

// Error returns "webhook: <condition>: <detail>".
func (e *VerificationError) Error() string {
	if e.Detail == "" {
		return "webhook: " + e.Err.Error()
	}
	return "webhook: " + e.Err.Error() + ": " + e.Detail
}

// Unwrap returns Err.
func (e *VerificationError) Unwrap() error { return e.Err }

// Verifier checks the signature and the timestamp of deliveries. It is safe
// for concurrent use.
type Verifier struct {
	keys         [][]byte
	tolerance    time.Duration
	now          func() time.Time
	maxBodyBytes int64
}

// VerifierOption configures a Verifier; a bad value is an error from
// NewVerifier. The zero VerifierOption does nothing.
type VerifierOption struct {
	apply func(*Verifier) error
}

// WithAdditionalSecrets makes the Verifier also accept signatures made with
// these secrets. During a rotation, give the new secret and the old one: a
// delivery passes when one of its signatures matches any of them. A zero
// secret is an error.
func WithAdditionalSecrets(secrets ...auth.WebhookSecret) VerifierOption {
	return VerifierOption{func(v *Verifier) error {
		for i, s := range secrets {
			if s.IsZero() {
				return fmt.Errorf("webhook: WithAdditionalSecrets: secret %d is the zero secret; parse it with auth.ParseWebhookSecret", i)
			}
			v.keys = append(v.keys, hmacKey(s))
		}
		return nil
	}}
}

// WithTolerance sets how far webhook-timestamp may be from the clock in either
// direction (default DefaultTolerance, 5 minutes). It must be positive.
func WithTolerance(d time.Duration) VerifierOption {
	return VerifierOption{func(v *Verifier) error {
		if d <= 0 {
			return fmt.Errorf("webhook: WithTolerance(%v): the tolerance must be positive", d)
		}
		v.tolerance = d
		return nil
	}}
}

// WithClock sets the clock the timestamp is checked against (default
// time.Now). Tests pin the time with it, or pass a fake clock such as a
// scribetest.FakeClock, whose Server.WebhookVerifier returns a Verifier
// already on it. A nil c is an error.
func WithClock(c auth.Clock) VerifierOption {
	return VerifierOption{func(v *Verifier) error {
		if c == nil {
			return errors.New("webhook: WithClock: the clock is nil; leave the option out for time.Now")
		}
		v.now = c.Now
		return nil
	}}
}

// WithMaxBodyBytes caps the size of the body Verify and the Handler accept
// (default DefaultMaxBodyBytes, 4 MiB). It must be positive. Lower it only if
// your plugin never receives transcript events: a smaller cap refuses long
// transcripts with 413, and the service retries them to no avail.
func WithMaxBodyBytes(n int64) VerifierOption {
	return VerifierOption{func(v *Verifier) error {
		if n <= 0 {
			return fmt.Errorf("webhook: WithMaxBodyBytes(%d): the maximum must be positive", n)
		}
		v.maxBodyBytes = n
		return nil
	}}
}

// NewVerifier returns a Verifier of deliveries signed with secret (and with
// the secrets of WithAdditionalSecrets), such as a scribe.Webhook's
// SigningSecret. It refuses the zero secret and a bad option.
func NewVerifier(secret auth.WebhookSecret, opts ...VerifierOption) (*Verifier, error) {
	if secret.IsZero() {
		return nil, errors.New("webhook: NewVerifier: the secret is the zero secret; pass the webhook's SigningSecret, or parse it with auth.ParseWebhookSecret")
	}
	v := &Verifier{
		keys:         [][]byte{hmacKey(secret)},
		tolerance:    DefaultTolerance,
		now:          time.Now,
		maxBodyBytes: DefaultMaxBodyBytes,
	}
	for _, o := range opts {
		if o.apply == nil {
			continue
		}
		if err := o.apply(v); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// MaxBodyBytes returns the largest body the Verifier accepts.
func (v *Verifier) MaxBodyBytes() int64 { return v.maxBodyBytes }

// Verify checks that body, with the webhook-id, webhook-timestamp and
// webhook-signature of header, was signed with one of the Verifier's secrets,
// and that the timestamp is within the tolerance of the clock. Pass the body
// exactly as received: re-encoded JSON does not verify. Signature entries of
// versions other than v1 are skipped; one matching v1 entry suffices. The
// comparison runs in constant time. A failure is a *VerificationError.
func (v *Verifier) Verify(header http.Header, body []byte) error {
	_, err := v.verify(header, body)
	return err
}

// verify does Verify and returns the webhook-id it checked.
func (v *Verifier) verify(header http.Header, body []byte) (string, error) {
	if int64(len(body)) > v.maxBodyBytes {
		return "", &VerificationError{Err: ErrBodyTooLarge,
			Detail: fmt.Sprintf("%d bytes, more than the maximum of %d (see WithMaxBodyBytes)", len(body), v.maxBodyBytes)}
	}
	id := firstValue(header, canonicalID)
	tsText := firstValue(header, canonicalTimestamp)
	sigValues := header[canonicalSignature]
	switch {
	case id == "":
		return "", missingHeader(HeaderID)
	case tsText == "":
		return "", missingHeader(HeaderTimestamp)
	case !slices.ContainsFunc(sigValues, func(s string) bool { return strings.TrimSpace(s) != "" }):
		return "", missingHeader(HeaderSignature)
	}
	if strings.Contains(id, ".") {
		return "", &VerificationError{Err: ErrInvalidID, Header: HeaderID,
			Detail: `it contains ".", which would make the signed content ambiguous`}
	}
	ts, err := parseTimestamp(tsText)
	if err != nil {
		return "", err
	}
	if err := v.checkTimestamp(ts); err != nil {
		return "", err
	}
	var want [macSize]byte
	var wantText [encodedMACSize]byte
	var got [encodedMACSize]byte
	for _, key := range v.keys {
		computeMAC(&want, key, id, ts, body)
		encodeMAC(&wantText, &want)
		for _, value := range sigValues {
			for sig := range v1Signatures(value) {
				if len(sig) != encodedMACSize {
					continue
				}
				copy(got[:], sig)
				if hmac.Equal(got[:], wantText[:]) {
					return id, nil
				}
			}
		}
	}
	return "", &VerificationError{Err: ErrNoMatchingSignature, Header: HeaderSignature,
		Detail: "no v1 signature matches the body; check the signing secret, and pass the body exactly as received"}
}

// The canonical forms of the header names (textproto.CanonicalMIMEHeaderKey),
// for map look-ups that do not allocate as http.Header.Get does.
const (
	canonicalID        = "Webhook-Id"
	canonicalTimestamp = "Webhook-Timestamp"
	canonicalSignature = "Webhook-Signature"
)

// firstValue returns the first value of the header with the canonical name
// key, like http.Header.Get.
func firstValue(h http.Header, key string) string {
	if vs := h[key]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

func missingHeader(name string) error {
	return &VerificationError{Err: ErrMissingHeader, Header: name,
		Detail: name + " is absent or empty; a delivery carries webhook-id, webhook-timestamp and webhook-signature"}
}

// parseTimestamp reads webhook-timestamp: decimal digits only, no sign.
func parseTimestamp(s string) (int64, error) {
	bad := func(why string) error {
		return &VerificationError{Err: ErrInvalidTimestamp, Header: HeaderTimestamp,
			Detail: why + "; it must be integer Unix seconds such as 1614265330"}
	}
	if len(s) > 19 {
		return 0, bad(fmt.Sprintf("%d characters long", len(s)))
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return 0, bad(fmt.Sprintf("%q is not a decimal integer", s))
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, bad(fmt.Sprintf("%q is out of range", s))
	}
	return n, nil
}

// checkTimestamp refuses a timestamp further than the tolerance from the clock.
func (v *Verifier) checkTimestamp(unix int64) error {
	now := v.now()
	// Beyond the year 9999 time.Unix could overflow; such a time is too new
	// for any clock anyway. Below it, time.Time.Sub saturates instead of overflowing.
	const year10000 = 253402300800
	age := now.Sub(time.Unix(min(unix, year10000), 0))
	switch {
	case age > v.tolerance:
		return &VerificationError{Err: ErrTimestampTooOld, Header: HeaderTimestamp,
			Detail: fmt.Sprintf("%d is behind the receiver's clock (%d) by more than the tolerance of %v; a replayed delivery, or a receiver clock that is wrong", unix, now.Unix(), v.tolerance)}
	case age < -v.tolerance: // not -age > tolerance: -age overflows when Sub saturated
		return &VerificationError{Err: ErrTimestampTooNew, Header: HeaderTimestamp,
			Detail: fmt.Sprintf("%d is ahead of the receiver's clock (%d) by more than the tolerance of %v; check the receiver's clock", unix, now.Unix(), v.tolerance)}
	}
	return nil
}

// v1Signatures yields the signature part of each "v1,<signature>" entry of one
// webhook-signature header value. Entries are separated by spaces (any run of
// white space is accepted); entries of other versions and entries without a
// comma are skipped.
func v1Signatures(value string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for entry := range strings.FieldsSeq(value) {
			version, sig, ok := strings.Cut(entry, ",")
			if !ok || version != signatureVersion {
				continue
			}
			if !yield(sig) {
				return
			}
		}
	}
}
