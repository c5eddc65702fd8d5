// Package browsertest tests the reference server's dashboard
// (devserver.DashboardPath) in a real browser: Debian's chromium, driven
// with github.com/chromedp/chromedp. It is a module of its own, so that
// chromedp stays out of the SDK's module graph; scripts/browser-tests
// installs chromium if it is missing and runs it once, as CI does.
//
// Run with -docs to write the screenshots into the repository's docs/
// folder, where docs/server.md shows them:
//
//	cd scribetest/browsertest && go test -count=1 -docs
package browsertest
