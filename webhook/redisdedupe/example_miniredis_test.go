package redisdedupe_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/webhook"
	"github.com/scribehq/scribe-go/webhook/redisdedupe"
)

// A receiver's own test can run its handler on miniredis, a Redis server in
// the test's process whose Lua interpreter runs the store's scripts: no
// redis-server is needed. Here the service delivers one event twice (its
// retry after a lost answer), and the event runs once. miniredis's clock
// stands still unless moved: FastForward(d) ends a lease or the TTL.
func ExampleNew_miniredis() {
	m, err := miniredis.Run() // in a test: miniredis.RunT(t), closed when the test ends
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr()})
	defer rdb.Close()

	secret, err := auth.ParseWebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") // the test's own signing secret
	if err != nil {
		log.Fatal(err)
	}
	v, err := webhook.NewVerifier(secret)
	if err != nil {
		log.Fatal(err)
	}
	store, err := redisdedupe.New(rdb)
	if err != nil {
		log.Fatal(err)
	}
	runs := 0
	h, err := webhook.NewHandler(v, func(context.Context, *webhook.Event) error {
		runs++
		return nil
	}, webhook.WithDedupeStore(store))
	if err != nil {
		log.Fatal(err)
	}

	body := []byte(`{"id":"evt_1","type":"transcript.created","created_on":"2026-11-21T09:30:00Z",` +
		`"plugin_id":1,"plugin_installation_uuid":"u-1","data":{"id":42}}`)
	for range 2 {
		req := httptest.NewRequest(http.MethodPost, "/hooks/scribe", bytes.NewReader(body))
		maps.Copy(req.Header, webhook.SignHeaders(secret, "evt_1", time.Now(), body))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		fmt.Println(w.Code, strings.TrimSpace(w.Body.String()))
	}
	fmt.Println("runs:", runs)
	// Output:
	// 200 ok
	// 200 duplicate: event already processed
	// runs: 1
}
