package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// With -admin the second line names the dashboard, which shows the demo
// data set's plugins; without it there is no such line, and no dashboard.
func TestDashboardLine(t *testing.T) {
	t.Parallel()
	for _, admin := range []bool{true, false} {
		args := []string{"-addr", "127.0.0.1:0"}
		if admin {
			args = append(args, "-admin")
		}
		ctx, cancel := context.WithCancel(context.Background())
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, args, pw, io.Discard)
			pw.Close()
		}()
		br := bufio.NewReader(pr)
		first, _ := br.ReadString('\n')
		second, _ := br.ReadString('\n')
		go func() { _, _ = io.Copy(io.Discard, br) }()
		base := strings.TrimSpace(strings.TrimPrefix(first, "listening on "))
		url, ok := strings.CutPrefix(strings.TrimSpace(second), "dashboard at ")
		if ok != admin || (admin && url != base+"/_scribetest/ui/") {
			t.Errorf("-admin %v: second line %q (listening on %s)", admin, second, base)
		}
		resp, err := http.Get(base + "/_scribetest/ui/")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if shown := resp.StatusCode == http.StatusOK && strings.Contains(string(body), "CRM sync"); shown != admin {
			t.Errorf("-admin %v: GET /_scribetest/ui/ = %d", admin, resp.StatusCode)
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}
}
