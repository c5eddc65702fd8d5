package redisdedupe_test

import (
	"context"
	"log"
	"net/http"
	"os"

	"github.com/redis/go-redis/v9"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/webhook"
	"github.com/scribehq/scribe-go/webhook/redisdedupe"
)

// Every replica of a receiver builds its handler on the same Redis, so a
// delivery that the service retries onto another replica runs once.
func ExampleNew() {
	secret, err := auth.ParseWebhookSecret(os.Getenv("SCRIBE_WEBHOOK_SECRET"))
	if err != nil {
		log.Fatal(err)
	}
	v, err := webhook.NewVerifier(secret)
	if err != nil {
		log.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	// On Redis Cluster: redis.NewClusterClient(&redis.ClusterOptions{Addrs: ...}).
	store, err := redisdedupe.New(rdb) // lease webhook.DefaultLease, TTL webhook.DefaultDedupeTTL
	if err != nil {
		log.Fatal(err)
	}
	h, err := webhook.NewHandler(v, func(ctx context.Context, e *webhook.Event) error {
		log.Printf("%s %s", e.Type, e.ID)
		return nil
	}, webhook.WithDedupeStore(store))
	if err != nil {
		log.Fatal(err)
	}
	http.Handle("POST /hooks/scribe", h)
	log.Fatal(http.ListenAndServe(":8080", nil))
}
