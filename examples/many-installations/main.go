// Command many-installations shows a backend acting for many users at once:
// one scribe.InstallationClients per plugin hands out a client per
// installation, all sharing one connection pool and one bounded cache of
// installation tokens. It needs no setup and no network beyond loopback: the
// reference server runs in this process with the demo data plus a few more
// users.
//
//	go run ./examples/many-installations
//
// With the developer key it lists the plugin's installations (range over
// the pager), then walks the transcripts of every active installation
// concurrently, a few at a time, and prints a line per installation.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/scribetest"
)

// extraUsers is how many users the example adds to the demo data, each with
// the demo plugin installed and a few transcripts.
const extraUsers = 12

// workers bounds how many installations are served at the same time.
const workers = 4

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "many-installations:", err)
		os.Exit(1)
	}
}

// summary is what one installation's walk found.
type summary struct {
	inst        scribe.PluginInstallation
	transcripts int
	seconds     int
	err         error
}

// run is the whole program. opts are added to every client it builds.
func run(ctx context.Context, w io.Writer, opts ...scribe.Option) error {
	srv, demo, err := startServer()
	if err != nil {
		return err
	}
	defer srv.Close()
	pluginID, key := demo.SecretKeys[0].PluginID, demo.SecretKeys[0].Key
	fmt.Fprintf(w, "Reference server at %s (in this process)\n", srv.URL())

	// The developer key lists the installations; uninstalled ones come too.
	dev, err := scribe.NewClient(srv.URL(), append([]scribe.Option{scribe.WithDeveloperKey(demo.Developers[0].Key)}, opts...)...)
	if err != nil {
		return err
	}
	var active []scribe.PluginInstallation
	uninstalled := 0
	params := &scribe.ListPluginInstallationsParams{ListParams: scribe.ListParams{Limit: 5}}
	for inst, err := range dev.ListPluginInstallations(ctx, pluginID, params).All() {
		if err != nil {
			return err
		}
		if inst.DeletedOn != nil {
			uninstalled++
			continue
		}
		active = append(active, inst)
	}
	fmt.Fprintf(w, "Plugin #%d: %d active installations, %d uninstalled\n", pluginID, len(active), uninstalled)

	// One InstallationClients per plugin, for the backend's lifetime. The
	// cache mints each installation's JWT from the plugin's secret key on
	// first use and refreshes it ahead of expiry.
	cache, err := auth.NewCache(key)
	if err != nil {
		return err
	}
	clients, err := scribe.NewInstallationClients(srv.URL(), cache, opts...)
	if err != nil {
		return err
	}

	fmt.Fprintf(w, "Walking their transcripts, %d installations at a time:\n", workers)
	results := make([]summary, len(active))
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i, inst := range active {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = walk(ctx, clients, inst)
		})
	}
	wg.Wait()

	total := 0
	for _, r := range results {
		if r.err != nil {
			return fmt.Errorf("installation #%d: %w", r.inst.ID, r.err)
		}
		total += r.transcripts
		count := fmt.Sprintf("%d %s,", r.transcripts, plural(r.transcripts, "transcript"))
		fmt.Fprintf(w, "  #%-3d %-18s %-15s %4d s of audio\n",
			r.inst.ID, r.inst.FirstName+" "+r.inst.LastName, count, r.seconds)
	}
	fmt.Fprintf(w, "Done: %d installations, %d transcripts, %d tokens in the cache, %d requests.\n",
		len(active), total, cache.Len(), srv.RequestCount())
	return nil
}

// walk reads every transcript of one installation with the client
// InstallationClients hands out for it.
func walk(ctx context.Context, clients *scribe.InstallationClients, inst scribe.PluginInstallation) summary {
	s := summary{inst: inst}
	c, err := clients.For(inst.UUID)
	if err != nil {
		s.err = err
		return s
	}
	for t, err := range c.ListTranscripts(ctx, &scribe.ListTranscriptsParams{ListParams: scribe.ListParams{Limit: 3}}).All() {
		if err != nil {
			s.err = err
			return s
		}
		s.transcripts++
		s.seconds += t.Audio.LengthInSeconds
	}
	return s
}

// startServer starts the reference server with the demo data, then adds
// extraUsers users who install the demo plugin, through its seeding calls.
func startServer() (*scribetest.Server, scribetest.Fixtures, error) {
	srv, err := scribetest.NewServer(scribetest.WithBasePath("/v1"))
	if err != nil {
		return nil, scribetest.Fixtures{}, err
	}
	demo, err := srv.LoadFixtures(scribetest.DemoFixtures())
	if err == nil {
		err = seed(srv, demo.SecretKeys[0].PluginID)
	}
	if err != nil {
		srv.Close()
		return nil, scribetest.Fixtures{}, err
	}
	return srv, demo, nil
}

// names of the users the example adds.
var names = [extraUsers][2]string{
	{"Barbara", "Liskov"}, {"Edsger", "Dijkstra"}, {"Frances", "Allen"}, {"Donald", "Knuth"},
	{"Radia", "Perlman"}, {"Ken", "Thompson"}, {"Margaret", "Hamilton"}, {"John", "Backus"},
	{"Adele", "Goldberg"}, {"Niklaus", "Wirth"}, {"Shafi", "Goldwasser"}, {"Tony", "Hoare"},
}

func seed(srv *scribetest.Server, pluginID int64) error {
	for i, name := range names {
		u, err := srv.CreateUser(scribe.User{FirstName: name[0], LastName: name[1],
			EmailAddress: fmt.Sprintf("user%d@example.com", i)})
		if err != nil {
			return err
		}
		if _, err := srv.Install(pluginID, u.ID); err != nil {
			return err
		}
		for j := range i%5 + 1 {
			if _, err := srv.CreateTranscript(u.ID, scribetest.TranscriptParams{
				Headline: fmt.Sprintf("Call %d", j+1), Type: "phone_call",
				Audio: scribe.TranscriptAudio{LengthInSeconds: 60 * (j + 1)},
			}); err != nil {
				return err
			}
		}
	}
	return nil
}

// plural returns word, with an s unless n is 1.
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
