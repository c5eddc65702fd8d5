package webhook_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"maps"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/webhook"
)

// Verify a delivery received by your own router. The secret and the
// delivery are the published Standard Webhooks test vector; the clock is
// pinned to its time so that the example runs deterministically.
func ExampleVerifier_Verify() {
	secret, err := auth.ParseWebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		log.Fatal(err)
	}
	v, err := webhook.NewVerifier(secret, webhook.WithClock(scribetest.NewFakeClock(time.Unix(1614265330, 0))))
	if err != nil {
		log.Fatal(err)
	}
	header := http.Header{}
	header.Set("webhook-id", "msg_p5jXN8AQM9LWM0D4loKWxJek")
	header.Set("webhook-timestamp", "1614265330")
	header.Set("webhook-signature", "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")

	fmt.Println(v.Verify(header, []byte(`{"test": 2432232314}`)))

	err = v.Verify(header, []byte(`{"test": 1}`))
	fmt.Println(errors.Is(err, webhook.ErrNoMatchingSignature))
	// Output:
	// <nil>
	// true
}

// Receive deliveries with NewHandler: it verifies, decodes and dedupes, and
// calls your function once per event.
func ExampleNewHandler() {
	// In production: the webhook's SigningSecret, from the service or a secret store.
	secret, err := auth.ParseWebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		log.Fatal(err)
	}
	v, err := webhook.NewVerifier(secret)
	if err != nil {
		log.Fatal(err)
	}
	h, err := webhook.NewHandler(v, func(ctx context.Context, e *webhook.Event) error {
		switch e.Type {
		case webhook.EventTranscriptCreated, webhook.EventTranscriptUpdated:
			t, err := e.Transcript()
			if err != nil {
				return err
			}
			fmt.Printf("%s: transcript %d %q\n", e.Type, t.ID, t.Headline)
		default:
			fmt.Printf("%s: ignored\n", e.Type) // acknowledge types you do not handle
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	// What the service sends (package scribetest does this for you).
	deliver := func(id string, body string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader([]byte(body)))
		req.Header.Set("Content-Type", "application/json")
		maps.Copy(req.Header, webhook.SignHeaders(secret, id, time.Now(), []byte(body)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
		fmt.Println(resp.StatusCode)
	}
	deliver("evt_1", `{"id":"evt_1","type":"transcript.created","created_on":"2026-11-21T09:30:00Z","plugin_id":100,
		"plugin_installation_uuid":"0b6d2f7e","data":{"id":42,"headline":"Standup"}}`)
	deliver("evt_1", `{"id":"evt_1","type":"transcript.created","created_on":"2026-11-21T09:30:00Z","plugin_id":100,
		"plugin_installation_uuid":"0b6d2f7e","data":{"id":42,"headline":"Standup"}}`) // a retry: not handled twice
	deliver("evt_2", `{"id":"evt_2","type":"plugin.renamed","created_on":"2026-11-21T09:31:00Z","plugin_id":100,
		"plugin_installation_uuid":"0b6d2f7e","data":{}}`)
	// Output:
	// transcript.created: transcript 42 "Standup"
	// 200
	// 200
	// plugin.renamed: ignored
	// 200
}

// Sign a delivery, for example to test your receiver.
func ExampleSign() {
	secret, _ := auth.ParseWebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	fmt.Println(webhook.Sign(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`)))
	// Output: v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=
}

// Decode the data of an event by its type; unknown types are kept, not dropped.
func ExampleEvent_Installation() {
	e, err := webhook.ParseEvent([]byte(`{"id":"evt_3","type":"installation.deleted","created_on":"2026-11-21T09:30:00Z",
		"plugin_id":100,"plugin_installation_uuid":"0b6d2f7e","data":{"id":1,"uuid":"0b6d2f7e","user_id":8,
		"deleted_on":"2026-11-21T09:30:00Z"}}`))
	if err != nil {
		log.Fatal(err)
	}
	inst, err := e.Installation()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(e.Type, e.Type.Known(), inst.UserID, inst.DeletedOn != nil)

	_, err = e.Transcript()
	fmt.Println(errors.Is(err, webhook.ErrWrongEventType))
	// Output:
	// installation.deleted true 8 true
	// true
}

// Return Permanent(err) when no retry can fix the failure: the handler
// answers 422, which the service does not retry. Any other error is
// answered 500 and retried on the schedule. With WithErrorDetails, both
// answers carry the error, redacted, for the service's attempt log.
func ExamplePermanent() {
	secret, _ := auth.ParseWebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	v, _ := webhook.NewVerifier(secret)
	known := map[string]bool{"0b6d2f7e": true}
	h, err := webhook.NewHandler(v, func(ctx context.Context, e *webhook.Event) error {
		if !known[e.PluginInstallationUUID] {
			return webhook.Permanent(fmt.Errorf("installation %s is not one of ours", e.PluginInstallationUUID))
		}
		return errors.New("the index is down") // temporary: retried
	}, webhook.WithLogger(nil), webhook.WithErrorDetails())
	if err != nil {
		log.Fatal(err)
	}

	for _, uuid := range []string{"ffffffff", "0b6d2f7e"} {
		body := []byte(`{"id":"evt_` + uuid + `","type":"installation.created","created_on":"2026-11-21T09:30:00Z","plugin_id":100,"plugin_installation_uuid":"` + uuid + `","data":{}}`)
		req := httptest.NewRequest(http.MethodPost, "/hook", bytes.NewReader(body))
		maps.Copy(req.Header, webhook.SignHeaders(secret, "evt_"+uuid, time.Now(), body))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		fmt.Print(rec.Code, " ", rec.Body.String())
	}
	// Output:
	// 422 the event handler failed permanently; do not retry: permanent failure: installation ffffffff is not one of ours
	// 500 the event handler failed; retry later: the index is down
}
