// Command quickstart shows the scribe client end to end with no setup and no
// network: it starts a small stand-in for the Plugin Integration Service on
// a loopback port, then, as a plugin developer would, lists its plugins,
// creates one with a secret key, and shows what an error looks like.
//
//	go run ./examples/quickstart
//
// The stand-in will give way to package scribetest, the full reference server.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/scribehq/scribe-go"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx := context.Background()
	srv := startService(developerKey)
	defer srv.Close()
	fmt.Println("service (stand-in) at", srv.URL+"/v1")

	// One client per base URL and credential; reuse it.
	client, err := scribe.NewClient(srv.URL+"/v1",
		scribe.WithDeveloperKey(developerKey),
		scribe.WithUserAgentSuffix("quickstart/1.0"),
	)
	if err != nil {
		return err
	}

	// List: ranging over All fetches page after page (2 per page here) as
	// the loop asks for them.
	fmt.Println("\nGET /plugins, 2 per page:")
	params := &scribe.ListPluginsParams{ListParams: scribe.ListParams{Limit: 2}}
	for p, err := range client.ListPlugins(ctx, params).All() {
		if err != nil {
			return err
		}
		fmt.Printf("  plugin %d %q published=%v permissions=%s/%s\n",
			p.ID, p.Name, p.Published, p.Permissions.User, p.Permissions.Transcript)
	}

	// Create: the client adds an Idempotency-Key, so a retried POST never
	// creates a second plugin.
	fmt.Println("\nPOST /plugins:")
	plugin, err := client.CreatePlugin(ctx, &scribe.CreatePluginParams{
		Name:        "Meeting notes to CRM",
		Permissions: scribe.Permissions{Transcript: scribe.PermissionRead},
	})
	if err != nil {
		return err
	}
	fmt.Printf("  created plugin %d %q (published=%v)\n", plugin.ID, plugin.Name, plugin.Published)

	fmt.Println("\nPOST /plugins/{id}/secret_keys:")
	key, err := client.CreatePluginSecretKey(ctx, plugin.ID, &scribe.CreatePluginSecretKeyParams{Description: "quickstart"})
	if err != nil {
		return err
	}
	// A secret prints redacted; key.Value.Reveal() gives the material.
	fmt.Printf("  secret key %d: %v (%d characters, printed redacted)\n", key.ID, key.Value, len(key.Value.Reveal()))

	// Errors are *scribe.Error values, matched with errors.Is / errors.As.
	fmt.Println("\nGET /plugins/999:")
	_, err = client.GetPlugin(ctx, 999)
	var apiErr *scribe.Error
	switch {
	case errors.Is(err, scribe.ErrNotFound) && errors.As(err, &apiErr):
		fmt.Printf("  not found (code %s, request id %s)\n  %v\n", apiErr.Code, apiErr.RequestID, err)
	default:
		log.Printf("unexpected: %v", err)
	}
	return nil
}
