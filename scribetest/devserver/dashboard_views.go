package scribetest

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/redact"
	"github.com/scribehq/scribe-go/webhook"
)

// The views the dashboard's templates render. They hold strings and
// numbers only: every secret is already in the SDK's redacted form
// (whsec_[REDACTED], ask_live_[REDACTED]), and free text a secret may have
// reached (a URI, a query, an error) has passed redact.Text.

// overviewView is the overview page.
type overviewView struct {
	Counts        []countView
	Plugins       []pluginView
	Installations []installationView
	Webhooks      []webhookView
	EventTypes    []webhook.EventType
}

// countView is one of the overview's figures.
type countView struct {
	Label string
	N     int
	Note  string
	Bad   bool // a failure worth a look
}

type pluginView struct {
	ID                           int64
	Name, Developer, Permissions string
	State                        string // published, unpublished or disabled
	SecretKeys                   []string
}

type installationView struct {
	UUID, Plugin, User string
	Installed          bool
	Since              string // when installed, or uninstalled
}

type webhookView struct {
	ID                  int64
	Plugin, URI, Secret string
}

// overviewView reads the server's resources and its records' counts.
func (d *dashboard) overviewView() overviewView {
	v := overviewView{EventTypes: []webhook.EventType{webhook.EventTranscriptCreated, webhook.EventTranscriptUpdated,
		webhook.EventInstallationCreated, webhook.EventInstallationDeleted}}
	for _, p := range d.s.Plugins() {
		pv := pluginView{ID: p.ID, Name: p.Name, Developer: d.userName(p.UserID), State: pluginState(p),
			Permissions: "user " + string(p.Permissions.User) + ", transcript " + string(p.Permissions.Transcript)}
		for _, k := range d.s.SecretKeys(p.ID) {
			pv.SecretKeys = append(pv.SecretKeys, k.Value.String()+" ("+k.Description+")")
		}
		v.Plugins = append(v.Plugins, pv)
		plugin := strconv.FormatInt(p.ID, 10) + " " + p.Name
		for _, in := range d.s.Installations(p.ID) {
			iv := installationView{UUID: in.UUID, Plugin: plugin, Installed: in.DeletedOn == nil, Since: clock(in.CreatedOn),
				User: strconv.FormatInt(in.UserID, 10) + " " + strings.TrimSpace(in.FirstName+" "+in.LastName)}
			if in.DeletedOn != nil {
				iv.Since = clock(*in.DeletedOn)
			}
			v.Installations = append(v.Installations, iv)
		}
		for _, h := range d.s.Webhooks(p.ID) {
			v.Webhooks = append(v.Webhooks, webhookView{ID: h.ID, Plugin: plugin, URI: redact.Text(h.URI), Secret: h.SigningSecret.String()})
		}
	}
	v.Counts = d.counts()
	return v
}

// userName is a user's id and name.
func (d *dashboard) userName(id int64) string {
	u, _ := d.s.st.User(id)
	return strconv.FormatInt(id, 10) + " " + strings.TrimSpace(u.FirstName+" "+u.LastName)
}

func pluginState(p scribe.Plugin) string {
	switch {
	case p.Disabled:
		return "disabled"
	case p.Published:
		return "published"
	}
	return "unpublished"
}

// counts are the overview's figures: events, deliveries, attempts and
// failures as the delivery engine's records keep them, and requests.
func (d *dashboard) counts() []countView {
	t := d.s.deliveries.tally()
	reqs, failed := d.s.RequestCount(), 0
	for r := range d.s.requests.Backward {
		if r.Status == 0 || r.Status >= 400 {
			failed++
		}
	}
	return []countView{
		{Label: "events", N: t.events, Note: "emitted"},
		{Label: "deliveries", N: t.deliveries, Note: strconv.Itoa(t.delivered) + " delivered, " + strconv.Itoa(t.pending) + " pending"},
		{Label: "failed deliveries", N: t.failed, Note: "gave up, or refused permanently", Bad: t.failed > 0},
		{Label: "failed attempts", N: t.failedAttempts, Note: "of " + strconv.Itoa(t.attempts) + " attempts", Bad: t.failedAttempts > 0},
		{Label: "requests", N: reqs, Note: strconv.Itoa(failed) + " refused or failed", Bad: failed > 0},
	}
}

// requestsView is the request log page: one page of the requests the
// status filter selects, newest first.
type requestsView struct {
	Filters []linkView
	Rows    []requestView
	Pager   pagerView
	Total   int // how many requests the server answered, the log keeping the last 10,000
}

type linkView struct {
	Label, URL string
	Current    bool
}

type requestView struct {
	Time, Method, Path, Status, Code, Credential, RequestID, Latency string
	Class                                                            string // ok, redirect, refused or failed
}

// statusClasses are the request log's filters, by status class.
var statusClasses = []string{"2xx", "4xx", "5xx"}

// requestsView reads one page of the request log.
func (d *dashboard) requestsView(class string, n int) requestsView {
	if !slices.Contains(statusClasses, class) {
		class = ""
	}
	v := requestsView{Total: d.s.RequestCount()}
	for _, c := range append([]string{""}, statusClasses...) {
		label := c
		if c == "" {
			label = "all"
		}
		v.Filters = append(v.Filters, linkView{Label: label, URL: requestsURL(c, 1), Current: c == class})
	}
	matched, first := 0, (n-1)*requestsPerPage
	for r := range d.s.requests.Backward {
		if class != "" && strconv.Itoa(r.Status/100)+"xx" != class {
			continue
		}
		if matched >= first && matched < first+requestsPerPage {
			v.Rows = append(v.Rows, requestRow(r))
		}
		matched++
	}
	v.Pager = newPager(n, requestsPerPage, matched, func(n int) string { return requestsURL(class, n) })
	return v
}

func requestsURL(class string, n int) string {
	q := url.Values{}
	if class != "" {
		q.Set("status", class)
	}
	if n > 1 {
		q.Set("page", strconv.Itoa(n))
	}
	if len(q) == 0 {
		return DashboardPath + "requests"
	}
	return DashboardPath + "requests?" + q.Encode()
}

// credentialNames are how the request log names each kind of credential.
var credentialNames = map[CredentialKind]string{
	CredentialNone: "none", CredentialDeveloperKey: "developer key", CredentialInstallationJWT: "installation JWT",
}

func requestRow(r Request) requestView {
	v := requestView{Time: clock(r.Time), Method: r.Method, Path: r.Path, Code: r.Code,
		Credential: credentialNames[r.Credential], RequestID: r.RequestID, Latency: millis(r.Duration)}
	if r.Query != "" {
		v.Path += "?" + r.Query // both redacted by the request log
	}
	switch {
	case r.Status == 0:
		v.Status, v.Class = "no answer", "failed"
	case r.Status >= 500:
		v.Status, v.Class = strconv.Itoa(r.Status), "failed"
	case r.Status >= 400:
		v.Status, v.Class = strconv.Itoa(r.Status), "refused"
	case r.Status >= 300:
		v.Status, v.Class = strconv.Itoa(r.Status), "redirect"
	default:
		v.Status, v.Class = strconv.Itoa(r.Status), "ok"
	}
	return v
}

// pagerView links a page of a list to its neighbours.
type pagerView struct {
	Page, Pages        int
	First, Last, Total int // the items shown, counted from 1
	Prev, Next         string
}

// newPager is page n of total items, per a page; link gives a page's URL.
func newPager(n, per, total int, link func(int) string) pagerView {
	p := pagerView{Page: n, Pages: max(1, (total+per-1)/per), Total: total}
	if first := (n - 1) * per; first < total {
		p.First, p.Last = first+1, min(first+per, total)
	}
	if n > 1 {
		p.Prev = link(min(n-1, p.Pages))
	}
	if n < p.Pages {
		p.Next = link(n + 1)
	}
	return p
}
