package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/scribehq/scribe-go/scribetest"
	"github.com/scribehq/scribe-go/scribetest/devserver"
)

// serveConfig is what the serving command's flags say.
type serveConfig struct {
	addr, basePath, fixtures, state string
	admin                           bool
	opts                            []scribetest.Option
}

// parseServe reads the serving command's flags; it returns nil, nil after
// printing the version.
func parseServe(args []string, stdout, stderr io.Writer) (*serveConfig, error) {
	fs := flag.NewFlagSet("scribe-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "`host:port` to listen on; port 0 picks a free one")
	fixtures := fs.String("fixtures", "", "fixture `file` (JSON, see docs/server.md); default: the built-in demo data set")
	state := fs.String("state", "", "keep the state in `dir` (created if missing) across restarts; an empty one is seeded from -fixtures or the demo data")
	basePath := fs.String("base-path", "", "path `prefix` of every operation, such as /v1")
	hosts := fs.String("allowed-hosts", "", "also answer the Host `names` a,b (such as a compose service name) besides localhost, *.localhost and IP addresses; any other host gets 403 (DNS rebinding)")
	admin := fs.Bool("admin", false, "enable the admin API under "+devserver.PathPrefix+" (no credentials: local use only)")
	var limit rateLimit
	budget := byteSize(scribetest.DefaultBodyBudget)
	fs.Var(&budget, "body-budget", "keep at most `size` (such as 256MiB) of event bodies, for resend, and receivers' answers; past it the oldest bodies go")
	fs.Var(&limit, "rate-limit", "limit each credential to `N/DURATION` requests, such as 10/1s (default: no limit)")
	scale := fs.Float64("webhook-schedule-scale", 1, "multiply every webhook retry delay by `factor` (a positive finite number; 0.001 for tests; delays stop at a week)")
	showVersion := fs.Bool("version", false, "print the version and exit")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: scribe-server [-addr host:port] [-state dir] [-fixtures file] [-base-path /v1] [-admin] [-allowed-hosts a,b] [-body-budget size] [-rate-limit N/DURATION] [-webhook-schedule-scale f]")
		fmt.Fprintln(fs.Output(), "       scribe-server healthcheck [-server URL]")
		fmt.Fprintln(fs.Output(), "       scribe-server trigger [-server URL] [-plugin ID] [-uri URI] [-wait 20s] EVENT_TYPE")
		fmt.Fprintln(fs.Output(), "       scribe-server resend [-server URL] [-wait 20s] EVENT_ID")
		fmt.Fprintln(fs.Output(), "       SCRIBE_WEBHOOK_SECRET=whsec_... scribe-server check-receiver [-timeout 15s] [-server URL [-plugin ID]] [-event TYPE]... [-require-checked] URL")
		fmt.Fprintln(fs.Output(), "       scribe-server -version")
		fmt.Fprintln(fs.Output(), "       scribe-server help")
		fmt.Fprintln(fs.Output(), "Runs the Plugin Integration Service in memory, for local testing.")
		fmt.Fprintln(fs.Output(), "healthcheck asks a running server whether it serves; trigger makes one (-admin) emit an event, resend sends one")
		fmt.Fprintln(fs.Output(), "again; check-receiver checks a webhook receiver against the delivery rules. Each takes -help.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	switch {
	case *showVersion:
		fmt.Fprintln(stdout, version())
		return nil, nil
	case fs.NArg() > 0:
		return nil, usagef("unexpected argument %q; see -help", fs.Arg(0))
	case !(*scale > 0) || math.IsInf(*scale, 0):
		return nil, usagef("-webhook-schedule-scale %v: give a positive finite factor, such as 0.001", *scale)
	}
	cfg := &serveConfig{addr: *addr, basePath: *basePath, fixtures: *fixtures, state: *state, admin: *admin, opts: []scribetest.Option{
		scribetest.WithAddr(*addr),
		scribetest.WithBasePath(*basePath),
		scribetest.WithLogger(slog.New(slog.NewTextHandler(stderr, nil))),
		scribetest.WithWebhookScheduleScale(*scale),
		scribetest.WithBodyBudget(int64(budget)),
	}}
	if limit.n > 0 {
		cfg.opts = append(cfg.opts, scribetest.WithRateLimit(limit.n, limit.window))
	}
	if *state != "" {
		cfg.opts = append(cfg.opts, scribetest.WithStateDir(*state))
	}
	if *hosts != "" {
		cfg.opts = append(cfg.opts, scribetest.WithAllowedHosts(strings.Split(*hosts, ",")...))
	}
	return cfg, nil
}

// rateLimit is the value of -rate-limit: N requests per DURATION.
type rateLimit struct {
	n      int
	window time.Duration
}

func (l *rateLimit) String() string {
	if l.n == 0 {
		return ""
	}
	return strconv.Itoa(l.n) + "/" + l.window.String()
}

// Set reads N/DURATION, a quota WithRateLimit takes: N at least 1,
// DURATION at least 1s.
func (l *rateLimit) Set(v string) error {
	ns, ds, ok := strings.Cut(v, "/")
	n, err := strconv.Atoi(ns)
	window, derr := time.ParseDuration(ds)
	switch {
	case !ok || err != nil || derr != nil:
		return errors.New("give N/DURATION, such as 10/1s: N requests per DURATION and credential")
	case n < 1 || window < time.Second:
		return fmt.Errorf("%d/%v: N must be at least 1 and DURATION at least 1s", n, window)
	}
	l.n, l.window = n, window
	return nil
}

// byteSize is the value of -body-budget: bytes, with an optional binary
// suffix (KiB, MiB, GiB).
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }

// Set reads a positive size such as 256MiB, 1GiB or 1048576.
func (b *byteSize) Set(v string) error {
	num, unit := v, int64(1)
	for suffix, u := range map[string]int64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30} {
		if n, ok := strings.CutSuffix(v, suffix); ok {
			num, unit = n, u
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 1 || n > math.MaxInt64/unit {
		return errors.New("give a positive size in bytes, or with KiB, MiB or GiB, such as 256MiB")
	}
	*b = byteSize(n * unit)
	return nil
}
