package scribetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/apijson"
	"github.com/scribehq/scribe-go/scribetest/internal/httpapi"
	"github.com/scribehq/scribe-go/webhook"
)

// AdminPathPrefix begins every path of the admin API that WithAdminAPI
// enables. It is not below the base path, and no operation of the contract
// begins with it.
const AdminPathPrefix = "/_scribetest/"

// adminHandler serves the admin API, and the rest with next.
func (s *Server) adminHandler(next http.Handler) http.Handler {
	mux := http.NewServeMux()
	p := strings.TrimSuffix(AdminPathPrefix, "/")
	mux.HandleFunc("POST "+p+"/installations", adminOp(s.adminInstall))
	mux.HandleFunc("DELETE "+p+"/installations/{uuid}", adminOp(s.adminUninstall))
	mux.HandleFunc("POST "+p+"/transcripts", adminOp(s.adminCreateTranscript))
	mux.HandleFunc("PATCH "+p+"/transcripts/{id}", adminOp(s.adminUpdateTranscript))
	mux.HandleFunc("POST "+p+"/webhooks", adminOp(s.adminCreateWebhook))
	mux.HandleFunc("GET "+p+"/deliveries", adminOp(s.adminDeliveries))
	mux.HandleFunc("POST "+p+"/trigger", adminOp(s.adminTrigger))
	mux.HandleFunc("POST "+p+"/events/{id}/resend", adminOp(s.adminResend))
	mux.HandleFunc("GET "+p+"/requests", adminOp(s.adminRequests))
	mux.HandleFunc("POST "+p+"/scenes", adminOp(s.adminScene))
	s.mountDashboard(mux)
	mux.HandleFunc(AdminPathPrefix, func(w http.ResponseWriter, r *http.Request) {
		adminError(w, http.StatusNotFound, fmt.Errorf("no admin operation %s %q; see docs/server.md", r.Method, r.URL.Path))
	})
	admin := sameOrigin(mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case !strings.HasPrefix(r.URL.Path, AdminPathPrefix):
			next.ServeHTTP(w, r)
		default:
			if status, _, detail := httpapi.CheckHead(r); status != 0 {
				adminError(w, status, errors.New(detail))
			} else if !httpapi.CanonicalPath(r) { // no mux redirects
				adminError(w, http.StatusNotFound, errors.New(httpapi.NonCanonicalDetail(r)))
			} else {
				admin.ServeHTTP(w, r)
			}
		}
	})
}

// adminError answers {"error": "..."}, not problem+json: the admin API is
// not the contract's. Bytes that are not UTF-8 become U+FFFD.
func adminError(w http.ResponseWriter, status int, err error) {
	switch {
	case errors.Is(err, ErrNotFound):
		status = http.StatusNotFound
	case errors.Is(err, ErrConflict):
		status = http.StatusConflict
	}
	adminJSON(w, status, map[string]string{"error": strings.ToValidUTF8(err.Error(), "\uFFFD")})
}

func adminJSON(w http.ResponseWriter, status int, v any) {
	body, err := httpapi.Marshal(v) // with the signing secrets of the webhooks it answers
	if err != nil {
		http.Error(w, "encoding the answer failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// adminMaxBodyBytes admits a transcript as long as the largest event.
const adminMaxBodyBytes = MaxEventBytes

var adminJSONOptions = apijson.Strict()

// adminOp decodes a POST or PATCH body, one JSON object, strictly into a B,
// calls do and answers. An operation whose B is struct{} takes an empty body too.
func adminOp[B any](do func(r *http.Request, b *B) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var b B
		if r.Method == http.MethodPost || r.Method == http.MethodPatch {
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, adminMaxBodyBytes))
			if _, none := any(&b).(*struct{}); none && err == nil && len(body) == 0 {
				body = []byte("{}")
			}
			if err == nil {
				err = apijson.Unmarshal(body, &b, adminJSONOptions)
			}
			if err != nil {
				adminError(w, http.StatusBadRequest, fmt.Errorf("the body must be one JSON object of the documented members: %w", err))
				return
			}
		}
		out, err := do(r, &b)
		if err != nil {
			adminError(w, http.StatusBadRequest, err)
			return
		}
		adminJSON(w, http.StatusOK, out)
	}
}

type adminInstallation struct {
	PluginID int64 `json:"plugin_id"`
	UserID   int64 `json:"user_id"`
}

func (s *Server) adminInstall(_ *http.Request, b *adminInstallation) (any, error) {
	return s.Install(b.PluginID, b.UserID)
}

func (s *Server) adminUninstall(r *http.Request, _ *struct{}) (any, error) {
	return s.Uninstall(strings.ToLower(r.PathValue("uuid")))
}

// adminTranscript is the body of POST (user_id and others) and PATCH.
type adminTranscript struct {
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
func (b *adminTranscript) apply(t *scribe.Transcript) {
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

func (s *Server) adminCreateTranscript(_ *http.Request, b *adminTranscript) (any, error) {
	var t scribe.Transcript
	b.apply(&t)
	p := TranscriptParams{Headline: t.Headline, Text: t.Text, Type: t.Type, Job: t.Job, Audio: t.Audio,
		Metadata: make(map[string]any, len(b.Metadata))}
	for k, v := range b.Metadata {
		p.Metadata[k] = v
	}
	return s.CreateTranscript(b.UserID, p)
}

func (s *Server) adminUpdateTranscript(r *http.Request, b *adminTranscript) (any, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	switch {
	case err != nil || id < 1:
		return nil, fmt.Errorf("transcript id %q: must be a positive integer", r.PathValue("id"))
	case b.UserID != 0:
		return nil, errors.New("user_id: a transcript's owner cannot change")
	}
	return s.UpdateTranscript(id, b.apply)
}

// adminWebhook is the body of POST /_scribetest/webhooks; without
// signing_secret, the webhook gets a fresh one.
type adminWebhook struct {
	PluginID      int64  `json:"plugin_id"`
	URI           string `json:"uri"`
	SigningSecret string `json:"signing_secret"`
}

func (s *Server) adminCreateWebhook(_ *http.Request, b *adminWebhook) (any, error) {
	var secret webhook.Secret
	if b.SigningSecret != "" {
		var err error
		if secret, err = webhook.ParseSecret(b.SigningSecret); err != nil { // its errors never repeat the secret
			return nil, fmt.Errorf("signing_secret: %w", err)
		}
	}
	hook, _, err := s.webhookOf(b.PluginID, b.URI, false, secret)
	return hook, err
}

// adminAttempt is a DeliveryAttempt as the admin API lists it.
type adminAttempt struct {
	DeliveryAttempt
	DurationMS float64 `json:"duration_ms"`
}

// adminPending is a PendingDelivery as the admin API lists it: next_attempt
// is null when no attempt is timed.
type adminPending struct {
	PendingDelivery
	NextAttempt *time.Time `json:"next_attempt"`
}

func (s *Server) adminDeliveries(_ *http.Request, _ *struct{}) (any, error) {
	out := struct {
		Attempts []adminAttempt `json:"attempts"`
		Pending  []adminPending `json:"pending"`
	}{Attempts: []adminAttempt{}, Pending: []adminPending{}}
	for _, a := range s.Deliveries() {
		out.Attempts = append(out.Attempts, adminAttempt{a, float64(a.Duration) / float64(time.Millisecond)})
	}
	for _, p := range s.PendingDeliveries() {
		var next *time.Time
		if !p.NextAttempt.IsZero() {
			next = &p.NextAttempt
		}
		out.Pending = append(out.Pending, adminPending{p, next})
	}
	return out, nil
}

// adminResend serves POST /_scribetest/events/{id}/resend.
func (s *Server) adminResend(r *http.Request, _ *struct{}) (any, error) {
	id := r.PathValue("id")
	if err := s.Resend(id); err != nil {
		return nil, err
	}
	return map[string]string{"event_id": id}, nil
}

// adminRequests serves GET /_scribetest/requests: the request log, or with
// installation=UUID (repeatable) the requests of those installations.
func (s *Server) adminRequests(r *http.Request, _ *struct{}) (any, error) {
	of := r.URL.Query()["installation"]
	out := struct {
		Requests []adminRequest `json:"requests"`
	}{Requests: []adminRequest{}}
	for _, req := range s.Requests() {
		if len(of) == 0 || slices.Contains(of, req.Installation) && req.Installation != "" {
			out.Requests = append(out.Requests, adminRequest{req, float64(req.Duration) / float64(time.Millisecond)})
		}
	}
	return out, nil
}

// adminRequest is a Request as the admin API lists it.
type adminRequest struct {
	Request
	DurationMS float64 `json:"duration_ms"`
}

type adminSceneBody struct {
	PluginID    int64 `json:"plugin_id"`
	Uninstalled bool  `json:"uninstalled"`
}

// adminScene serves POST /_scribetest/scenes, what "check-receiver -server"
// makes for each event it sends.
func (s *Server) adminScene(_ *http.Request, b *adminSceneBody) (any, error) {
	in, tr, err := s.checkScene(b.PluginID, b.Uninstalled)
	return struct {
		Installation scribe.PluginInstallation `json:"installation"`
		Transcript   scribe.Transcript         `json:"transcript"`
	}{in, tr}, err
}

// adminTrigger serves POST /_scribetest/trigger. With uri, the plugin's
// webhook of that URI is used or created (answered with its secret) first;
// but a trigger refused for its plugin or type creates none.
type adminTriggerBody struct {
	PluginID int64  `json:"plugin_id"`
	Type     string `json:"type"`
	URI      string `json:"uri"`
}

func (s *Server) adminTrigger(_ *http.Request, b *adminTriggerBody) (any, error) {
	var out struct {
		Events  []TriggeredEvent `json:"events"`
		Webhook *scribe.Webhook  `json:"webhook,omitempty"`
		Created bool             `json:"created,omitempty"`
	}
	if err := s.triggerable(b.PluginID, webhook.EventType(b.Type)); err != nil {
		return nil, err
	}
	if b.URI != "" {
		hook, created, err := s.webhookOf(b.PluginID, b.URI, true, webhook.Secret{})
		if err != nil {
			return nil, err
		}
		out.Webhook, out.Created = &hook, created
	}
	events, err := s.Trigger(b.PluginID, webhook.EventType(b.Type))
	out.Events = events
	return out, err
}
