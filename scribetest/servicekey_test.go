package scribetest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/scribetest"
)

// TestServiceStyleSecretKey, end to end: a secret key of the form the service
// may issue ("ask_live_" and 24 alphanumerics, not the reference server's
// 32-byte base64) loads from fixtures, signs tokens through the SDK's token
// source, and the server verifies them with the key's UTF-8 bytes.
func TestServiceStyleSecretKey(t *testing.T) {
	t.Parallel()
	const key = "ask_live_4eC39HqLyjWDarjtT1zdp7dc"
	doc := strings.Replace(contractExample, "ask_live_c2NyaWJlLXRlc3Qtc2VjcmV0LWtleS0zMi1ieXRlcyE", key, 1)
	s := scribetest.NewTestServer(t)
	fx, err := s.LoadFixtures(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if got := fx.SecretKeys[0].Key.Reveal(); got != key {
		t.Fatalf("fixture key = %q, want the service-style key", got)
	}
	sk, err := auth.ParseSecretKey(key)
	if err != nil {
		t.Fatal(err)
	}
	ic, err := s.InstallationClient(sk, "0b6d3f9e-2c4a-4e8b-9a1d-5f7c3e2b1a90")
	if err != nil {
		t.Fatal(err)
	}
	if me, err := ic.GetMe(context.Background()); err != nil || me.ID != 8 {
		t.Fatalf("GetMe with a service-style key = %+v, %v", me, err)
	}

	// Keys the server mints itself keep their 32-byte form.
	dc, err := s.DeveloperClient(fx.Developers[0].Key)
	if err != nil {
		t.Fatal(err)
	}
	nk, err := dc.CreatePluginSecretKey(context.Background(), 100, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := nk.Value.Reveal(); len(v) != len(auth.SecretKeyPrefix)+43 || !strings.HasPrefix(v, auth.SecretKeyPrefix) {
		t.Errorf("a minted key has %d characters, want the prefix and 43 characters of base64 (32 bytes)", len(v))
	}
}
