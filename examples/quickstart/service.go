package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"time"

	"github.com/scribehq/scribe-go"
)

// developerKey is the stand-in service's only credential.
const developerKey = "dk_live_quickstart_0123456789"

// service is a tiny in-memory stand-in for the three /plugins operations the
// quickstart calls, with the contract's envelope, problem documents and
// Request-Id header. It is not the reference server (see package scribetest).
type service struct {
	key     string
	mu      sync.Mutex
	plugins []scribe.Plugin
	nextKey int64
	reqs    int
}

func startService(key string) *httptest.Server {
	now := time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)
	s := &service{key: key, nextKey: 1}
	for i, name := range []string{"CRM sync", "Action items", "Call scorer"} {
		s.plugins = append(s.plugins, scribe.Plugin{
			ID: int64(100 + i), Name: name, UserID: 7, Published: i != 2,
			Permissions: scribe.Permissions{User: scribe.PermissionRead, Transcript: scribe.PermissionRead},
			CreatedOn:   now, UpdatedOn: now,
		})
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/plugins", s.listPlugins)
	mux.HandleFunc("GET /v1/plugins/{id}", s.getPlugin)
	mux.HandleFunc("POST /v1/plugins", s.createPlugin)
	mux.HandleFunc("POST /v1/plugins/{id}/secret_keys", s.createSecretKey)
	return httptest.NewServer(s.authenticate(mux))
}

func (s *service) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.reqs++
		w.Header().Set("Request-Id", fmt.Sprintf("req_%04d", s.reqs))
		s.mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+s.key {
			problem(w, http.StatusUnauthorized, scribe.CodeInvalidToken, "unknown developer key")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *service) listPlugins(w http.ResponseWriter, r *http.Request) {
	limit, after := 20, int64(0)
	if v := r.URL.Query().Get("limit"); v != "" {
		limit, _ = strconv.Atoi(v)
	}
	if v := r.URL.Query().Get("after_id"); v != "" {
		after, _ = strconv.ParseInt(v, 10, 64)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	page := []scribe.Plugin{}
	hasMore := false
	for _, p := range s.plugins {
		if p.ID <= after {
			continue
		}
		if len(page) == limit {
			hasMore = true
			break
		}
		page = append(page, p)
	}
	reply(w, http.StatusOK, map[string]any{"has_more": hasMore, "total_count": len(s.plugins), "data": page})
}

func (s *service) getPlugin(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.plugins {
		if p.ID == id {
			reply(w, http.StatusOK, p)
			return
		}
	}
	problem(w, http.StatusNotFound, scribe.CodeNotFound, fmt.Sprintf("plugin %d does not exist", id))
}

func (s *service) createPlugin(w http.ResponseWriter, r *http.Request) {
	var p scribe.Plugin
	if err := json.NewDecoder(r.Body).Decode(&p); err != nil || p.Name == "" {
		problem(w, http.StatusBadRequest, scribe.CodeValidationFailed, "name is required")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now().UTC().Truncate(time.Second)
	p.ID, p.UserID, p.Published, p.Disabled, p.CreatedOn, p.UpdatedOn =
		s.plugins[len(s.plugins)-1].ID+1, 7, false, false, now, now
	s.plugins = append(s.plugins, p)
	reply(w, http.StatusCreated, p)
}

func (s *service) createSecretKey(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Description string `json:"description"`
	}
	_ = json.NewDecoder(r.Body).Decode(&body)
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now().UTC().Truncate(time.Second)
	k := map[string]any{
		"id": s.nextKey, "description": body.Description, "plugin_id": id,
		"value":      "ask_live_" + "cXVpY2tzdGFydC1ub3QtYS1yZWFsLWtleS0wMTIzNDU2Nzg5",
		"created_on": now, "updated_on": now,
	}
	s.nextKey++
	reply(w, http.StatusCreated, k)
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func problem(w http.ResponseWriter, status int, code, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"type": "about:blank", "title": http.StatusText(status), "status": status,
		"detail": detail, "code": code, "request_id": w.Header().Get("Request-Id"),
	})
}
