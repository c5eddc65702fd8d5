package main

import (
	"fmt"
	"io"
	"os"

	"github.com/scribehq/scribe-go/scribetest"
)

// loadFixtures loads the fixture file, or the demo data set when it is "".
func loadFixtures(s *scribetest.Server, file string) (scribetest.Fixtures, error) {
	var src io.Reader = scribetest.DemoFixtures()
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			return scribetest.Fixtures{}, err
		}
		defer f.Close()
		src = f
	}
	return s.LoadFixtures(src)
}

// printDemo prints the demo set's credentials. They are public demo secrets,
// printed on purpose: this is a local test server.
func printDemo(w io.Writer, url string, fx scribetest.Fixtures) {
	dev := fx.Developers[0]
	plugin := fx.Plugins[0]
	key := fx.SecretKeys[0]
	inst := fx.Installations[0]
	fmt.Fprintf(w, `
Loaded the built-in demo data set. The credentials below are PUBLIC DEMO
SECRETS, printed on purpose because this is a local test server: never use
them, or this server, for anything real.

  developer key      %s   (%s %s, user %d)
  plugin             %d "%s"   (user: %s, transcript: %s)
  secret key         %s   (of plugin %d)
  installation uuid  %s   (%s %s, user %d)

Try:
  curl -H 'Authorization: Bearer %s' %s/plugins
  TOKEN=$(SCRIBE_SECRET_KEY=%s go run ./cmd/scribe-jwt mint -uuid %s)
  curl -H "Authorization: Bearer $TOKEN" %s/transcripts
`,
		dev.Key.Reveal(), dev.User.FirstName, dev.User.LastName, dev.User.ID,
		plugin.ID, plugin.Name, plugin.Permissions.User, plugin.Permissions.Transcript,
		key.Key.Reveal(), key.PluginID,
		inst.UUID, inst.FirstName, inst.LastName, inst.UserID,
		dev.Key.Reveal(), url, key.Key.Reveal(), inst.UUID, url)
}

// printSummary says what a fixture file created, without its secrets: the
// file's author has them, or left them out to have them generated.
func printSummary(w io.Writer, file string, fx scribetest.Fixtures) {
	fmt.Fprintf(w, "Loaded %s: %d users (%d developers), %d plugins, %d secret keys, %d installations, %d transcripts, %d webhooks.\n",
		file, len(fx.Users), len(fx.Developers), len(fx.Plugins), len(fx.SecretKeys), len(fx.Installations), len(fx.Transcripts), len(fx.Webhooks))
	for _, in := range fx.Installations {
		fmt.Fprintf(w, "  installation %d  uuid %s  (plugin %d, user %d)\n", in.ID, in.UUID, in.PluginID, in.UserID)
	}
	fmt.Fprintln(w, "Secrets are not printed; give them in the file to know them.")
}
