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

func ExampleWebhookSecret() {
	secret, err := auth.ParseWebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(secret)

	_, err = auth.ParseWebhookSecret("whsec_[REDACTED]")
	fmt.Println(errors.Is(err, auth.ErrInvalidKey))
	// Output:
	// whsec_[REDACTED]
	// true
}

func ExampleTokenSource() {
	// In a real backend: auth.ParseSecretKey(os.Getenv("SCRIBE_SECRET_KEY")).
	key, _ := auth.ParseSecretKey("ask_live_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8")
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
	key, _ := auth.ParseSecretKey("ask_live_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8")
	cache, err := auth.NewCache(key, auth.WithMaxEntries(50_000))
	if err != nil {
		log.Fatal(err) // a zero key or a bad option
	}

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
