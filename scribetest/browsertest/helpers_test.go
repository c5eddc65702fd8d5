package browsertest

import (
	"context"
	"flag"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/scribetest/devserver"
	"github.com/scribehq/scribe-go/webhook"
)

var docs = flag.Bool("docs", false, "write the screenshots into ../../docs")

// liveLimit is how soon the dashboard shows a new attempt or request
// without a reload: within 5 s, as docs/server.md promises.
const liveLimit = 5 * time.Second

// chromium returns the browser to drive: $CHROMIUM, or chromium on the PATH.
// Without one the test is skipped, or fails when CI is set.
func chromium(t *testing.T) string {
	t.Helper()
	path := os.Getenv("CHROMIUM")
	if path == "" {
		path, _ = exec.LookPath("chromium")
	}
	if path == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no chromium: install Debian's chromium package (scripts/browser-tests does)")
		}
		t.Skip("no chromium on the PATH; scripts/browser-tests installs it")
	}
	return path
}

// browser starts a headless chromium with a fresh profile, with the flags
// a machine without a network needs and extra, and returns a tab's context.
func browser(t *testing.T, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	opts := append(append(chromedp.DefaultExecAllocatorOptions[:], extra...),
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-dev-shm-usage", true),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancel(); cancelTab(); cancelAlloc() })
	return ctx
}

// tab is the browser tab a test drives, and the HTML of the pages it saw.
type tab struct {
	t     *testing.T
	ctx   context.Context
	pages map[string]string
}

func (b *tab) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// submit clicks a form's button and waits for the page the form leads to,
// which must be served with 200 (after the server's redirect).
func (b *tab) submit(what, button string) {
	b.t.Helper()
	resp, err := chromedp.RunResponse(b.ctx, chromedp.Click(chromedp.CSS(button)))
	if err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
	if resp.Status != http.StatusOK {
		b.t.Fatalf("%s: the form led to a %d page", what, resp.Status)
	}
}

// eval evaluates a JavaScript expression in the page.
func (b *tab) eval(what, expr string) any {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[any](expr))
	if err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
	return v
}

// poll waits until the expression holds in the page, at most liveLimit.
func (b *tab) poll(what, expr string) {
	b.t.Helper()
	_, err := chromedp.Run(b.ctx, chromedp.Poll[chromedp.Void](expr,
		chromedp.WithPollingTimeout(liveLimit), chromedp.WithPollingInterval(100*time.Millisecond)))
	if err != nil {
		b.t.Fatalf("%s (%v): %v", what, liveLimit, err)
	}
}

// snapshot keeps the page's HTML, to check for secrets.
func (b *tab) snapshot(name string) {
	b.t.Helper()
	html, err := chromedp.Run(b.ctx, chromedp.OuterHTML(chromedp.CSS("html")))
	if err != nil {
		b.t.Fatalf("reading the page: %v", err)
	}
	b.pages[name] = html
}

// screenshots takes a screenshot of each page: into ../../docs with -docs,
// otherwise into a temporary folder.
func (b *tab) screenshots(ui string) {
	b.t.Helper()
	dir := b.t.TempDir()
	if *docs {
		dir = filepath.Join("..", "..", "docs")
	}
	for _, p := range []struct{ name, path, ready string }{
		{"overview", "", "form.trigger"},
		{"events", "events", "#events"},
		{"requests", "requests", "#requests"},
	} {
		b.do("opening "+p.name, chromedp.Navigate(ui+p.path), chromedp.WaitVisible(chromedp.CSS(p.ready)))
		png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
		if err != nil {
			b.t.Fatalf("screenshot of %s: %v", p.name, err)
		}
		b.snapshot(p.name)
		file := filepath.Join(dir, "dashboard-"+p.name+".png")
		if err := os.WriteFile(file, png, 0o644); err != nil {
			b.t.Fatal(err)
		}
		b.t.Logf("screenshot: %s", file)
	}
}

// newTab starts a browser (browser's extra flags) and returns its tab.
func newTab(t *testing.T, extra ...chromedp.ExecAllocatorOption) *tab {
	t.Helper()
	return &tab{t: t, ctx: browser(t, extra...), pages: map[string]string{}}
}

// startServer starts a server with the demo data set, a silent log and
// opts, served by its dev server with the admin API and the dashboard.
func startServer(t *testing.T, opts ...scribetest.Option) *scribetest.Server {
	t.Helper()
	opts = append([]scribetest.Option{scribetest.WithFixtures(scribetest.DemoFixtures()), scribetest.WithLogger(slog.New(slog.DiscardHandler))}, opts...)
	s, err := scribetest.NewUnstartedServer(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	dev, err := devserver.New(s, devserver.WithAdminAPI())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.StartWith(dev); err != nil {
		t.Fatal(err)
	}
	return s
}

// openOverview opens the dashboard's overview at ui, in a 1280×900 window,
// and waits for its trigger form.
func (b *tab) openOverview(ui string) {
	b.t.Helper()
	b.do("opening the overview", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(ui), chromedp.WaitVisible(chromedp.CSS("form.trigger")))
}

// trigger fills the overview's form to emit typ to plugin 100's webhook of
// uri, submits it and waits for the page it leads to.
func (b *tab) trigger(typ webhook.EventType, uri string) {
	b.t.Helper()
	what := "triggering " + string(typ)
	b.do(what,
		chromedp.SetValue(chromedp.CSS(`select[name="plugin_id"]`), "100"),
		chromedp.SetValue(chromedp.CSS(`select[name="type"]`), string(typ)),
		chromedp.SendKeys(chromedp.CSS(`input[name="uri"]`), uri),
	)
	b.submit(what, "form.trigger button")
}
