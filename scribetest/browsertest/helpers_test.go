package browsertest

import (
	"context"
	"flag"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
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
