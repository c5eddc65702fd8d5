package webhook_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/webhook"
)

// A receiver mounted in your own router verifies each delivery, then decodes
// it with ParseEvent. Here the reference server delivers the
// installation.created event of a new installation.
func ExampleParseEvent() {
	s, err := scribetest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	dev, _ := s.CreateDeveloper(scribe.User{FirstName: "Ada"})
	plugin, _ := s.CreatePlugin(dev.User.ID, scribe.Plugin{Name: "CRM sync"})
	grace, _ := s.CreateUser(scribe.User{FirstName: "Grace"})

	events := make(chan *webhook.Event, 1)
	receiver := httptest.NewUnstartedServer(nil)
	defer receiver.Close()
	hook, err := s.CreateWebhook(plugin.ID, "http://"+receiver.Listener.Addr().String()+"/hook")
	if err != nil {
		log.Fatal(err)
	}
	// SigningSecret is already an auth.WebhookSecret: no need to parse it.
	v, err := webhook.NewVerifier(hook.SigningSecret)
	if err != nil {
		log.Fatal(err)
	}
	receiver.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
		if err != nil {
			http.Error(w, "cannot read the body", http.StatusBadRequest)
			return
		}
		// Verify first: ParseEvent trusts whatever it is given.
		if err := v.Verify(r.Header, body); err != nil {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		e, err := webhook.ParseEvent(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		select {
		case events <- e:
		default: // a redelivery of an event already taken
		}
	})
	receiver.Start()

	inst, err := s.Install(plugin.ID, grace.ID)
	if err != nil {
		log.Fatal(err)
	}
	var e *webhook.Event
	select {
	case e = <-events:
	case <-time.After(10 * time.Second):
		log.Fatal("no delivery within 10s")
	}
	in, err := e.Installation()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(e.Type, strings.HasPrefix(e.ID, "evt_"), e.PluginID == plugin.ID)
	fmt.Println(e.PluginInstallationUUID == inst.UUID, in.UserID == grace.ID)

	// A body that is not an event is refused, whatever signed it.
	_, err = webhook.ParseEvent([]byte(`{"hello": "world"}`))
	fmt.Println(errors.Is(err, webhook.ErrMalformedEvent))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.WaitForDeliveries(ctx); err != nil {
		log.Fatal(err)
	}
	// Output:
	// installation.created true true
	// true true
	// true
}
