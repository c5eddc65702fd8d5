package devserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/auth"
	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/internal/redact"
	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/webhook"
)

// route is one admin operation: api/admin.yaml documents each, and a test
// holds the two to each other.
type route struct {
	method, path string // path below PathPrefix, with {name} wildcards
	handle       http.HandlerFunc
}

// routes are the admin operations. HealthPath is served without the admin
// API too (ServeHTTP).
func (d *devServer) routes() []route {
	return []route{
		{http.MethodGet, "healthz", func(w http.ResponseWriter, _ *http.Request) { health(w) }},
		{http.MethodPost, "installations", adminOp(d.install)},
		{http.MethodDelete, "installations/{uuid}", adminOp(d.uninstall)},
		{http.MethodPost, "transcripts", adminOp(d.createTranscript)},
		{http.MethodPatch, "transcripts/{id}", adminOp(d.updateTranscript)},
		{http.MethodDelete, "users/{id}", adminOp(d.deleteUser)},
		{http.MethodPost, "webhooks", adminOp(d.createWebhook)},
		{http.MethodGet, "deliveries", adminOp(d.deliveries)},
		{http.MethodGet, "events", adminOp(d.listEvents)},
		{http.MethodPost, "trigger", adminOp(d.trigger)},
		{http.MethodPost, "events/{id}/resend", adminOp(d.resend)},
		{http.MethodGet, "requests", adminOp(d.requests)},
		{http.MethodPost, "scenes", adminOp(d.scene)},
		{http.MethodPost, "checks", adminOp(d.addCheck)},
		{http.MethodGet, "checks", adminOp(d.listChecks)},
		{http.MethodPost, "faults", d.injectFault},
		{http.MethodGet, "faults", adminOp(d.faults)},
		{http.MethodDelete, "faults", adminOp(d.clearFaults)},
		{http.MethodPut, "rate-limit", adminOp(d.setRateLimit)},
		{http.MethodGet, "fixtures", d.exportFixtures},
		{http.MethodPost, "reset", adminOp(d.reset)},
	}
}

// adminHandler serves the admin API and the dashboard.
func (d *devServer) adminHandler() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range d.routes() {
		mux.HandleFunc(rt.method+" "+PathPrefix+rt.path, rt.handle)
	}
	d.mountDashboard(mux)
	mux.HandleFunc(PathPrefix, func(w http.ResponseWriter, r *http.Request) {
		adminError(w, http.StatusNotFound, fmt.Errorf("no admin operation %s %q; see api/admin.yaml", r.Method, r.URL.Path))
	})
	admin := sameOrigin(mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !canonical(r.URL.Path) || !canonical(r.URL.EscapedPath()) { // the mux would redirect it
			adminError(w, http.StatusNotFound, fmt.Errorf("no admin operation at %q: the path has an empty, \".\" or \"..\" segment; "+
				"send each segment once, such as %sdeliveries", r.URL.EscapedPath(), PathPrefix))
			return
		}
		admin.ServeHTTP(w, r)
	})
}

// canonical reports whether p has no empty, "." or ".." segment.
func canonical(p string) bool {
	return !strings.Contains(p, "//") && !strings.Contains(p+"/", "/./") && !strings.Contains(p+"/", "/../")
}

// adminError answers {"error": "..."}, not problem+json: the admin API is
// not the contract's. Bytes that are not UTF-8 become U+FFFD.
func adminError(w http.ResponseWriter, status int, err error) {
	switch {
	case errors.Is(err, scribetest.ErrNotFound):
		status = http.StatusNotFound
	case errors.Is(err, scribetest.ErrConflict):
		status = http.StatusConflict
	}
	writeJSON(w, status, map[string]string{"error": strings.ToValidUTF8(err.Error(), "\uFFFD")})
}

// writeJSON answers v, with the signing secrets of the webhooks it holds.
func writeJSON(w http.ResponseWriter, status int, v any) {
	writeBody(w, status, "application/json", v)
}

func writeBody(w http.ResponseWriter, status int, contentType string, v any) {
	body, err := apijson.MarshalRevealed(v)
	if err != nil {
		http.Error(w, "encoding the answer failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// maxBodyBytes admits a transcript as long as the largest event.
const maxBodyBytes = scribetest.MaxEventBytes

var strictJSON = apijson.Strict()

// readBody decodes a POST, PATCH or PUT body, one JSON object, strictly
// into b. A B of struct{} takes an empty body too.
func readBody[B any](w http.ResponseWriter, r *http.Request, b *B) error {
	if r.Method != http.MethodPost && r.Method != http.MethodPatch && r.Method != http.MethodPut {
		return nil
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if _, none := any(b).(*struct{}); none && err == nil && len(body) == 0 {
		body = []byte("{}")
	}
	if err == nil {
		err = apijson.Unmarshal(body, b, strictJSON)
	}
	return err
}

// adminOp decodes the body into a B, calls do and answers 200, or the
// error with 400 (404, 409 for ErrNotFound, ErrConflict).
func adminOp[B any](do func(r *http.Request, b *B) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var b B
		if err := readBody(w, r, &b); err != nil {
			adminError(w, http.StatusBadRequest, fmt.Errorf("the body must be one JSON object of the documented members: %w", err))
			return
		}
		out, err := do(r, &b)
		if err != nil {
			adminError(w, http.StatusBadRequest, err)
			return
		}
		writeJSON(w, http.StatusOK, out)
	}
}

// pathID reads the path's {id}, a positive integer.
func pathID(r *http.Request, what string) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id < 1 {
		return 0, fmt.Errorf("%s id %q: must be a positive integer", what, r.PathValue("id"))
	}
	return id, nil
}

// exportFixtures serves GET /_scribetest/fixtures: ExportFixtures.
func (d *devServer) exportFixtures(w http.ResponseWriter, _ *http.Request) {
	var b bytes.Buffer
	if err := d.s.ExportFixtures(&b); err != nil {
		adminError(w, http.StatusInternalServerError, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b.Bytes())
}

type installBody struct {
	PluginID int64 `json:"plugin_id"`
	UserID   int64 `json:"user_id"`
}

func (d *devServer) install(_ *http.Request, b *installBody) (any, error) {
	return d.s.Install(b.PluginID, b.UserID)
}

func (d *devServer) uninstall(r *http.Request, _ *struct{}) (any, error) {
	return d.s.Uninstall(strings.ToLower(r.PathValue("uuid")))
}

// deleteUser serves DELETE /_scribetest/users/{id}: DeleteUser.
func (d *devServer) deleteUser(r *http.Request, _ *struct{}) (any, error) {
	id, err := pathID(r, "user")
	if err == nil {
		err = d.s.DeleteUser(id)
	}
	return map[string]int64{"user_id": id}, err
}

// transcriptBody is the body of POST (user_id and others) and PATCH.
type transcriptBody struct {
	UserID   int64                      `json:"user_id"`
	Headline *string                    `json:"headline"`
	Text     *string                    `json:"text"`
	Type     *string                    `json:"type"`
	Metadata map[string]json.RawMessage `json:"metadata"`
	Job      *struct {
		Lines int `json:"lines"`
	} `json:"job"`
	Audio *struct {
		LengthInSeconds int `json:"length_in_seconds"`
	} `json:"audio"`
}

// apply changes t as b says.
func (b *transcriptBody) apply(t *scribe.Transcript) {
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&t.Headline, b.Headline)
	set(&t.Text, b.Text)
	set(&t.Type, b.Type)
	if b.Metadata != nil {
		t.Metadata = b.Metadata
	}
	if b.Job != nil {
		t.Job.Lines = b.Job.Lines
	}
	if b.Audio != nil {
		t.Audio.LengthInSeconds = b.Audio.LengthInSeconds
	}
}

func (d *devServer) createTranscript(_ *http.Request, b *transcriptBody) (any, error) {
	var t scribe.Transcript
	b.apply(&t)
	p := scribetest.TranscriptParams{Headline: t.Headline, Text: t.Text, Type: t.Type, Job: t.Job, Audio: t.Audio,
		Metadata: make(map[string]any, len(b.Metadata))}
	for k, v := range b.Metadata {
		p.Metadata[k] = v
	}
	return d.s.CreateTranscript(b.UserID, p)
}

func (d *devServer) updateTranscript(r *http.Request, b *transcriptBody) (any, error) {
	id, err := pathID(r, "transcript")
	switch {
	case err != nil:
		return nil, err
	case b.UserID != 0:
		return nil, errors.New("user_id: a transcript's owner cannot change")
	}
	return d.s.UpdateTranscript(id, b.apply)
}

// webhookBody is the body of POST /_scribetest/webhooks; without
// signing_secret, the webhook gets a fresh one.
type webhookBody struct {
	PluginID      int64  `json:"plugin_id"`
	URI           string `json:"uri"`
	SigningSecret string `json:"signing_secret"`
}

func (d *devServer) createWebhook(_ *http.Request, b *webhookBody) (any, error) {
	var secret auth.WebhookSecret
	if b.SigningSecret != "" {
		var err error
		if secret, err = auth.ParseWebhookSecret(b.SigningSecret); err != nil { // its errors never repeat the secret
			return nil, fmt.Errorf("signing_secret: %w", err)
		}
	}
	return d.s.CreateWebhookWithSecret(b.PluginID, b.URI, secret)
}

func (d *devServer) deliveries(_ *http.Request, _ *struct{}) (any, error) {
	// Pending first: a delivery that settles between the two reads is then in
	// both lists, never in neither (an attempt is recorded before its
	// delivery leaves the pending list), so a caller waiting for attempts
	// (scribe-server trigger) never sees a delivery vanish.
	attempts, pending := []map[string]any{}, []map[string]any{}
	for _, p := range d.s.PendingDeliveries() {
		pending = append(pending, pendingJSON(p))
	}
	for _, a := range d.s.Deliveries() {
		attempts = append(attempts, attemptJSON(a))
	}
	return map[string]any{"attempts": attempts, "pending": pending}, nil
}

// resend serves POST /_scribetest/events/{id}/resend.
func (d *devServer) resend(r *http.Request, _ *struct{}) (any, error) {
	id := r.PathValue("id")
	if err := d.s.Resend(id); err != nil {
		return nil, err
	}
	return map[string]string{"event_id": id}, nil
}

// requests serves GET /_scribetest/requests: the request log, or with
// installation=UUID (repeatable) the requests of those installations, and
// with status=2xx, 4xx or 5xx those answered so.
func (d *devServer) requests(r *http.Request, _ *struct{}) (any, error) {
	of, class := r.URL.Query()["installation"], r.URL.Query().Get("status")
	if class != "" && !slices.Contains(statusClasses, class) {
		return nil, fmt.Errorf("status %s: give one of %s", redact.Quote(class, 16), strings.Join(statusClasses, ", "))
	}
	out := []map[string]any{}
	for _, req := range d.s.Requests() {
		if (len(of) == 0 || slices.Contains(of, req.Installation) && req.Installation != "") && inClass(req, class) {
			out = append(out, requestJSON(req))
		}
	}
	return map[string]any{"requests": out}, nil
}

// inClass reports whether r was answered with a status of class (2xx, 4xx,
// 5xx; "" is any).
func inClass(r scribetest.Request, class string) bool {
	return class == "" || strconv.Itoa(r.Status/100)+"xx" == class
}

// listEvents serves GET /_scribetest/events: the events the server keeps,
// newest first, or with installation=UUID those about it.
func (d *devServer) listEvents(r *http.Request, _ *struct{}) (any, error) {
	events, _ := d.s.Events(0, maxRecords)
	of, out := r.URL.Query().Get("installation"), []map[string]any{}
	for _, ev := range events {
		if of == "" || strings.EqualFold(of, ev.InstallationUUID) {
			out = append(out, eventJSON(ev))
		}
	}
	return map[string]any{"events": out}, nil
}

// addCheck serves POST /_scribetest/checks: a result of check-receiver.
func (d *devServer) addCheck(_ *http.Request, b *checkBody) (any, error) {
	return d.checks.add(b, d.s.Clock().Now())
}

// listChecks serves GET /_scribetest/checks: the results kept, oldest first.
func (d *devServer) listChecks(*http.Request, *struct{}) (any, error) {
	return map[string]any{"checks": d.checks.all()}, nil
}

// reset serves POST /_scribetest/reset: Reset, then check-receiver's
// results are forgotten too (they name events Reset forgot).
func (d *devServer) reset(*http.Request, *struct{}) (any, error) {
	if err := d.s.Reset(); err != nil {
		return nil, err
	}
	d.checks.clear()
	return struct{}{}, nil
}

type sceneBody struct {
	PluginID    int64 `json:"plugin_id"`
	Uninstalled bool  `json:"uninstalled"`
}

// scene serves POST /_scribetest/scenes, what "check-receiver -server"
// makes for each event it sends (DELETE /_scribetest/users/{id} removes it).
func (d *devServer) scene(_ *http.Request, b *sceneBody) (any, error) {
	in, tr, err := d.s.CreateScene(b.PluginID, b.Uninstalled)
	return map[string]any{"installation": in, "transcript": tr}, err
}

// triggerBody is the body of POST /_scribetest/trigger. With uri, the
// plugin's webhook of that URI is used or created (answered with its
// secret) first; but a trigger refused for its plugin or type creates none.
type triggerBody struct {
	PluginID int64  `json:"plugin_id"`
	Type     string `json:"type"`
	URI      string `json:"uri"`
}

func (d *devServer) trigger(_ *http.Request, b *triggerBody) (any, error) {
	typ := webhook.EventType(b.Type)
	if err := d.s.CanTrigger(b.PluginID, typ); err != nil {
		return nil, err
	}
	out := map[string]any{}
	if b.URI != "" {
		hook, created, err := d.webhookOf(b.PluginID, b.URI)
		if err != nil {
			return nil, err
		}
		out["webhook"] = hook
		if created {
			out["created"] = true
		}
	}
	events, err := d.s.Trigger(b.PluginID, typ)
	if err != nil {
		return nil, err
	}
	list := make([]map[string]any, len(events))
	for i, e := range events {
		list[i] = map[string]any{"id": e.ID, "type": e.Type}
	}
	out["events"] = list
	return out, nil
}

// webhookOf returns the plugin's first webhook of uri, or creates one
// (created): concurrent triggers naming one URI share one webhook.
func (d *devServer) webhookOf(plugin int64, uri string) (hook scribe.Webhook, created bool, err error) {
	d.hooks.Lock()
	defer d.hooks.Unlock()
	hooks := d.s.Webhooks(plugin)
	if i := slices.IndexFunc(hooks, func(h scribe.Webhook) bool { return h.URI == uri }); i >= 0 {
		return hooks[i], false, nil
	}
	hook, err = d.s.CreateWebhook(plugin, uri)
	return hook, err == nil, err
}
