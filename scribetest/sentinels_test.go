package scribetest_test

import (
	"errors"
	"testing"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/webhook"
)

// TestSeedingErrorsWrapTheSentinels pins what ErrNotFound and ErrConflict
// promise: every seeding call refused for a missing resource wraps
// ErrNotFound, and every one refused for a clash wraps ErrConflict, so a
// test can tell them apart with errors.Is.
func TestSeedingErrorsWrapTheSentinels(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s, dev, user, plugin, inst, tr := e.s, e.devA, e.user, e.plugin, e.inst, e.transcripts[0]
	const nobody = 999_999
	for _, tt := range []struct {
		name string
		err  func() error
		want error
	}{
		{"CreateUser with an id taken", func() error { _, err := s.CreateUser(scribe.User{ID: user.ID}); return err }, scribetest.ErrConflict},
		{"CreateDeveloper with an id taken", func() error { _, err := s.CreateDeveloper(scribe.User{ID: user.ID}); return err }, scribetest.ErrConflict},
		{"CreatePlugin of no developer", func() error { _, err := s.CreatePlugin(nobody, scribe.Plugin{Name: "X"}); return err }, scribetest.ErrNotFound},
		{"CreatePlugin of a user who is no developer", func() error { _, err := s.CreatePlugin(user.ID, scribe.Plugin{Name: "X"}); return err }, scribetest.ErrNotFound},
		{"CreatePlugin with an id taken", func() error {
			_, err := s.CreatePlugin(dev.User.ID, scribe.Plugin{ID: plugin.ID, Name: "X"})
			return err
		}, scribetest.ErrConflict},
		{"DisablePlugin of no plugin", func() error { _, err := s.DisablePlugin(nobody); return err }, scribetest.ErrNotFound},
		{"EnablePlugin of no plugin", func() error { _, err := s.EnablePlugin(nobody); return err }, scribetest.ErrNotFound},
		{"CreateSecretKey of no plugin", func() error { _, err := s.CreateSecretKey(nobody, ""); return err }, scribetest.ErrNotFound},
		{"DeleteSecretKey of no key", func() error { return s.DeleteSecretKey(nobody) }, scribetest.ErrNotFound},
		{"Install of no plugin", func() error { _, err := s.Install(nobody, user.ID); return err }, scribetest.ErrNotFound},
		{"Install for no user", func() error { _, err := s.Install(plugin.ID, nobody); return err }, scribetest.ErrNotFound},
		{"Install a second time", func() error { _, err := s.Install(plugin.ID, user.ID); return err }, scribetest.ErrConflict},
		{"Uninstall of no installation", func() error { _, err := s.Uninstall("00000000-0000-4000-8000-000000000000"); return err }, scribetest.ErrNotFound},
		{"CreateTranscript of no user", func() error { _, err := s.CreateTranscript(nobody, scribetest.TranscriptParams{}); return err }, scribetest.ErrNotFound},
		{"CreateTranscript with an id taken", func() error {
			_, err := s.CreateTranscript(user.ID, scribetest.TranscriptParams{ID: tr.ID})
			return err
		}, scribetest.ErrConflict},
		{"UpdateTranscript of no transcript", func() error { _, err := s.UpdateTranscript(nobody, func(*scribe.Transcript) {}); return err }, scribetest.ErrNotFound},
		{"DeleteTranscript of no transcript", func() error { return s.DeleteTranscript(nobody) }, scribetest.ErrNotFound},
		{"CreateWebhook of no plugin", func() error { _, err := s.CreateWebhook(nobody, "https://example.com/hook"); return err }, scribetest.ErrNotFound},
		{"Trigger of no plugin", func() error { _, err := s.Trigger(nobody, webhook.EventInstallationCreated); return err }, scribetest.ErrNotFound},
		{"Trigger without a webhook", func() error { _, err := s.Trigger(plugin.ID, webhook.EventInstallationCreated); return err }, scribetest.ErrConflict},
		// Last: it uninstalls the installation the cases above rely on.
		{"Uninstall twice", func() error {
			if _, err := s.Uninstall(inst.UUID); err != nil {
				return err
			}
			_, err := s.Uninstall(inst.UUID)
			return err
		}, scribetest.ErrConflict},
	} {
		err := tt.err()
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: %v; want an error wrapping %v", tt.name, err, tt.want)
		}
		other := scribetest.ErrNotFound
		if tt.want == scribetest.ErrNotFound {
			other = scribetest.ErrConflict
		}
		if errors.Is(err, other) {
			t.Errorf("%s: %v also wraps %v", tt.name, err, other)
		}
	}
}
