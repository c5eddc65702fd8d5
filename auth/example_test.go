package auth_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/scribehq/scribe-go/auth"
)

func ExampleMint() {
	key, err := auth.ParseSecretKey("ask_live_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8")
	if err != nil {
		log.Fatal(err)
	}
	token, err := auth.Mint(key, "0b6d3c5e-1f2a-4b3c-8d9e-0a1b2c3d4e5f", time.Unix(1700000000, 0))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(token)
	// Output:
	// eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJleHAiOjE3MDAwMDM2MDAsImlhdCI6MTcwMDAwMDAwMCwicGx1Z2luX2luc3RhbGxhdGlvbl91dWlkIjoiMGI2ZDNjNWUtMWYyYS00YjNjLThkOWUtMGExYjJjM2Q0ZTVmIn0.Pg0NYbMQbe0ajV7URcC2jkWI6yivy056dYIQo5FnIjk
}

func ExampleSecretKey() {
	key, err := auth.ParseSecretKey("ask_live_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(key)
	fmt.Printf("%#v\n", struct{ Key auth.SecretKey }{key})

	_, err = auth.ParseSecretKey("dk_live_example")
	fmt.Println(err)
	// Output:
	// ask_live_[REDACTED]
	// struct { Key auth.SecretKey }{Key:ask_live_[REDACTED]}
	// auth: invalid key: secret key must begin with "ask_live_"; is this a developer key or a webhook secret?
}

func ExampleVerifier_Verify() {
	oldKey, _ := auth.ParseSecretKey("ask_live_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8")
	newKey, _ := auth.NewSecretKey()
	token := "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJleHAiOjE3MDAwMDM2MDAsImlhdCI6MTcwMDAwMDAwMCwicGx1Z2luX2luc3RhbGxhdGlvbl91dWlkIjoiMGI2ZDNjNWUtMWYyYS00YjNjLThkOWUtMGExYjJjM2Q0ZTVmIn0.Pg0NYbMQbe0ajV7URcC2jkWI6yivy056dYIQo5FnIjk"

	at := func(unix int64) *auth.Verifier {
		return auth.NewVerifier(auth.WithClock(func() time.Time { return time.Unix(unix, 0) }))
	}
	// During a key rotation, a token signed by either key is accepted.
	claims, err := at(1700000100).Verify(token, newKey, oldKey)
	fmt.Println(claims.InstallationUUID, claims.ExpiresAt, err)

	_, err = at(1700003661).Verify(token, newKey, oldKey)
	fmt.Println(errors.Is(err, auth.ErrTokenExpired), err)
	// Output:
	// 0b6d3c5e-1f2a-4b3c-8d9e-0a1b2c3d4e5f 2023-11-14 23:13:20 +0000 UTC <nil>
	// true auth: token expired: exp is in the past by more than the leeway; mint a new token
}

func ExampleVerifier_VerifyLookup() {
	key, _ := auth.NewSecretKey()
	// A server's store: the current keys of each installation's plugin.
	keysByInstallation := map[string][]auth.SecretKey{
		"0b6d3c5e-1f2a-4b3c-8d9e-0a1b2c3d4e5f": {key},
	}
	lookup := func(uuid string) ([]auth.SecretKey, error) {
		return keysByInstallation[uuid], nil // none for an unknown uuid
	}
	v := auth.NewVerifier()

	token, _ := auth.Mint(key, "0b6d3c5e-1f2a-4b3c-8d9e-0a1b2c3d4e5f", time.Now())
	claims, err := v.VerifyLookup(token, lookup)
	fmt.Println(claims.InstallationUUID, err)

	stranger, _ := auth.Mint(key, "ffffffff-1f2a-4b3c-8d9e-0a1b2c3d4e5f", time.Now())
	_, err = v.VerifyLookup(stranger, lookup)
	fmt.Println(errors.Is(err, auth.ErrSignature))
	// Output:
	// 0b6d3c5e-1f2a-4b3c-8d9e-0a1b2c3d4e5f <nil>
	// true
}

func ExampleTokenSource() {
	key, _ := auth.NewSecretKey() // in a real backend: auth.ParseSecretKey(os.Getenv("SCRIBE_SECRET_KEY"))
	ts, err := auth.NewTokenSource(key, "0b6d3c5e-1f2a-4b3c-8d9e-0a1b2c3d4e5f")
	if err != nil {
		log.Fatal(err)
	}
	first, _ := ts.Token(context.Background())
	again, _ := ts.Token(context.Background()) // cached: no new mint
	fmt.Println(first == again, ts)
	// Output:
	// true auth.TokenSource(0b6d3c5e-1f2a-4b3c-8d9e-0a1b2c3d4e5f)
}

func ExampleCache() {
	key, _ := auth.NewSecretKey()
	cache := auth.NewCache(key, auth.WithMaxEntries(50_000))

	// Per request, for the installation it concerns:
	src, err := cache.Source("0b6d3c5e-1f2a-4b3c-8d9e-0a1b2c3d4e5f")
	if err != nil {
		log.Fatal(err) // a malformed uuid
	}
	// With package scribe: client.WithOptions(scribe.WithTokenSource(src)).
	fmt.Println(src, cache.Len())
	// Output:
	// auth.TokenSource(0b6d3c5e-1f2a-4b3c-8d9e-0a1b2c3d4e5f) 1
}
