package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/scribehq/scribe-go/auth"
)

// The headers of a delivery (Standard Webhooks). http.Header canonicalizes
// them ("Webhook-Id"); Get and Set match them in any case.
const (
	// HeaderID carries the event id, the same on every retry of one event.
	HeaderID = "webhook-id"
	// HeaderTimestamp carries the Unix time of the attempt in integer seconds.
	HeaderTimestamp = "webhook-timestamp"
	// HeaderSignature carries one or more space-separated "v1,<base64>" signatures.
	HeaderSignature = "webhook-signature"
)

// signatureVersion prefixes every HMAC-SHA256 signature entry.
const signatureVersion = "v1"

// macSize is the length of an HMAC-SHA256; encodedMACSize that of its base64.
const (
	macSize        = sha256.Size
	encodedMACSize = 44 // base64.StdEncoding.EncodedLen(macSize)
)

// Sign returns the webhook-signature entry for one delivery:
// "v1," + base64(HMAC-SHA256(key, id + "." + unix seconds + "." + body)).
// Only the whole seconds of timestamp count. The id must not contain "." (the
// separator of the signed content), or Verifier.Verify rejects the delivery.
// To sign with several secrets during a rotation, join the entries of each
// with a space. The zero secret signs with an empty key, which no Verifier
// accepts (NewVerifier refuses the zero secret).
func Sign(secret auth.WebhookSecret, id string, timestamp time.Time, body []byte) string {
	var mac [macSize]byte
	computeMAC(&mac, hmacKey(secret), id, timestamp.Unix(), body)
	out := make([]byte, 0, len(signatureVersion)+1+encodedMACSize)
	out = append(out, signatureVersion...)
	out = append(out, ',')
	out = base64.StdEncoding.AppendEncode(out, mac[:])
	return string(out)
}

// SignHeaders returns the three headers of a delivery of body signed with
// secret: webhook-id, webhook-timestamp and webhook-signature. Copy them into
// a request (maps.Copy(req.Header, h)) to send or to test a receiver.
func SignHeaders(secret auth.WebhookSecret, id string, timestamp time.Time, body []byte) http.Header {
	h := make(http.Header, 3)
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, strconv.FormatInt(timestamp.Unix(), 10))
	h.Set(HeaderSignature, Sign(secret, id, timestamp, body))
	return h
}

// computeMAC writes HMAC-SHA256(key, id "." unix "." body) to mac.
func computeMAC(mac *[macSize]byte, key []byte, id string, unix int64, body []byte) {
	h := hmac.New(sha256.New, key)
	// One write for the prefix; a stack buffer holds the usual short ids.
	var buf [96]byte
	prefix := append(buf[:0], id...)
	prefix = append(prefix, '.')
	prefix = strconv.AppendInt(prefix, unix, 10)
	prefix = append(prefix, '.')
	h.Write(prefix)
	h.Write(body)
	h.Sum(mac[:0])
}

// encodeMAC writes the standard base64 of mac to dst.
func encodeMAC(dst *[encodedMACSize]byte, mac *[macSize]byte) {
	base64.StdEncoding.Encode(dst[:], mac[:])
}

// hmacKey returns the HMAC key of s: the decoded base64 after the prefix, or
// nil for the zero secret. auth.ParseWebhookSecret, the only way to a
// non-zero one, checked that it decodes.
func hmacKey(s auth.WebhookSecret) []byte {
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(s.Reveal(), auth.WebhookSecretPrefix))
	return key
}
