package devserver

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/scribehq/scribe-go/internal/redact"
	"github.com/scribehq/scribe-go/scribetest"
)

// The dashboard: three HTML pages over what the server records (the
// overview, events and deliveries, the request log), served with the admin
// API and read through scribetest's exported calls. Its actions are forms
// that call the admin operations' own code. The pages are rendered on the
// server with html/template from files embedded in the binary; a few lines
// of plain JavaScript refresh them in place. Nothing is loaded from the
// network, and no value the templates see holds a secret: the views are
// plain strings, secrets already in the SDK's redacted form.

//go:embed dashboard
var dashboardFiles embed.FS

// How many events and requests one page shows, and how many the server
// keeps of each record.
const (
	eventsPerPage   = 20
	requestsPerPage = 50
	maxRecords      = 10000
)

// dashboardCSP confines the pages to the server's own origin: no resource
// from the network, no inline script, no framing, forms posted only here.
const dashboardCSP = "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// dashboardPages are the pages' templates, each the layout with its content.
var dashboardPages = sync.OnceValue(func() map[string]*template.Template {
	funcs := template.FuncMap{"root": func() string { return DashboardPath }}
	layout := template.Must(template.New("").Funcs(funcs).ParseFS(dashboardFiles, "dashboard/layout.html"))
	pages := map[string]*template.Template{}
	for _, name := range []string{"overview", "events", "requests"} {
		pages[name] = template.Must(template.Must(layout.Clone()).ParseFS(dashboardFiles, "dashboard/"+name+".html"))
	}
	return pages
})

// dashboard serves the pages of one server.
type dashboard struct {
	d     *devServer
	s     *scribetest.Server
	pages map[string]*template.Template
}

// mountDashboard adds the dashboard's routes to the admin API's mux.
func (dev *devServer) mountDashboard(mux *http.ServeMux) {
	d := &dashboard{d: dev, s: dev.s, pages: dashboardPages()}
	static, _ := fs.Sub(dashboardFiles, "dashboard") // a directory embedded above: no error
	p := DashboardPath
	mux.Handle("GET "+strings.TrimSuffix(p, "/"), http.RedirectHandler(p, http.StatusMovedPermanently))
	mux.HandleFunc("GET "+p+"{$}", d.overview)
	mux.HandleFunc("GET "+p+"events", d.events)
	mux.HandleFunc("GET "+p+"requests", d.requests)
	mux.Handle("GET "+p+"static/", http.StripPrefix(p, http.FileServerFS(static)))
	mux.HandleFunc("POST "+p+"trigger", d.trigger)
	mux.HandleFunc("POST "+p+"installations/{uuid}/uninstall", d.uninstall)
	mux.HandleFunc("POST "+p+"events/{id}/resend", d.resend)
}

// page is what the layout renders: the page's name (its navigation entry)
// and title, the URL its live updates fetch, an action's refusal, if any,
// and the page's own view.
type page struct {
	Name, Title string
	Self        string
	Error       string
	View        any
}

// render writes the page with status, or a 500 if a template fails.
func (d *dashboard) render(w http.ResponseWriter, status int, p page) {
	var buf bytes.Buffer
	if err := d.pages[p.Name].ExecuteTemplate(&buf, "layout", p); err != nil {
		http.Error(w, "scribetest: rendering the dashboard failed: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", dashboardCSP)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func (d *dashboard) overview(w http.ResponseWriter, r *http.Request) {
	d.render(w, http.StatusOK, d.overviewPage(r.URL.RequestURI()))
}

func (d *dashboard) events(w http.ResponseWriter, r *http.Request) {
	d.render(w, http.StatusOK, d.eventsPage(r.URL.RequestURI(), r.URL.Query().Get("installation"), pageNumber(r)))
}

func (d *dashboard) requests(w http.ResponseWriter, r *http.Request) {
	d.render(w, http.StatusOK, page{Name: "requests", Title: "Request log", Self: r.URL.RequestURI(),
		View: d.requestsView(r.URL.Query().Get("status"), r.URL.Query().Get("installation"), pageNumber(r))})
}

func (d *dashboard) overviewPage(self string) page {
	return page{Name: "overview", Title: "Overview", Self: self, View: d.overviewView()}
}

func (d *dashboard) eventsPage(self, installation string, n int) page {
	return page{Name: "events", Title: "Events and deliveries", Self: self, View: d.eventsView(installation, n)}
}

// pageNumber reads the page parameter: 1 unless a positive number, and at
// most maxRecords, past the last page of any record.
func pageNumber(r *http.Request) int {
	n, err := strconv.Atoi(r.FormValue("page"))
	if err != nil || n < 1 {
		return 1
	}
	return min(n, maxRecords)
}

// maxFormBytes bounds an action's form: a plugin id, an event type and a URI.
const maxFormBytes = 16 << 10

// trigger serves the trigger form: the admin operation POST
// /_scribetest/trigger, then the events page.
func (d *dashboard) trigger(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	plugin, err := strconv.ParseInt(r.PostFormValue("plugin_id"), 10, 64)
	if err == nil {
		_, err = d.d.trigger(r, &triggerBody{PluginID: plugin, Type: r.PostFormValue("type"), URI: strings.TrimSpace(r.PostFormValue("uri"))})
	} else {
		err = errors.New("choose a plugin")
	}
	if err != nil {
		d.refuse(w, d.overviewPage(DashboardPath), err)
		return
	}
	http.Redirect(w, r, DashboardPath+"events", http.StatusSeeOther)
}

// uninstall serves an installation's Uninstall button: the admin operation
// DELETE /_scribetest/installations/{uuid}, then the overview.
func (d *dashboard) uninstall(w http.ResponseWriter, r *http.Request) {
	if _, err := d.d.uninstall(r, nil); err != nil {
		d.refuse(w, d.overviewPage(DashboardPath), err)
		return
	}
	http.Redirect(w, r, DashboardPath, http.StatusSeeOther)
}

// refuse renders p with the reason an action was refused.
func (d *dashboard) refuse(w http.ResponseWriter, p page, err error) {
	status := http.StatusBadRequest
	switch {
	case errors.Is(err, scribetest.ErrNotFound):
		status = http.StatusNotFound
	case errors.Is(err, scribetest.ErrConflict):
		status = http.StatusConflict
	}
	p.Error = redact.Text(err.Error())
	d.render(w, status, p)
}

// clock formats a time of the server's clock for the pages, in UTC to the
// millisecond; "" for the zero time.
func clock(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04:05.000")
}

// millisText formats a duration in milliseconds, to a tenth below 10 ms.
func millisText(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	if ms < 10 {
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.0f ms", ms)
}

// sameOrigin refuses, with 403, a POST, PATCH, PUT or DELETE that a browser sent
// from a page of another origin, as its Sec-Fetch-Site or Origin header says
// (http.CrossOriginProtection): a web page open in the developer's browser
// cannot make the admin API act. Requests without those headers, from curl
// or a test's HTTP client, pass. docs/server.md, "Dashboard", says why this
// fits an API without credentials.
func sameOrigin(h http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		adminError(w, http.StatusForbidden, fmt.Errorf("a browser sent %s %s from a page of another origin; the admin API acts only for its own pages (docs/server.md, \"Dashboard\")", r.Method, r.URL.Path))
	}))
	return cop.Handler(h)
}
