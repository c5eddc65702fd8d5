package devserver

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	scribe "github.com/scribehq/scribe-go"
	"github.com/scribehq/scribe-go/internal/redact"
	"github.com/scribehq/scribe-go/scribetest"
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
	Checks        []checkView // newest first
}

// checkView is a result of check-receiver.
type checkView struct {
	Time, Receiver, Rule, Claim, Verdict, Detail string
	Class                                        string // ok, failed or pending
	Events                                       []string
}

// overviewChecks is how many results of check-receiver the overview shows.
const overviewChecks = 50

// checkRows are the newest results of check-receiver, newest first.
func (d *dashboard) checkRows() []checkView {
	var out []checkView
	verdicts := map[string][2]string{"pass": {"PASS", "ok"}, "fail": {"FAIL", "failed"}, "not_checked": {"NOT CHECKED", "pending"}}
	for _, c := range slices.Backward(d.d.checks.all()) {
		if len(out) == overviewChecks {
			break
		}
		v := verdicts[c.Verdict]
		out = append(out, checkView{Time: clock(c.Time), Receiver: c.Receiver, Rule: c.Rule, Claim: c.Claim, Verdict: v[0], Class: v[1], Detail: c.Detail, Events: c.Events})
	}
	return out
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
	users := map[int64]scribe.User{}
	for _, u := range d.s.Users() {
		users[u.ID] = u
	}
	for _, p := range d.s.Plugins() {
		dev := users[p.UserID]
		pv := pluginView{ID: p.ID, Name: p.Name, Developer: name(p.UserID, dev.FirstName, dev.LastName), State: pluginState(p),
			Permissions: "user " + string(p.Permissions.User) + ", transcript " + string(p.Permissions.Transcript)}
		for _, k := range d.s.SecretKeys(p.ID) {
			pv.SecretKeys = append(pv.SecretKeys, k.Value.String()+" ("+k.Description+")")
		}
		v.Plugins = append(v.Plugins, pv)
		plugin := strconv.FormatInt(p.ID, 10) + " " + p.Name
		for _, in := range d.s.Installations(p.ID) {
			iv := installationView{UUID: in.UUID, Plugin: plugin, Installed: in.DeletedOn == nil, Since: clock(in.CreatedOn),
				User: name(in.UserID, in.FirstName, in.LastName)}
			if in.DeletedOn != nil {
				iv.Since = clock(*in.DeletedOn)
			}
			v.Installations = append(v.Installations, iv)
		}
		for _, h := range d.s.Webhooks(p.ID) {
			v.Webhooks = append(v.Webhooks, webhookView{ID: h.ID, Plugin: plugin, URI: redact.Text(h.URI), Secret: h.SigningSecret.String()})
		}
	}
	v.Counts, v.Checks = d.counts(), d.checkRows()
	return v
}

// name is a user's id and name.
func name(id int64, first, last string) string {
	return strconv.FormatInt(id, 10) + " " + strings.TrimSpace(first+" "+last)
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
// failures as the server's records keep them (a settled delivery as its
// last final attempt says), and requests.
func (d *dashboard) counts() []countView {
	_, events := d.s.Events(0, 0)
	pending := len(d.s.PendingDeliveries())
	type delivery struct {
		event string
		hook  int64
	}
	settled := map[delivery]bool{} // delivered or not
	attempts, failedAttempts, delivered, failed := 0, 0, 0, 0
	for _, a := range d.s.Deliveries() {
		if attempts++; !a.Delivered {
			failedAttempts++
		}
		if a.Final {
			settled[delivery{a.EventID, a.WebhookID}] = a.Delivered
		}
	}
	for _, ok := range settled {
		if ok {
			delivered++
		} else {
			failed++
		}
	}
	reqs, refused := d.s.RequestCount(), 0
	for _, r := range d.s.Requests() {
		if r.Status == 0 || r.Status >= 400 {
			refused++
		}
	}
	return []countView{
		{Label: "events", N: events, Note: "emitted"},
		{Label: "deliveries", N: delivered + failed + pending, Note: strconv.Itoa(delivered) + " delivered, " + strconv.Itoa(pending) + " pending"},
		{Label: "failed deliveries", N: failed, Note: "gave up, or refused permanently", Bad: failed > 0},
		{Label: "failed attempts", N: failedAttempts, Note: "of " + strconv.Itoa(attempts) + " attempts", Bad: failedAttempts > 0},
		{Label: "requests", N: reqs, Note: strconv.Itoa(refused) + " refused or failed", Bad: refused > 0},
	}
}

// requestsView is the request log page: one page of the requests the
// status and installation filters select, newest first.
type requestsView struct {
	Installation string // the filter, "" for none
	Filters      []linkView
	Rows         []requestView
	Pager        pagerView
	Total        int // how many requests the server answered, the log keeping the last 10,000
}

type linkView struct {
	Label, URL string
	Current    bool
}

type requestView struct {
	Time, Method, Path, Status, Code, Credential, RequestID, Latency string
	Class                                                            string // ok, redirect, refused or failed
	Installation, Events                                             string // its installation, and that one's events page
	Log                                                              string // the request log of its installation
}

// statusClasses are the request log's filters, by status class.
var statusClasses = []string{"2xx", "4xx", "5xx"}

// requestsView reads one page of the request log, of installation if not "".
func (d *dashboard) requestsView(class, installation string, n int) requestsView {
	if !slices.Contains(statusClasses, class) {
		class = ""
	}
	v := requestsView{Total: d.s.RequestCount(), Installation: installation}
	for _, c := range append([]string{""}, statusClasses...) {
		label := c
		if c == "" {
			label = "all"
		}
		v.Filters = append(v.Filters, linkView{Label: label, URL: requestsURL(c, installation, 1), Current: c == class})
	}
	matched, first := 0, (n-1)*requestsPerPage
	for _, r := range slices.Backward(d.s.Requests()) {
		if !inClass(r, class) || installation != "" && !strings.EqualFold(r.Installation, installation) {
			continue
		}
		if matched >= first && matched < first+requestsPerPage {
			v.Rows = append(v.Rows, requestRow(r))
		}
		matched++
	}
	v.Pager = newPager(n, requestsPerPage, matched, func(n int) string { return requestsURL(class, installation, n) })
	return v
}

func requestsURL(class, installation string, n int) string {
	q := url.Values{}
	if class != "" {
		q.Set("status", class)
	}
	if installation != "" {
		q.Set("installation", installation)
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
var credentialNames = map[scribetest.CredentialKind]string{
	scribetest.CredentialNone: "none", scribetest.CredentialDeveloperKey: "developer key", scribetest.CredentialInstallationJWT: "installation JWT",
}

func requestRow(r scribetest.Request) requestView {
	v := requestView{Time: clock(r.Time), Method: r.Method, Path: r.Path, Code: r.Code,
		Credential: credentialNames[r.Credential], RequestID: r.RequestID, Latency: millisText(r.Duration), Installation: r.Installation}
	if r.Installation != "" {
		v.Events, v.Log = eventsURL(r.Installation, 1), requestsURL("", r.Installation, 1)
	}
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
