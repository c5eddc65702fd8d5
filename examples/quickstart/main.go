// Command quickstart walks through the scribe client end to end, with no
// setup and no network beyond loopback: it starts the reference server
// (package scribetest) in this process with its demo data, then does what a
// plugin developer's backend does.
//
//	go run ./examples/quickstart
//
// With the developer key it lists the developer's plugins, creates a new
// secret key for one of them and lists its installations. Then, for an
// installation, it builds an installation client from the new key (the
// client mints the installation JWT itself), asks who the user is, walks
// the user's transcripts and shows what an error looks like. Secrets are
// printed redacted; the JWT is never printed.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// run is the whole program. opts are added to every client it builds (the
// test gives an HTTP client that checks the traffic).
func run(ctx context.Context, w io.Writer, opts ...scribe.Option) error {
	// The reference server, in this process, on a free loopback port, under
	// /v1 like a real deployment. A real backend has a base URL and keys
	// from its configuration instead.
	srv, err := scribetest.NewServer(scribetest.WithBasePath("/v1"))
	if err != nil {
		return err
	}
	defer srv.Close()
	demo, err := srv.LoadFixtures(scribetest.DemoFixtures())
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Reference server with demo data at %s (in this process)\n", srv.URL())
	sk, inst, err := asDeveloper(ctx, w, srv.URL(), demo.Developers[0], opts)
	if err != nil {
		return err
	}
	if err := asInstallation(ctx, w, srv.URL(), sk, inst, opts); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nDone: %d requests, all on loopback.\n", srv.RequestCount())
	return nil
}

// asDeveloper lists the developer's plugins, creates a secret key for one
// that may read transcripts and finds an active installation of it.
func asDeveloper(ctx context.Context, w io.Writer, url string, dev scribetest.Developer, opts []scribe.Option) (*scribe.PluginSecretKey, *scribe.PluginInstallation, error) {
	fmt.Fprintf(w, "\nAs developer %s %s, with developer key %v:\n", dev.User.FirstName, dev.User.LastName, dev.Key)
	fmt.Fprintln(w, "  GET /plugins")
	devClient, err := scribe.NewClient(url, append([]scribe.Option{scribe.WithDeveloperKey(dev.Key)}, opts...)...)
	if err != nil {
		return nil, nil, err
	}
	var plugin *scribe.Plugin
	for p, err := range devClient.ListPlugins(ctx, nil).All() {
		if err != nil {
			return nil, nil, err
		}
		fmt.Fprintf(w, "    #%d %q: user %s, transcript %s\n", p.ID, p.Name, p.Permissions.User, p.Permissions.Transcript)
		if plugin == nil && p.Permissions.Transcript == scribe.PermissionRead {
			plugin = &p
		}
	}
	if plugin == nil {
		return nil, nil, errors.New("no plugin may read transcripts")
	}

	// A new secret key, as for a rotation. Its value prints redacted;
	// Reveal gives it, to store in a secret manager (never a log).
	sk, err := devClient.CreatePluginSecretKey(ctx, plugin.ID, &scribe.CreatePluginSecretKeyParams{Description: "quickstart"})
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(w, "  POST /plugins/%d/secret_keys\n    created key #%d: %v\n", plugin.ID, sk.ID, sk.Value)

	// Installations, uninstalled ones included; range fetches page after
	// page (2 per page here) as the loop asks for them.
	fmt.Fprintf(w, "  GET /plugins/%d/installations, 2 per page\n", plugin.ID)
	var inst *scribe.PluginInstallation
	params := &scribe.ListPluginInstallationsParams{ListParams: scribe.ListParams{Limit: 2}}
	for in, err := range devClient.ListPluginInstallations(ctx, plugin.ID, params).All() {
		if err != nil {
			return nil, nil, err
		}
		state := "installed " + in.CreatedOn.Format(time.DateOnly)
		if in.DeletedOn != nil {
			state = "uninstalled " + in.DeletedOn.Format(time.DateOnly)
		} else if inst == nil {
			inst = &in
		}
		fmt.Fprintf(w, "    #%d %s %s, %s (%s)\n", in.ID, in.FirstName, in.LastName, in.UUID, state)
	}
	if inst == nil {
		return nil, nil, errors.New("no active installation")
	}
	return sk, inst, nil
}

// asInstallation acts for one installation: who the user is, their
// transcripts, and what an error looks like.
func asInstallation(ctx context.Context, w io.Writer, url string, sk *scribe.PluginSecretKey, inst *scribe.PluginInstallation, opts []scribe.Option) error {
	// An installation client mints the installation JWT from the secret
	// key, reuses it for about 55 minutes and replaces it before it
	// expires. sk.Value is already an auth.SecretKey, decoded and checked
	// with the response.
	ic, err := scribe.NewInstallationClient(url, sk.Value, inst.UUID, opts...)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nAs installation #%d, with a JWT minted from key #%d (never printed):\n", inst.ID, sk.ID)
	fmt.Fprintln(w, "  GET /users/me")
	me, err := ic.GetMe(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "    user #%d %s %s <%s>\n", me.ID, me.FirstName, me.LastName, me.EmailAddress)
	fmt.Fprintln(w, "  GET /transcripts, 2 per page")
	n := 0
	for t, err := range ic.ListTranscripts(ctx, &scribe.ListTranscriptsParams{ListParams: scribe.ListParams{Limit: 2}}).All() {
		if err != nil {
			return err
		}
		n++
		fmt.Fprintf(w, "    #%d %-10s %-16q %3d s of audio\n", t.ID, t.Type, t.Headline, t.Audio.LengthInSeconds)
	}
	fmt.Fprintf(w, "    %d transcripts in all\n", n)

	// Errors are *scribe.Error values: errors.Is for the kind, errors.As
	// for the code and the request id. Another user's transcript is 404,
	// exactly as if it did not exist.
	const othersTranscript = 4
	_, err = ic.GetTranscript(ctx, othersTranscript)
	var apiErr *scribe.Error
	if !errors.Is(err, scribe.ErrNotFound) || !errors.As(err, &apiErr) {
		return fmt.Errorf("transcript %d: want not found, got %v", othersTranscript, err)
	}
	fmt.Fprintf(w, "  GET /transcripts/%d\n    %d %s (another user's transcript is out of scope), request id %s\n",
		othersTranscript, apiErr.StatusCode, apiErr.Code, apiErr.RequestID)
	return nil
}
