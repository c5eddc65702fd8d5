package scribe_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/scribetest"
)

// exampleScene is what the examples below run against: the reference server
// in process, with a developer (Ada) who owns one plugin that may read its
// users' profiles and transcripts, a secret key of that plugin, and Grace,
// who installed it and owns two transcripts.
type exampleScene struct {
	srv    *scribetest.Server
	dev    scribetest.Developer
	plugin scribe.Plugin
	key    scribetest.SecretKey
	grace  scribe.User
	inst   scribe.PluginInstallation
}

func newExampleScene() *exampleScene {
	s, err := scribetest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	sc := &exampleScene{srv: s}
	if sc.dev, err = s.CreateDeveloper(scribe.User{FirstName: "Ada", LastName: "Byron"}); err != nil {
		log.Fatal(err)
	}
	sc.plugin, err = s.CreatePlugin(sc.dev.User.ID, scribe.Plugin{
		Name:        "CRM sync",
		Permissions: scribe.Permissions{User: scribe.PermissionRead, Transcript: scribe.PermissionRead},
	})
	if err != nil {
		log.Fatal(err)
	}
	if sc.key, err = s.CreateSecretKey(sc.plugin.ID, "backend"); err != nil {
		log.Fatal(err)
	}
	if sc.grace, err = s.CreateUser(scribe.User{FirstName: "Grace", LastName: "Hopper", EmailAddress: "grace@example.com"}); err != nil {
		log.Fatal(err)
	}
	if sc.inst, err = s.Install(sc.plugin.ID, sc.grace.ID); err != nil {
		log.Fatal(err)
	}
	for _, h := range []string{"Weekly sync", "Call with ACME", "Dictated memo"} {
		if _, err := s.CreateTranscript(sc.grace.ID, scribetest.TranscriptParams{Headline: h, Type: "meeting", Text: "Hello."}); err != nil {
			log.Fatal(err)
		}
	}
	return sc
}

// A plugin's backend acting for one installation needs the plugin's secret
// key and the installation's uuid; the client mints, caches and refreshes the
// installation JWT itself.
func ExampleNewInstallationClient() {
	sc := newExampleScene()
	defer sc.srv.Close()

	// In production: key, err := auth.ParseSecretKey(os.Getenv("SCRIBE_SECRET_KEY"))
	key := sc.key.Key
	client, err := scribe.NewInstallationClient(sc.srv.URL(), key, sc.inst.UUID)
	if err != nil {
		log.Fatal(err)
	}
	me, err := client.GetMe(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(me.FirstName, me.LastName, me.EmailAddress)
	// Output:
	// Grace Hopper grace@example.com
}

// A backend acting for many users keeps one InstallationClients per plugin
// and asks it for a client per request: every client shares one connection
// pool and one bounded token cache.
func ExampleNewInstallationClients() {
	sc := newExampleScene()
	defer sc.srv.Close()
	alan, _ := sc.srv.CreateUser(scribe.User{FirstName: "Alan", LastName: "Turing"})
	alanInst, _ := sc.srv.Install(sc.plugin.ID, alan.ID)

	cache, err := auth.NewCache(sc.key.Key)
	if err != nil {
		log.Fatal(err)
	}
	clients, err := scribe.NewInstallationClients(sc.srv.URL(), cache)
	if err != nil {
		log.Fatal(err)
	}
	// The uuid usually comes from a webhook event's PluginInstallationUUID.
	for _, uuid := range []string{sc.inst.UUID, alanInst.UUID, sc.inst.UUID} {
		c, err := clients.For(uuid)
		if err != nil {
			log.Fatal(err)
		}
		me, err := c.GetMe(context.Background())
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(me.FirstName)
	}
	fmt.Println("tokens cached:", cache.Len())
	// Output:
	// Grace
	// Alan
	// Grace
	// tokens cached: 2
}

// A developer adds a secret key to a plugin, stores it, and the plugin's
// backend builds installation clients from it. The key prints redacted.
func ExampleClient_CreatePluginSecretKey() {
	sc := newExampleScene()
	defer sc.srv.Close()
	dev, err := sc.srv.DeveloperClient(sc.dev.Key)
	if err != nil {
		log.Fatal(err)
	}

	sk, err := dev.CreatePluginSecretKey(context.Background(), sc.plugin.ID,
		&scribe.CreatePluginSecretKeyParams{Description: "production, rotated 2026-11"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sk.ID, sk.PluginID == sc.plugin.ID, sk.Description)
	fmt.Println(sk.Value) // safe to log
	fmt.Println(strings.HasPrefix(sk.Value.Reveal(), "ask_live_"))

	// The Value is already an auth.SecretKey, checked when it was decoded:
	// it signs installation JWTs as it is.
	client, err := scribe.NewInstallationClient(sc.srv.URL(), sk.Value, sc.inst.UUID)
	if err != nil {
		log.Fatal(err)
	}
	me, err := client.GetMe(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("signed with the new key, acting for", me.FirstName)
	// Output:
	// 2 true production, rotated 2026-11
	// ask_live_[REDACTED]
	// true
	// signed with the new key, acting for Grace
}

// Installations are listed with the uninstalled ones, whose DeletedOn is set.
func ExampleClient_ListPluginInstallations() {
	sc := newExampleScene()
	defer sc.srv.Close()
	alan, _ := sc.srv.CreateUser(scribe.User{FirstName: "Alan", LastName: "Turing"})
	alanInst, _ := sc.srv.Install(sc.plugin.ID, alan.ID)
	if _, err := sc.srv.Uninstall(alanInst.UUID); err != nil {
		log.Fatal(err)
	}

	dev, err := sc.srv.DeveloperClient(sc.dev.Key)
	if err != nil {
		log.Fatal(err)
	}
	for inst, err := range dev.ListPluginInstallations(context.Background(), sc.plugin.ID, nil).All() {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(inst.ID, inst.FirstName, "installed:", inst.DeletedOn == nil)
	}
	// Output:
	// 1 Grace installed: true
	// 2 Alan installed: false
}

// GetTranscript fetches one transcript of the installation's user; any other
// id, another user's transcript included, is ErrNotFound.
func ExampleClient_GetTranscript() {
	sc := newExampleScene()
	defer sc.srv.Close()
	alan, _ := sc.srv.CreateUser(scribe.User{FirstName: "Alan"})
	private, _ := sc.srv.CreateTranscript(alan.ID, scribetest.TranscriptParams{Headline: "Private"})

	client, err := sc.srv.InstallationClient(sc.key.Key, sc.inst.UUID)
	if err != nil {
		log.Fatal(err)
	}
	t, err := client.GetTranscript(context.Background(), 2)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d %q %s %q by %s\n", t.ID, t.Headline, t.Type, t.Text, t.User.FirstName)

	_, err = client.GetTranscript(context.Background(), private.ID)
	fmt.Println(errors.Is(err, scribe.ErrNotFound))
	// Output:
	// 2 "Call with ACME" meeting "Hello." by Grace
	// true
}

// Next pages by hand, one request per call, and returns io.EOF after the
// last page; keep NextAfterID to resume a walk later.
func ExamplePager_Next() {
	sc := newExampleScene()
	defer sc.srv.Close()
	client, err := sc.srv.InstallationClient(sc.key.Key, sc.inst.UUID)
	if err != nil {
		log.Fatal(err)
	}

	params := &scribe.ListTranscriptsParams{ListParams: scribe.ListParams{Limit: 2}}
	pager := client.ListTranscripts(context.Background(), params)
	for {
		page, err := pager.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		for _, t := range page.Data {
			fmt.Print(t.ID, " ", t.Headline, "; ")
		}
		fmt.Println("more:", page.HasMore, "resume after:", page.NextAfterID)
	}
	fmt.Println(sc.srv.RequestCount(), "requests")
	// Output:
	// 1 Weekly sync; 2 Call with ACME; more: true resume after: 2
	// 3 Dictated memo; more: false resume after: 3
	// 2 requests
}

// With a key of your own, a POST repeated after a crash or a lost answer
// gets the first answer back instead of creating a second plugin; the same
// key with another body is refused.
func ExampleWithIdempotencyKey() {
	sc := newExampleScene()
	defer sc.srv.Close()
	dev, err := sc.srv.DeveloperClient(sc.dev.Key)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	params := &scribe.CreatePluginParams{Name: "Notes export"}

	first, err := dev.CreatePlugin(ctx, params, scribe.WithIdempotencyKey("create-notes-export-v1"))
	if err != nil {
		log.Fatal(err)
	}
	again, err := dev.CreatePlugin(ctx, params, scribe.WithIdempotencyKey("create-notes-export-v1"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(first.ID, again.ID, len(sc.srv.Plugins()), "plugins")

	_, err = dev.CreatePlugin(ctx, &scribe.CreatePluginParams{Name: "Other"}, scribe.WithIdempotencyKey("create-notes-export-v1"))
	var apiErr *scribe.Error
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code)
	}
	// Output:
	// 2 2 2 plugins
	// 409 idempotency_key_reused
}
