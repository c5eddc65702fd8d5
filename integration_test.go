package scribe_test

// End-to-end tests: the client against the reference server (package
// scribetest) mounted under /v1, with every request and response of the
// client checked against api/openapi.yaml by internal/apitest. The unit tests
// beside each file pin the client's behaviour against scripted answers; these
// prove that the client, package auth and the reference server agree with
// each other and with the contract.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/apitest"
	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/webhook"
)

// integBasePath is the prefix the reference server serves under, so that the
// client's joining of operation paths to a base URL with a path is exercised.
const integBasePath = "/v1"

// integWorld is a seeded reference server: a developer with a plugin that
// may read users and transcripts, a secret key, and Grace, who installed it
// and owns some transcripts. Alan owns transcripts too, outside Grace's
// installation's scope.
type integWorld struct {
	s     *scribetest.Server
	hc    *http.Client // validates every message against the contract
	dev   scribetest.Developer
	other scribetest.Developer // a second developer, with a plugin of his own

	plugin      scribe.Plugin
	otherPlugin scribe.Plugin
	key         scribetest.SecretKey

	grace, alan     scribe.User
	inst            scribe.PluginInstallation // Grace's installation of plugin
	graceTr, alanTr []scribe.Transcript
}

// newIntegWorld starts a reference server under /v1 and seeds it through its
// Go calls; the clients it hands out validate their traffic.
func newIntegWorld(t *testing.T, opts ...scribetest.Option) *integWorld {
	t.Helper()
	w := &integWorld{
		s:  scribetest.NewTestServer(t, append([]scribetest.Option{scribetest.WithBasePath(integBasePath)}, opts...)...),
		hc: &http.Client{Transport: apitest.NewValidator(t).WithBasePath(integBasePath).Transport(nil)},
	}
	s := w.s
	w.dev = integMust(s.CreateDeveloper(scribe.User{FirstName: "Ada", LastName: "Byron", EmailAddress: "ada@example.com"}))(t)
	w.other = integMust(s.CreateDeveloper(scribe.User{FirstName: "Charles", LastName: "Babbage", EmailAddress: "charles@example.com"}))(t)
	crm := int64(42)
	w.plugin = integMust(s.CreatePlugin(w.dev.User.ID, scribe.Plugin{
		Name: "CRM sync", Description: "Meeting notes to the CRM", Published: true,
		Permissions:      scribe.Permissions{User: scribe.PermissionRead, Transcript: scribe.PermissionRead},
		CRMIntegrationID: &crm, LogoURI: "https://crm.example.com/logo.png",
	}))(t)
	w.otherPlugin = integMust(s.CreatePlugin(w.other.User.ID, scribe.Plugin{Name: "Engine"}))(t)
	w.key = integMust(s.CreateSecretKey(w.plugin.ID, "ci"))(t)
	w.grace = integMust(s.CreateUser(scribe.User{FirstName: "Grace", LastName: "Hopper", EmailAddress: "grace@example.com"}))(t)
	w.alan = integMust(s.CreateUser(scribe.User{FirstName: "Alan", LastName: "Turing", EmailAddress: "alan@example.com"}))(t)
	w.inst = integMust(s.Install(w.plugin.ID, w.grace.ID))(t)
	types := []string{"meeting", "phone_call", "dictation", "voicemail"} // unknown types pass through
	for i := range 7 {
		w.graceTr = append(w.graceTr, integMust(s.CreateTranscript(w.grace.ID, scribetest.TranscriptParams{
			Headline: fmt.Sprintf("Call %d", i+1), Text: strings.Repeat("word ", i+1), Type: types[i%len(types)],
			Metadata: map[string]any{"n": i, "tags": []string{"crm"}, "big": int64(1) << 60},
			Job:      scribe.TranscriptJob{Lines: i + 3},
			Audio:    scribe.TranscriptAudio{LengthInSeconds: 30 * (i + 1)},
		}))(t))
		if i%3 == 0 { // interleave Alan's, so Grace's ids are not contiguous
			w.alanTr = append(w.alanTr, integMust(s.CreateTranscript(w.alan.ID, scribetest.TranscriptParams{Headline: "Alan's", Type: "dictation"}))(t))
		}
	}
	return w
}

// devClient is a client with the developer's key, for the /plugins operations.
func (w *integWorld) devClient(t *testing.T, dev scribetest.Developer) *scribe.Client {
	t.Helper()
	return integMust(w.s.DeveloperClient(dev.Key, scribe.WithHTTPClient(w.hc)))(t)
}

// instClient is a client acting for installation uuid, minting with key on
// the server's clock, for /transcripts and /users/me.
func (w *integWorld) instClient(t *testing.T, key auth.SecretKey, uuid string) *scribe.Client {
	t.Helper()
	return integMust(w.s.InstallationClient(key, uuid, scribe.WithHTTPClient(w.hc)))(t)
}

// integMust returns a function that fails t if err is not nil and returns v
// otherwise: integMust(s.CreateUser(p))(t). Use it on the test's goroutine.
func integMust[T any](v T, err error) func(testing.TB) T {
	return func(t testing.TB) T {
		t.Helper()
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return v
	}
}

// integCollect walks every item of p and fails t on an error.
func integCollect[T any](t *testing.T, p *scribe.Pager[T]) []T {
	t.Helper()
	var items []T
	for item, err := range p.All() {
		if err != nil {
			t.Fatalf("walk: %v", err)
		}
		items = append(items, item)
	}
	return items
}

// integFirstErr walks p and returns the error it yields, if any.
func integFirstErr[T any](p *scribe.Pager[T]) error {
	for _, err := range p.All() {
		if err != nil {
			return err
		}
	}
	return nil
}

// integLog returns the requests the server answered for path (below the
// base path) since the log held since entries.
func integLog(s *scribetest.Server, since int, path string) []scribetest.Request {
	var out []scribetest.Request
	for _, r := range s.Requests()[since:] {
		if r.Path == integBasePath+path {
			out = append(out, r)
		}
	}
	return out
}

// integQuery is one request's paging parameters, as the server saw them.
type integQuery struct{ Limit, AfterID string }

func integQueries(t *testing.T, reqs []scribetest.Request) []integQuery {
	t.Helper()
	var out []integQuery
	for _, r := range reqs {
		q, err := url.ParseQuery(r.Query)
		if err != nil {
			t.Fatalf("query %q: %v", r.Query, err)
		}
		out = append(out, integQuery{Limit: q.Get("limit"), AfterID: q.Get("after_id")})
	}
	return out
}

func integID(id int64) string { return fmt.Sprint(id) }

// Protects: ranging over ListTranscripts walks every page of the
// installation's user's transcripts in id order, each exactly as the server
// holds it, and nobody else's; the cursor is the last id of each page.
func TestIntegrationListTranscriptsWalksEveryPage(t *testing.T) {
	t.Parallel()
	w := newIntegWorld(t)
	c := w.instClient(t, w.key.Key, w.inst.UUID)
	ctx := t.Context()

	since := w.s.RequestCount()
	got := integCollect(t, c.ListTranscripts(ctx, &scribe.ListTranscriptsParams{ListParams: scribe.ListParams{Limit: 3}}))
	if diff := cmp.Diff(w.graceTr, got); diff != "" {
		t.Errorf("transcripts (-seeded +listed):\n%s", diff)
	}
	wantQ := []integQuery{{"3", ""}, {"3", integID(w.graceTr[2].ID)}, {"3", integID(w.graceTr[5].ID)}}
	if diff := cmp.Diff(wantQ, integQueries(t, integLog(w.s, since, "/transcripts"))); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// Protects: Pages reports each page with the server's total_count (the whole
// collection, not the rest), has_more exactly while items remain, and the
// cursor that fetches the next page.
func TestIntegrationListTranscriptsPageByPage(t *testing.T) {
	t.Parallel()
	w := newIntegWorld(t)
	c := w.instClient(t, w.key.Key, w.inst.UUID)

	type pageSummary struct {
		IDs         []int64
		HasMore     bool
		TotalCount  int
		NextAfterID int64
	}
	var got []pageSummary
	for page, err := range c.ListTranscripts(t.Context(), &scribe.ListTranscriptsParams{ListParams: scribe.ListParams{Limit: 3}}).Pages() {
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(page.Response.RequestID, "req_") {
			t.Errorf("page Response.RequestID = %q, want the server's req_ id", page.Response.RequestID)
		}
		s := pageSummary{HasMore: page.HasMore, TotalCount: page.TotalCount, NextAfterID: page.NextAfterID}
		for _, tr := range page.Data {
			s.IDs = append(s.IDs, tr.ID)
		}
		got = append(got, s)
	}
	ids := func(ts []scribe.Transcript) []int64 {
		var out []int64
		for _, t := range ts {
			out = append(out, t.ID)
		}
		return out
	}
	tr := w.graceTr
	want := []pageSummary{
		{ids(tr[0:3]), true, 7, tr[2].ID},
		{ids(tr[3:6]), true, 7, tr[5].ID},
		{ids(tr[6:7]), false, 7, tr[6].ID},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
}

// Protects: MaxItems stops the walk at the cap, asking the last page for no
// more than the remaining count and fetching nothing beyond it; AfterID
// resumes a walk after a given id.
func TestIntegrationListTranscriptsMaxItemsAndAfterID(t *testing.T) {
	t.Parallel()
	w := newIntegWorld(t)
	c := w.instClient(t, w.key.Key, w.inst.UUID)
	ctx := t.Context()

	since := w.s.RequestCount()
	got := integCollect(t, c.ListTranscripts(ctx, &scribe.ListTranscriptsParams{ListParams: scribe.ListParams{Limit: 3, MaxItems: 5}}))
	if diff := cmp.Diff(w.graceTr[:5], got); diff != "" {
		t.Errorf("MaxItems 5 (-want +got):\n%s", diff)
	}
	wantQ := []integQuery{{"3", ""}, {"2", integID(w.graceTr[2].ID)}}
	if diff := cmp.Diff(wantQ, integQueries(t, integLog(w.s, since, "/transcripts"))); diff != "" {
		t.Errorf("MaxItems requests (-want +got):\n%s", diff)
	}

	got = integCollect(t, c.ListTranscripts(ctx, &scribe.ListTranscriptsParams{ListParams: scribe.ListParams{AfterID: w.graceTr[4].ID}}))
	if diff := cmp.Diff(w.graceTr[5:], got); diff != "" {
		t.Errorf("AfterID (-want +got):\n%s", diff)
	}
}

// Protects: GetTranscript returns every field of a transcript as seeded
// (metadata, job, audio, owner, timestamps), and GetMe the installation's
// user.
func TestIntegrationGetTranscriptAndMe(t *testing.T) {
	t.Parallel()
	w := newIntegWorld(t)
	c := w.instClient(t, w.key.Key, w.inst.UUID)
	ctx := t.Context()

	for _, want := range w.graceTr {
		got, err := c.GetTranscript(ctx, want.ID)
		if err != nil {
			t.Fatalf("GetTranscript(%d): %v", want.ID, err)
		}
		if diff := cmp.Diff(want, *got); diff != "" {
			t.Errorf("GetTranscript(%d) (-seeded +got):\n%s", want.ID, diff)
		}
	}
	me, err := c.GetMe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(w.grace, *me); diff != "" {
		t.Errorf("GetMe (-seeded +got):\n%s", diff)
	}
}

// Protects: a developer sees exactly their own plugins; CreatePlugin makes an
// unpublished, enabled plugin with the given fields (permissions defaulting
// to none) that then shows in ListPlugins, GetPlugin and the server's state,
// and stays invisible to another developer.
func TestIntegrationPlugins(t *testing.T) {
	t.Parallel()
	w := newIntegWorld(t)
	c := w.devClient(t, w.dev)
	ctx := t.Context()

	if diff := cmp.Diff([]scribe.Plugin{w.plugin}, integCollect(t, c.ListPlugins(ctx, nil))); diff != "" {
		t.Errorf("ListPlugins before (-want +got):\n%s", diff)
	}
	got, err := c.GetPlugin(ctx, w.plugin.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(w.plugin, *got); diff != "" {
		t.Errorf("GetPlugin (-seeded +got):\n%s", diff)
	}

	created, err := c.CreatePlugin(ctx, &scribe.CreatePluginParams{
		Name:        strings.Repeat("é", scribe.MaxPluginNameLength), // characters, not bytes
		Description: "Action items from calls",
		Permissions: scribe.Permissions{Transcript: scribe.PermissionRead},
		LogoURI:     "https://items.example.com/logo.svg",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := scribe.Plugin{
		ID: created.ID, Name: strings.Repeat("é", scribe.MaxPluginNameLength), Description: "Action items from calls",
		Permissions: scribe.Permissions{User: scribe.PermissionNone, Transcript: scribe.PermissionRead},
		LogoURI:     "https://items.example.com/logo.svg", UserID: w.dev.User.ID,
		CreatedOn: created.CreatedOn, UpdatedOn: created.UpdatedOn,
	}
	if diff := cmp.Diff(want, *created); diff != "" {
		t.Errorf("CreatePlugin (-want +got):\n%s", diff)
	}
	if created.ID <= w.otherPlugin.ID || created.CreatedOn.IsZero() {
		t.Errorf("CreatePlugin: id %d (want > %d, ids increase), created_on %v", created.ID, w.otherPlugin.ID, created.CreatedOn)
	}

	listed := integCollect(t, c.ListPlugins(ctx, &scribe.ListPluginsParams{ListParams: scribe.ListParams{Limit: 1}}))
	if diff := cmp.Diff([]scribe.Plugin{w.plugin, *created}, listed); diff != "" {
		t.Errorf("ListPlugins after (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]scribe.Plugin{w.plugin, w.otherPlugin, *created}, w.s.Plugins()); diff != "" {
		t.Errorf("server's plugins (-want +got):\n%s", diff)
	}
	if got, err := c.GetPlugin(ctx, created.ID); err != nil || !cmp.Equal(*created, *got) {
		t.Errorf("GetPlugin(created) = %+v, %v; want %+v", got, err, *created)
	}

	other := w.devClient(t, w.other)
	if diff := cmp.Diff([]scribe.Plugin{w.otherPlugin}, integCollect(t, other.ListPlugins(ctx, nil))); diff != "" {
		t.Errorf("other developer's ListPlugins (-want +got):\n%s", diff)
	}
	if _, err := other.GetPlugin(ctx, created.ID); !errors.Is(err, scribe.ErrNotFound) {
		t.Errorf("other developer's GetPlugin = %v, want ErrNotFound", err)
	}
}

// Protects: key rotation. A key from CreatePluginSecretKey is usable at once
// by an installation client (the client mints with it, the server accepts
// it) while the old key still works; once the old key is revoked, only the
// new one does. The key prints redacted and is stored by the server as given.
func TestIntegrationSecretKeyRotation(t *testing.T) {
	t.Parallel()
	w := newIntegWorld(t)
	dev := w.devClient(t, w.dev)
	ctx := t.Context()

	nk, err := dev.CreatePluginSecretKey(ctx, w.plugin.ID, &scribe.CreatePluginSecretKeyParams{Description: "rotated 2026-11"})
	if err != nil {
		t.Fatal(err)
	}
	if nk.PluginID != w.plugin.ID || nk.Description != "rotated 2026-11" || !strings.HasPrefix(nk.Value.Reveal(), auth.SecretKeyPrefix) {
		t.Errorf("new key: plugin %d, description %q, value prefix ok %v", nk.PluginID, nk.Description, strings.HasPrefix(nk.Value.Reveal(), auth.SecretKeyPrefix))
	}
	if printed := fmt.Sprintf("%v %+v %#v", nk.Value, *nk, nk); strings.Contains(printed, nk.Value.Reveal()) {
		t.Errorf("printing the new key shows its material")
	}
	if diff := cmp.Diff([]scribe.PluginSecretKey{w.key.PluginSecretKey, *nk}, w.s.SecretKeys(w.plugin.ID)); diff != "" {
		t.Errorf("server's keys (-want +got):\n%s", diff)
	}

	rotated, err := scribe.NewInstallationClient(w.s.URL(), nk.Value, w.inst.UUID, scribe.WithHTTPClient(w.hc))
	if err != nil {
		t.Fatal(err)
	}
	old := w.instClient(t, w.key.Key, w.inst.UUID)
	for name, c := range map[string]*scribe.Client{"new key": rotated, "old key": old} {
		if me, err := c.GetMe(ctx); err != nil || me.ID != w.grace.ID {
			t.Errorf("%s during rotation: GetMe = %+v, %v; want Grace", name, me, err)
		}
	}

	if err := w.s.DeleteSecretKey(w.key.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := rotated.GetMe(ctx); err != nil {
		t.Errorf("new key after revoking the old: %v", err)
	}
	_, err = w.instClient(t, w.key.Key, w.inst.UUID).GetMe(ctx)
	var apiErr *scribe.Error
	if !errors.Is(err, scribe.ErrUnauthorized) || !errors.As(err, &apiErr) || apiErr.Code != scribe.CodeInvalidToken {
		t.Errorf("revoked key: GetMe = %v, want 401 %s", err, scribe.CodeInvalidToken)
	}
}

// Protects: ListPluginInstallations lists uninstalled installations too, with
// DeletedOn set, in id order across pages, as the server holds them.
func TestIntegrationListPluginInstallations(t *testing.T) {
	t.Parallel()
	w := newIntegWorld(t)
	c := w.devClient(t, w.dev)
	ctx := t.Context()

	edsger := integMust(w.s.CreateUser(scribe.User{FirstName: "Edsger", LastName: "Dijkstra", EmailAddress: "edsger@example.com"}))(t)
	gone := integMust(w.s.Install(w.plugin.ID, edsger.ID))(t)
	gone = integMust(w.s.Uninstall(gone.UUID))(t)
	alans := integMust(w.s.Install(w.plugin.ID, w.alan.ID))(t)
	integMust(w.s.Install(w.otherPlugin.ID, w.alan.ID))(t) // another plugin's: not listed

	got := integCollect(t, c.ListPluginInstallations(ctx, w.plugin.ID, &scribe.ListPluginInstallationsParams{ListParams: scribe.ListParams{Limit: 2}}))
	want := []scribe.PluginInstallation{w.inst, gone, alans}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("installations (-seeded +listed):\n%s", diff)
	}
	if diff := cmp.Diff(w.s.Installations(w.plugin.ID), got); diff != "" {
		t.Errorf("installations (-server +listed):\n%s", diff)
	}
	if got[1].DeletedOn == nil || got[0].DeletedOn != nil {
		t.Errorf("DeletedOn: installed %v, uninstalled %v; want nil and set", got[0].DeletedOn, got[1].DeletedOn)
	}
	if got[0].FirstName != "Grace" || got[0].EmailAddress != "grace@example.com" {
		t.Errorf("installation names the user: %+v", got[0])
	}

	other := w.devClient(t, w.other)
	if err := integFirstErr(other.ListPluginInstallations(ctx, w.plugin.ID, nil)); !errors.Is(err, scribe.ErrNotFound) {
		t.Errorf("another developer's plugin: %v, want ErrNotFound", err)
	}
}

// Protects: ListWebhooks returns a plugin's webhooks with their signing
// secrets (redacted when printed, intact through Reveal).
func TestIntegrationListWebhooks(t *testing.T) {
	t.Parallel()
	w := newIntegWorld(t)
	c := w.devClient(t, w.dev)
	ctx := t.Context()

	var want []scribe.Webhook
	for _, uri := range []string{"https://crm.example.com/hooks/scribe", "https://backup.example.com/hook", "http://127.0.0.1:9000/hook"} {
		want = append(want, integMust(w.s.CreateWebhook(w.plugin.ID, uri))(t))
	}
	integMust(w.s.CreateWebhook(w.otherPlugin.ID, "https://engine.example.com/hook"))(t)

	got := integCollect(t, c.ListWebhooks(ctx, w.plugin.ID, &scribe.ListWebhooksParams{ListParams: scribe.ListParams{Limit: 2}}))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("webhooks (-seeded +listed):\n%s", diff)
	}
	for _, wh := range got {
		if !strings.HasPrefix(wh.SigningSecret.Reveal(), "whsec_") || strings.Contains(fmt.Sprintf("%+v", wh), wh.SigningSecret.Reveal()) {
			t.Errorf("webhook %d: signing secret missing or printed", wh.ID)
		}
	}
}

// Protects: every refusal of the service reaches the caller as a typed
// *scribe.Error that matches its sentinel with errors.Is and carries the
// stable code, the request id and the operation, and never the credential.
func TestIntegrationErrors(t *testing.T) {
	t.Parallel()
	w := newIntegWorld(t)
	s := w.s
	ctx := t.Context()
	dev := w.devClient(t, w.dev)
	grace := w.instClient(t, w.key.Key, w.inst.UUID)

	// A plugin that may read users but not transcripts, and one the reverse.
	noTranscripts := integMust(s.CreatePlugin(w.dev.User.ID, scribe.Plugin{Name: "Contact card",
		Permissions: scribe.Permissions{User: scribe.PermissionRead, Transcript: scribe.PermissionNone}}))(t)
	noUser := integMust(s.CreatePlugin(w.dev.User.ID, scribe.Plugin{Name: "Word count",
		Permissions: scribe.Permissions{User: scribe.PermissionNone, Transcript: scribe.PermissionRead}}))(t)
	disabled := integMust(s.CreatePlugin(w.dev.User.ID, scribe.Plugin{Name: "Retired",
		Permissions: scribe.Permissions{User: scribe.PermissionRead, Transcript: scribe.PermissionRead}}))(t)
	clientFor := func(p scribe.Plugin, u scribe.User) (*scribe.Client, scribe.PluginInstallation) {
		k := integMust(s.CreateSecretKey(p.ID, ""))(t)
		inst := integMust(s.Install(p.ID, u.ID))(t)
		return w.instClient(t, k.Key, inst.UUID), inst
	}
	noTranscriptsC, _ := clientFor(noTranscripts, w.grace)
	noUserC, _ := clientFor(noUser, w.grace)
	disabledC, _ := clientFor(disabled, w.grace)
	integMust(s.DisablePlugin(disabled.ID))(t)
	alanC, alanInst := clientFor(w.plugin, w.alan)
	integMust(s.Uninstall(alanInst.UUID))(t)
	deleted := w.graceTr[6]
	if err := s.DeleteTranscript(deleted.ID); err != nil {
		t.Fatal(err)
	}
	stranger := integMust(scribe.NewClient(s.URL(), scribe.WithDeveloperKey(mustDeveloperKey("dk_live_not-a-key-of-this-server")), scribe.WithHTTPClient(w.hc)))(t)

	tests := []struct {
		name   string
		call   func() error
		is     error
		status int
		code   string
		path   string
	}{
		{"another user's transcript", func() error { _, err := grace.GetTranscript(ctx, w.alanTr[0].ID); return err },
			scribe.ErrNotFound, 404, scribe.CodeNotFound, fmt.Sprintf("/transcripts/%d", w.alanTr[0].ID)},
		{"a deleted transcript", func() error { _, err := grace.GetTranscript(ctx, deleted.ID); return err },
			scribe.ErrNotFound, 404, scribe.CodeNotFound, fmt.Sprintf("/transcripts/%d", deleted.ID)},
		{"another developer's plugin", func() error { _, err := dev.GetPlugin(ctx, w.otherPlugin.ID); return err },
			scribe.ErrNotFound, 404, scribe.CodeNotFound, fmt.Sprintf("/plugins/%d", w.otherPlugin.ID)},
		{"a developer key on /transcripts", func() error { return integFirstErr(dev.ListTranscripts(ctx, nil)) },
			scribe.ErrForbidden, 403, scribe.CodeWrongTokenKind, "/transcripts"},
		{"an installation token on /plugins", func() error { return integFirstErr(grace.ListPlugins(ctx, nil)) },
			scribe.ErrForbidden, 403, scribe.CodeWrongTokenKind, "/plugins"},
		{"transcript permission none: list", func() error { return integFirstErr(noTranscriptsC.ListTranscripts(ctx, nil)) },
			scribe.ErrForbidden, 403, scribe.CodePermissionDenied, "/transcripts"},
		{"transcript permission none: get", func() error { _, err := noTranscriptsC.GetTranscript(ctx, w.graceTr[0].ID); return err },
			scribe.ErrForbidden, 403, scribe.CodePermissionDenied, fmt.Sprintf("/transcripts/%d", w.graceTr[0].ID)},
		{"user permission none", func() error { _, err := noUserC.GetMe(ctx); return err },
			scribe.ErrForbidden, 403, scribe.CodePermissionDenied, "/users/me"},
		{"an uninstalled installation", func() error { _, err := alanC.GetMe(ctx); return err },
			scribe.ErrUnauthorized, 401, scribe.CodeInstallationDeleted, "/users/me"},
		{"a disabled plugin", func() error { return integFirstErr(disabledC.ListTranscripts(ctx, nil)) },
			scribe.ErrForbidden, 403, scribe.CodePluginDisabled, "/transcripts"},
		{"an unknown developer key", func() error { return integFirstErr(stranger.ListPlugins(ctx, nil)) },
			scribe.ErrUnauthorized, 401, scribe.CodeInvalidToken, "/plugins"},
	}
	secrets := []string{w.key.Key.Reveal(), w.dev.Key.Reveal(), "dk_live_not-a-key-of-this-server"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if !errors.Is(err, tt.is) {
				t.Fatalf("err = %v, want errors.Is %v", err, tt.is)
			}
			var apiErr *scribe.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %T, want *scribe.Error", err)
			}
			got := [3]any{apiErr.StatusCode, apiErr.Code, apiErr.Path}
			if want := [3]any{tt.status, tt.code, tt.path}; got != want {
				t.Errorf("status, code, path = %v, want %v", got, want)
			}
			if !strings.HasPrefix(apiErr.RequestID, "req_") || !strings.Contains(err.Error(), apiErr.RequestID) {
				t.Errorf("request id %q missing from the error or its message %q", apiErr.RequestID, err)
			}
			for _, secret := range secrets {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error message carries a credential: %q", err)
				}
			}
		})
	}
}

// Protects: a 401 that no fresh token can fix (an uninstalled installation)
// is sent again exactly once, with a fresh token, and then returned.
func TestIntegrationUnfixable401IsRetriedOnce(t *testing.T) {
	t.Parallel()
	w := newIntegWorld(t)
	c := w.instClient(t, w.key.Key, w.inst.UUID)
	integMust(w.s.Uninstall(w.inst.UUID))(t)

	since := w.s.RequestCount()
	if _, err := c.GetMe(t.Context()); !errors.Is(err, scribe.ErrUnauthorized) {
		t.Fatalf("GetMe = %v, want ErrUnauthorized", err)
	}
	var codes []string
	for _, r := range integLog(w.s, since, "/users/me") {
		codes = append(codes, r.Code)
	}
	if diff := cmp.Diff([]string{scribe.CodeInstallationDeleted, scribe.CodeInstallationDeleted}, codes); diff != "" {
		t.Errorf("requests' codes (-want +got):\n%s", diff)
	}
}

// Protects: a token source on the server's clock (scribetest's
// InstallationClient) refreshes ahead of expiry by itself: hours of clock
// time later, calls still succeed and the server never refused a token.
func TestIntegrationTokenRefreshFollowsTheServerClock(t *testing.T) {
	t.Parallel()
	clock := scribetest.NewFakeClock(time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC))
	w := newIntegWorld(t, scribetest.WithClock(clock))
	c := w.instClient(t, w.key.Key, w.inst.UUID)

	since := w.s.RequestCount()
	for range 4 {
		if _, err := c.GetMe(t.Context()); err != nil {
			t.Fatalf("GetMe at %v: %v", clock.Now(), err)
		}
		clock.Advance(70 * time.Minute) // past the token's hour
	}
	for _, r := range integLog(w.s, since, "/users/me") {
		if r.Status != http.StatusOK {
			t.Errorf("%v: status %d %s, want every request accepted", r.Time, r.Status, r.Code)
		}
	}
}

// slowClock reads its clock behind by the given time.
type slowClock struct {
	auth.Clock
	behind time.Duration
}

func (c slowClock) Now() time.Time { return c.Clock.Now().Add(-c.behind) }

// Protects: the client's one-shot 401 recovery against the real server. A
// backend whose clock runs 2 minutes slow, with refresh-ahead turned off,
// still holds its token when the server finds it expired; the 401
// token_expired makes the client invalidate it, the source mints a fresh one
// and the same call succeeds.
func TestIntegrationExpiredTokenRecoversWithOneFreshToken(t *testing.T) {
	t.Parallel()
	clock := scribetest.NewFakeClock(time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC))
	w := newIntegWorld(t, scribetest.WithClock(clock))
	ts, err := auth.NewTokenSource(w.key.Key, w.inst.UUID, auth.WithClock(slowClock{clock, 2 * time.Minute}), auth.WithRefreshAhead(0), auth.WithJitter(0))
	if err != nil {
		t.Fatal(err)
	}
	c := integMust(scribe.NewClient(w.s.URL(), scribe.WithTokenSource(ts), scribe.WithHTTPClient(w.hc)))(t)

	since := w.s.RequestCount()
	if _, err := c.GetMe(t.Context()); err != nil {
		t.Fatal(err)
	}
	// The token (minted at server time -2m) expires at +58m; the server's
	// 60 s leeway ends at +59m; the source's clock reads +57m30s.
	clock.Advance(59*time.Minute + 30*time.Second)
	me, err := c.GetMe(t.Context())
	if err != nil {
		t.Fatalf("GetMe after expiry: %v", err)
	}
	if diff := cmp.Diff(w.grace, *me); diff != "" {
		t.Errorf("GetMe (-want +got):\n%s", diff)
	}
	type outcome struct {
		Status int
		Code   string
	}
	var got []outcome
	for _, r := range integLog(w.s, since, "/users/me") {
		got = append(got, outcome{r.Status, r.Code})
	}
	want := []outcome{{200, ""}, {401, scribe.CodeTokenExpired}, {200, ""}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// Protects: CreatePlugin refuses a name the service would refuse before
// sending anything, with an *ArgumentError naming the field; a body the
// client lets through but the contract forbids comes back as 400
// validation_failed naming the member; neither creates a plugin.
func TestIntegrationCreatePluginValidation(t *testing.T) {
	t.Parallel()
	w := newIntegWorld(t)
	c := w.devClient(t, w.dev)
	ctx := t.Context()
	before := w.s.Plugins()

	clientSide := []struct {
		name   string
		params *scribe.CreatePluginParams
		arg    string
	}{
		{"nil params", nil, "params"},
		{"empty name", &scribe.CreatePluginParams{}, "params.Name"},
		{"name of 101 characters", &scribe.CreatePluginParams{Name: strings.Repeat("é", 101)}, "params.Name"},
		{"unknown permission", &scribe.CreatePluginParams{Name: "x", Permissions: scribe.Permissions{User: "write"}}, "params.Permissions.User"},
	}
	for _, tt := range clientSide {
		since := w.s.RequestCount()
		_, err := c.CreatePlugin(ctx, tt.params)
		var argErr *scribe.ArgumentError
		if !errors.As(err, &argErr) || argErr.Arg != tt.arg {
			t.Errorf("%s: err = %v, want *ArgumentError for %s", tt.name, err, tt.arg)
		}
		if n := w.s.RequestCount() - since; n != 0 {
			t.Errorf("%s: %d requests sent, want none", tt.name, n)
		}
	}

	serverSide := []struct {
		name   string
		params *scribe.CreatePluginParams
		member string
	}{
		{"description over 1000 characters", &scribe.CreatePluginParams{Name: "x", Description: strings.Repeat("d", 1001)}, "description"},
		{"logo URI not http(s)", &scribe.CreatePluginParams{Name: "x", LogoURI: "ftp://logo.example.com/x.png"}, "logo_uri"},
	}
	for _, tt := range serverSide {
		// The request breaks the contract on purpose: let the validator pass it.
		_, err := c.CreatePlugin(apitest.AllowInvalidRequest(ctx), tt.params)
		var apiErr *scribe.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Code != scribe.CodeValidationFailed {
			t.Errorf("%s: err = %v, want 400 %s", tt.name, err, scribe.CodeValidationFailed)
			continue
		}
		if !strings.Contains(apiErr.Detail, tt.member) {
			t.Errorf("%s: detail %q does not name %s", tt.name, apiErr.Detail, tt.member)
		}
	}
	if diff := cmp.Diff(before, w.s.Plugins()); diff != "" {
		t.Errorf("plugins changed (-before +after):\n%s", diff)
	}
}

// Protects: idempotent POST end to end. The same Idempotency-Key with the
// same body answers the first plugin again and creates one; the same key
// with another body is 409 idempotency_key_reused; without a key of the
// caller's, every call gets a fresh key and creates its own plugin.
func TestIntegrationCreatePluginIdempotency(t *testing.T) {
	t.Parallel()
	w := newIntegWorld(t)
	c := w.devClient(t, w.dev)
	ctx := t.Context()
	count := func(name string) int {
		n := 0
		for _, p := range w.s.Plugins() {
			if p.Name == name {
				n++
			}
		}
		return n
	}

	params := &scribe.CreatePluginParams{Name: "Action items"}
	first, err := c.CreatePlugin(ctx, params, scribe.WithIdempotencyKey("create-action-items"))
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.CreatePlugin(ctx, params, scribe.WithIdempotencyKey("create-action-items"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("replayed answer differs (-first +again):\n%s", diff)
	}
	if n := count("Action items"); n != 1 {
		t.Errorf("%d plugins named Action items, want 1", n)
	}

	_, err = c.CreatePlugin(ctx, &scribe.CreatePluginParams{Name: "Something else"}, scribe.WithIdempotencyKey("create-action-items"))
	var apiErr *scribe.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusConflict || apiErr.Code != scribe.CodeIdempotencyKeyReused {
		t.Errorf("same key, other body: err = %v, want 409 %s", err, scribe.CodeIdempotencyKeyReused)
	}

	since := w.s.RequestCount()
	for range 2 {
		if _, err := c.CreatePlugin(ctx, &scribe.CreatePluginParams{Name: "Twice"}); err != nil {
			t.Fatal(err)
		}
	}
	if n := count("Twice"); n != 2 {
		t.Errorf("%d plugins named Twice, want 2 (each call its own key)", n)
	}
	reqs := integLog(w.s, since, "/plugins")
	if len(reqs) != 2 || reqs[0].IdempotencyKey == "" || reqs[0].IdempotencyKey == reqs[1].IdempotencyKey {
		t.Errorf("generated Idempotency-Keys: %+v, want two distinct keys", reqs)
	}
}

// Protects: InstallationClients serves many installations at once: each
// client, handed out concurrently from one shared token cache and
// transport, sees exactly its own user and transcripts.
func TestIntegrationInstallationClientsForManyInstallations(t *testing.T) {
	t.Parallel()
	w := newIntegWorld(t)
	s := w.s

	type tenant struct {
		user scribe.User
		inst scribe.PluginInstallation
		trs  []scribe.Transcript
	}
	tenants := []tenant{{w.grace, w.inst, w.graceTr}}
	for i := range 24 {
		u := integMust(s.CreateUser(scribe.User{FirstName: fmt.Sprintf("User%d", i), EmailAddress: fmt.Sprintf("u%d@example.com", i)}))(t)
		tn := tenant{user: u, inst: integMust(s.Install(w.plugin.ID, u.ID))(t)}
		for j := range i%4 + 1 {
			tn.trs = append(tn.trs, integMust(s.CreateTranscript(u.ID, scribetest.TranscriptParams{Headline: fmt.Sprintf("u%d t%d", i, j), Type: "meeting"}))(t))
		}
		tenants = append(tenants, tn)
	}

	cache := integMust(auth.NewCache(w.key.Key))(t)
	clients, err := scribe.NewInstallationClients(s.URL(), cache, scribe.WithHTTPClient(w.hc))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	var wg sync.WaitGroup
	for _, tn := range tenants {
		wg.Go(func() {
			c, err := clients.For(tn.inst.UUID)
			if err != nil {
				t.Errorf("For(%s): %v", tn.inst.UUID, err)
				return
			}
			me, err := c.GetMe(ctx)
			if err != nil || !cmp.Equal(tn.user, *me) {
				t.Errorf("installation %d: GetMe = %+v, %v; want %+v", tn.inst.ID, me, err, tn.user)
			}
			var got []scribe.Transcript
			for tr, err := range c.ListTranscripts(ctx, &scribe.ListTranscriptsParams{ListParams: scribe.ListParams{Limit: 2}}).All() {
				if err != nil {
					t.Errorf("installation %d: %v", tn.inst.ID, err)
					return
				}
				got = append(got, tr)
			}
			if diff := cmp.Diff(tn.trs, got); diff != "" {
				t.Errorf("installation %d transcripts (-seeded +listed):\n%s", tn.inst.ID, diff)
			}
		})
	}
	wg.Wait()
	if cache.Len() != len(tenants) {
		t.Errorf("cache holds %d token sources, want one per installation (%d)", cache.Len(), len(tenants))
	}
}

// Protects: docs/pagination.md through the client. Walking every transcript while
// another goroutine inserts (and deletes some of what it inserted) never
// yields an item twice, keeps ascending id order, and yields every item that
// existed for the whole walk.
func TestIntegrationWalkWhileInserting(t *testing.T) {
	t.Parallel()
	w := newIntegWorld(t)
	s := w.s
	for i := range 40 {
		integMust(s.CreateTranscript(w.grace.ID, scribetest.TranscriptParams{Headline: fmt.Sprintf("seed %d", i), Type: "meeting"}))(t)
	}
	existing := map[int64]bool{}
	for _, tr := range s.Transcripts(w.grace.ID) {
		existing[tr.ID] = true
	}
	c := w.instClient(t, w.key.Key, w.inst.UUID)

	// The inserter changes the collection while the walker fetches the next
	// page: two inserts and one delete for each page the walker has seen.
	pageSeen := make(chan struct{}, 100)
	var inserted sync.Map // id -> true
	var inserts atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		var mine []int64
		for range pageSeen {
			for range 2 {
				tr, err := s.CreateTranscript(w.grace.ID, scribetest.TranscriptParams{Headline: "late", Type: "meeting"})
				if err != nil {
					t.Errorf("insert: %v", err)
					return
				}
				inserted.Store(tr.ID, true)
				inserts.Add(1)
				mine = append(mine, tr.ID)
			}
			if err := s.DeleteTranscript(mine[0]); err != nil {
				t.Errorf("delete: %v", err)
				return
			}
			mine = mine[1:]
		}
	})

	var ids []int64
	for page, err := range c.ListTranscripts(t.Context(), &scribe.ListTranscriptsParams{ListParams: scribe.ListParams{Limit: 5}}).Pages() {
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range page.Data {
			ids = append(ids, tr.ID)
		}
		if len(ids) < 60 { // bounded: the inserter must not outrun the walk forever
			pageSeen <- struct{}{}
		}
	}
	close(pageSeen)
	wg.Wait()

	if !slices.IsSorted(ids) || len(slices.Compact(slices.Clone(ids))) != len(ids) {
		t.Errorf("ids not strictly ascending (a duplicate or a step back): %v", ids)
	}
	seen := map[int64]bool{}
	for _, id := range ids {
		seen[id] = true
		if _, ok := inserted.Load(id); !existing[id] && !ok {
			t.Errorf("id %d was never created", id)
		}
	}
	for id := range existing {
		if !seen[id] {
			t.Errorf("id %d existed for the whole walk but was skipped", id)
		}
	}
	t.Logf("walked %d items; %d inserted during the walk", len(ids), inserts.Load())
}

// Protects: retries end to end against injected faults. GETs answered 503
// are sent again until they succeed; a POST answered 502, then dropped, is
// sent again with the same Idempotency-Key and creates one plugin; a POST
// answered 500 is not sent again (it may have done the work).
func TestIntegrationRetriesInjectedFaults(t *testing.T) {
	t.Parallel()
	w := newIntegWorld(t)
	s := w.s
	ctx := t.Context()
	c := integMust(s.DeveloperClient(w.dev.Key, scribe.WithHTTPClient(w.hc), scribe.WithRetryWait(time.Millisecond, 2*time.Millisecond)))(t)
	statuses := func(reqs []scribetest.Request) []int {
		var out []int
		for _, r := range reqs {
			out = append(out, r.Status)
		}
		return out
	}

	if err := s.FailNext(2, http.StatusServiceUnavailable); err != nil {
		t.Fatal(err)
	}
	since := s.RequestCount()
	if got, err := c.GetPlugin(ctx, w.plugin.ID); err != nil || got.ID != w.plugin.ID {
		t.Fatalf("GetPlugin through two 503s = %v, %v", got, err)
	}
	if diff := cmp.Diff([]int{503, 503, 200}, statuses(integLog(s, since, fmt.Sprintf("/plugins/%d", w.plugin.ID)))); diff != "" {
		t.Errorf("GET attempts (-want +got):\n%s", diff)
	}

	for _, f := range []scribetest.Fault{
		{Method: http.MethodPost, Path: "/plugins", Status: http.StatusBadGateway},
		{Method: http.MethodPost, Path: "/plugins", Drop: true},
	} {
		if err := s.InjectFault(f); err != nil {
			t.Fatal(err)
		}
	}
	fired := len(s.FiredFaults())
	since = s.RequestCount()
	created, err := c.CreatePlugin(ctx, &scribe.CreatePluginParams{Name: "Survivor"})
	if err != nil {
		t.Fatalf("CreatePlugin through a 502 and a dropped connection: %v", err)
	}
	if n := len(s.FiredFaults()) - fired; n != 2 {
		t.Errorf("%d faults fired, want 2: %+v", n, s.FiredFaults())
	}
	keys := map[string]bool{}
	for _, r := range integLog(s, since, "/plugins") {
		keys[r.IdempotencyKey] = true
	}
	if len(keys) != 1 || keys[""] {
		t.Errorf("Idempotency-Keys across the attempts: %v, want one key", keys)
	}
	var survivors []int64
	// The dropped POST is logged when its handler returns, which may be
	// after the retried POST succeeded: wait until every request a fault
	// fired on is in the log, so that it is not counted in the next step.
	integWaitFaulted(t, s)
	for _, p := range s.Plugins() {
		if p.Name == "Survivor" {
			survivors = append(survivors, p.ID)
		}
	}
	if diff := cmp.Diff([]int64{created.ID}, survivors); diff != "" {
		t.Errorf("plugins created (-want +got):\n%s", diff)
	}

	if err := s.InjectFault(scribetest.Fault{Method: http.MethodPost, Path: "/plugins", Status: http.StatusInternalServerError}); err != nil {
		t.Fatal(err)
	}
	since = s.RequestCount()
	_, err = c.CreatePlugin(ctx, &scribe.CreatePluginParams{Name: "Maybe"})
	var apiErr *scribe.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 500 || apiErr.Code != scribe.CodeInternalError {
		t.Errorf("POST answered 500: err = %v, want the 500 *scribe.Error", err)
	}
	integWaitFaulted(t, s)
	if reqs := integLog(s, since, "/plugins"); len(reqs) != 1 {
		t.Errorf("POST answered 500 was sent %d times, want once\nrequests since the step began: %+v\nfired faults: %+v",
			len(reqs), reqs, s.FiredFaults())
	}
}

// integWaitFaulted waits until the request log holds every request a fault
// fired on: a request whose connection a fault dropped is logged when its
// handler returns, which may be after the client has retried and succeeded.
// The 10 s limit only ends a hang; past it, t fails with the missing request
// ids, the fired faults and the log as last seen.
func integWaitFaulted(t *testing.T, s *scribetest.Server) {
	t.Helper()
	const limit = 10 * time.Second
	deadline := time.Now().Add(limit)
	for {
		fired, log := s.FiredFaults(), s.Requests()
		var missing []string
		for _, f := range fired {
			if !slices.ContainsFunc(log, func(r scribetest.Request) bool { return r.RequestID == f.RequestID }) {
				missing = append(missing, f.Method+" "+f.Path+" "+f.RequestID)
			}
		}
		if len(missing) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v the request log still lacks %d requests faults fired on: %v\nfired faults: %+v\nrequest log: %+v",
				limit, len(missing), missing, fired, log)
		}
		time.Sleep(time.Millisecond) // a polling interval, not a wait for the outcome
	}
}

// Protects: the server's rate limit reaches the caller as ErrRateLimited
// with the code and Retry-After, counts per credential holder, and lifts when
// the window ends.
func TestIntegrationRateLimited(t *testing.T) {
	t.Parallel()
	clock := scribetest.NewFakeClock(time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)) // a window starts
	w := newIntegWorld(t, scribetest.WithClock(clock), scribetest.WithRateLimit(3, time.Minute))
	ctx := t.Context()
	c := integMust(w.s.DeveloperClient(w.dev.Key, scribe.WithHTTPClient(w.hc), scribe.WithMaxRetries(0)))(t)

	for i := range 3 {
		if _, err := c.GetPlugin(ctx, w.plugin.ID); err != nil {
			t.Fatalf("request %d within the quota: %v", i+1, err)
		}
	}
	_, err := c.GetPlugin(ctx, w.plugin.ID)
	var apiErr *scribe.Error
	if !errors.Is(err, scribe.ErrRateLimited) || !errors.As(err, &apiErr) {
		t.Fatalf("request over the quota: %v, want ErrRateLimited", err)
	}
	if apiErr.Code != scribe.CodeRateLimited || apiErr.RetryAfter != time.Minute {
		t.Errorf("code %q, RetryAfter %v; want %q and the minute left in the window", apiErr.Code, apiErr.RetryAfter, scribe.CodeRateLimited)
	}
	if _, err := w.devClient(t, w.other).GetPlugin(ctx, w.otherPlugin.ID); err != nil {
		t.Errorf("another developer, own quota: %v", err)
	}
	clock.Advance(time.Minute)
	if _, err := c.GetPlugin(ctx, w.plugin.ID); err != nil {
		t.Errorf("next window: %v", err)
	}
}

// Protects: events end to end. The server delivers transcript.created and
// installation.created to the plugin's webhook, signed with its signing
// secret, in the contract's shape; a receiver built on webhook.NewHandler
// with the secret from the seeding call verifies and decodes them into the
// resources the seeding calls returned.
func TestIntegrationWebhookDelivery(t *testing.T) {
	t.Parallel()
	w := newIntegWorld(t)
	s := w.s
	validator := apitest.NewValidator(t)

	events := make(chan *webhook.Event, 10)
	var handler atomic.Pointer[http.Handler]
	recv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		if err := validator.ValidateWebhook(r, body); err != nil {
			t.Errorf("delivery does not conform to the contract: %v", err)
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		h := handler.Load()
		if h == nil {
			http.Error(rw, "not ready", http.StatusServiceUnavailable)
			return
		}
		(*h).ServeHTTP(rw, r)
	}))
	t.Cleanup(recv.Close)

	wh := integMust(s.CreateWebhook(w.plugin.ID, recv.URL+"/hook"))(t)
	verifier := integMust(webhook.NewVerifier(wh.SigningSecret))(t)
	h := integMust(webhook.NewHandler(verifier, func(_ context.Context, e *webhook.Event) error {
		events <- e
		return nil
	}))(t)
	handler.Store(&h)

	tr := integMust(s.CreateTranscript(w.grace.ID, scribetest.TranscriptParams{Headline: "Fresh", Type: "meeting"}))(t)
	inst := integMust(s.Install(w.plugin.ID, w.alan.ID))(t)

	got := map[webhook.EventType]*webhook.Event{}
	timeout := time.After(30 * time.Second) // a bound on a hang, not a measurement
	for len(got) < 2 {
		select {
		case e := <-events:
			if got[e.Type] != nil {
				t.Errorf("event %s delivered to the handler twice", e.Type)
			}
			got[e.Type] = e
		case <-timeout:
			t.Fatalf("events received: %v; want transcript.created and installation.created", slices.Collect(maps.Keys(got)))
		}
	}

	te := got[webhook.EventTranscriptCreated]
	if te == nil || te.PluginID != w.plugin.ID || te.PluginInstallationUUID != w.inst.UUID {
		t.Fatalf("transcript.created = %+v, want plugin %d, installation %s", te, w.plugin.ID, w.inst.UUID)
	}
	if gotTr, err := te.Transcript(); err != nil || !cmp.Equal(tr, *gotTr) {
		t.Errorf("transcript.created data = %+v, %v; want %+v", gotTr, err, tr)
	}
	ie := got[webhook.EventInstallationCreated]
	if ie == nil || ie.PluginInstallationUUID != inst.UUID {
		t.Fatalf("installation.created = %+v, want installation %s", ie, inst.UUID)
	}
	if gotInst, err := ie.Installation(); err != nil || !cmp.Equal(inst, *gotInst) {
		t.Errorf("installation.created data = %+v, %v; want %+v", gotInst, err, inst)
	}
}
