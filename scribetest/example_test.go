package scribetest_test

import (
	"context"
	"fmt"
	"log"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest"
)

// A developer creates a plugin through the SDK against the reference server,
// and the test reads the server's state back.
func Example() {
	s, err := scribetest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	dev, err := s.CreateDeveloper(scribe.User{FirstName: "Ada", LastName: "Byron"})
	if err != nil {
		log.Fatal(err)
	}
	client, err := s.DeveloperClient(dev.Key)
	if err != nil {
		log.Fatal(err)
	}
	p, err := client.CreatePlugin(context.Background(), &scribe.CreatePluginParams{Name: "CRM sync"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.ID, p.Name, p.Published, p.Permissions.Transcript)
	fmt.Println(len(s.Plugins()), "plugin on the server;", s.RequestCount(), "request")
	// Output:
	// 1 CRM sync false none
	// 1 plugin on the server; 1 request
}

// An installation reads its user's transcripts; another user's stay hidden.
func Example_installation() {
	s, err := scribetest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	dev, _ := s.CreateDeveloper(scribe.User{FirstName: "Ada"})
	grace, _ := s.CreateUser(scribe.User{FirstName: "Grace", LastName: "Hopper"})
	alan, _ := s.CreateUser(scribe.User{FirstName: "Alan", LastName: "Turing"})
	plugin, _ := s.CreatePlugin(dev.User.ID, scribe.Plugin{
		Name:        "Notes export",
		Permissions: scribe.Permissions{User: scribe.PermissionRead, Transcript: scribe.PermissionRead},
	})
	key, _ := s.CreateSecretKey(plugin.ID, "backend")
	inst, _ := s.Install(plugin.ID, grace.ID)
	_, _ = s.CreateTranscript(grace.ID, scribetest.TranscriptParams{Headline: "Weekly sync", Type: "meeting"})
	_, _ = s.CreateTranscript(alan.ID, scribetest.TranscriptParams{Headline: "Private", Type: "dictation"})

	client, err := s.InstallationClient(key.Key, inst.UUID)
	if err != nil {
		log.Fatal(err)
	}
	for t, err := range client.ListTranscripts(context.Background(), nil).All() {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(t.ID, t.Headline, t.User.FirstName)
	}
	// Output:
	// 1 Weekly sync Grace
}
