// Package devserver serves a scribetest.Server as a dev server, the way
// cmd/scribe-server runs it: the service's operations, a health check at
// HealthPath, and, with WithAdminAPI, an HTTP admin API under PathPrefix
// that drives the server as the Go seeding calls do (for tests written in
// another language) and a dashboard at DashboardPath (for people). It is
// built on scribetest's exported API alone.
//
// In a Go test, serve it on the server's own address with StartWith:
//
//	s, _ := scribetest.NewUnstartedServer()
//	h, _ := devserver.New(s, devserver.WithAdminAPI())
//	_ = s.StartWith(h)
//	defer s.Close()
//
// api/admin.yaml describes every admin operation; docs/server.md, "The
// admin API" and "Dashboard", explains them.
package devserver

import (
	"errors"
	"net/http"
	"strings"
	"sync"

	"github.com/scribehq/scribe-go/internal/hostcheck"
	"github.com/scribehq/scribe-go/scribetest"
)

// PathPrefix begins every path of the admin API, the dashboard and the
// health check. It is not below the server's base path, and no operation
// of the contract begins with it.
const PathPrefix = "/_scribetest/"

// HealthPath answers GET with 200 {"status":"ok"} once the server serves,
// with or without the admin API: the one path under PathPrefix that needs
// no WithAdminAPI. scribe-server healthcheck asks it.
const HealthPath = PathPrefix + "healthz"

// DashboardPath is the path of the dashboard's overview page, served with
// the admin API: http://127.0.0.1:8080/_scribetest/ui/ for the binary's
// default address.
const DashboardPath = PathPrefix + "ui/"

// Option configures the dev server New returns.
type Option func(*config) error

type config struct {
	admin bool
}

// WithAdminAPI enables the admin API under PathPrefix and the dashboard
// at DashboardPath (the binary's -admin). It takes no credentials, so it
// is off unless enabled: serve it on loopback only. Its requests are not
// in the server's request log, not rate limited and not faulted; a POST,
// PATCH, PUT or DELETE that a browser sends from a page of another origin
// is refused with 403.
func WithAdminAPI() Option {
	return func(cfg *config) error {
		cfg.admin = true
		return nil
	}
}

// New returns the dev server of srv: srv's Handler, with HealthPath and,
// with WithAdminAPI, the admin API and the dashboard. It serves srv until
// srv is closed; serve it with srv.StartWith, or mount it in an
// http.Server of your own. A nil srv, or an Option that fails, is an error.
func New(srv *scribetest.Server, opts ...Option) (http.Handler, error) {
	if srv == nil {
		return nil, errors.New("devserver: New: the server is nil")
	}
	var cfg config
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	d := &devServer{s: srv, next: srv.Handler()}
	if cfg.admin {
		d.admin = d.adminHandler()
	}
	return d, nil
}

// devServer serves one scribetest.Server.
type devServer struct {
	s      *scribetest.Server
	next   http.Handler // the service
	admin  http.Handler // nil without WithAdminAPI
	hooks  sync.Mutex   // serializes finding or making a webhook for a trigger
	checks checks       // check-receiver's results (checks.go)
}

func (d *devServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case !d.s.AllowsHost(r.Host): // DNS rebinding: docs/server.md, "Security"
		hostcheck.Refuse(w, r)
	case r.URL.Path == HealthPath && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		health(w)
	case d.admin == nil || !strings.HasPrefix(r.URL.Path, PathPrefix):
		d.next.ServeHTTP(w, r) // without the admin API, the contract's 404
	default:
		d.admin.ServeHTTP(w, r) // outside the service: not logged, limited nor faulted
	}
}

// health answers HealthPath.
func health(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
