package scribe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scribehq/scribe-go"
)

// operation is one of the nine operations, called on a client, with the
// full answer the service gives it.
type operation struct {
	name   string
	answer string
	call   func(context.Context, *scribe.Client) (any, error)
	list   bool // the answer is a list envelope
}

// first walks a pager to its first item (or error).
func first[T any](p *scribe.Pager[T]) (any, error) {
	for item, err := range p.All() {
		if err != nil {
			return nil, err
		}
		return item, nil
	}
	return nil, nil
}

var operations = []operation{
	{"ListTranscripts", page(false, 1, transcriptJSON), func(ctx context.Context, c *scribe.Client) (any, error) {
		return first(c.ListTranscripts(ctx, nil))
	}, true},
	{"GetTranscript", transcriptJSON, func(ctx context.Context, c *scribe.Client) (any, error) { return c.GetTranscript(ctx, 42) }, false},
	{"GetMe", userJSON, func(ctx context.Context, c *scribe.Client) (any, error) { return c.GetMe(ctx) }, false},
	{"ListPlugins", page(false, 1, pluginJSON), func(ctx context.Context, c *scribe.Client) (any, error) {
		return first(c.ListPlugins(ctx, nil))
	}, true},
	{"GetPlugin", pluginJSON, func(ctx context.Context, c *scribe.Client) (any, error) { return c.GetPlugin(ctx, 100) }, false},
	{"CreatePlugin", pluginJSON, func(ctx context.Context, c *scribe.Client) (any, error) {
		return c.CreatePlugin(ctx, &scribe.CreatePluginParams{Name: "CRM sync"})
	}, false},
	{"CreatePluginSecretKey", secretKeyJSON, func(ctx context.Context, c *scribe.Client) (any, error) {
		return c.CreatePluginSecretKey(ctx, 100, nil)
	}, false},
	{"ListPluginInstallations", page(false, 1, installationJSON), func(ctx context.Context, c *scribe.Client) (any, error) {
		return first(c.ListPluginInstallations(ctx, 100, nil))
	}, true},
	{"ListWebhooks", page(false, 1, webhookJSON), func(ctx context.Context, c *scribe.Client) (any, error) {
		return first(c.ListWebhooks(ctx, 100, nil))
	}, true},
}

// isNil reports whether v is nil or a nil pointer.
func isNil(v any) bool {
	switch p := v.(type) {
	case nil:
		return true
	case *scribe.Transcript:
		return p == nil
	case *scribe.User:
		return p == nil
	case *scribe.Plugin:
		return p == nil
	case *scribe.PluginSecretKey:
		return p == nil
	}
	return false
}

// TestNonResourcesAreDecodeErrors protects that a 2xx answer which is not
// the operation's result (a gateway's error object, null, an array, an
// empty object, a resource without its id, a page without data or
// has_more) is a *DecodeError, never a zero-valued resource or an empty
// list, from the default client and from a WithStrictDecoding one alike;
// and that a page without total_count, which the default client reads as
// 0, is one from the strict client.
func TestNonResourcesAreDecodeErrors(t *testing.T) {
	t.Parallel()
	for _, op := range operations {
		bodies := map[string]string{
			"null":          `null`,
			"array":         `[]`,
			"string":        `"ok"`,
			"empty object":  `{}`,
			"gateway error": `{"error":"upstream request timeout"}`,
			"no id":         strings.Replace(op.answer, `"id":`, `"ID":`, 1),
			"null id":       strings.Replace(op.answer, `"id":`, `"id":null,"ID":`, 1),
		}
		if op.list {
			bodies["no data"] = `{"has_more":false,"total_count":0}`
			bodies["no has_more"] = `{"total_count":0,"data":[]}`
			bodies["null has_more"] = `{"has_more":null,"total_count":0,"data":[]}`
			bodies["null data"] = `{"has_more":false,"total_count":0,"data":null}`
			bodies["strict: no total_count"] = `{"has_more":false,"data":[]}`
		}
		for name, body := range bodies {
			for _, strict := range []bool{false, true} {
				if strings.HasPrefix(name, "strict:") && !strict {
					continue
				}
				f := newFake(t, ok(body))
				c := f.client(scribe.WithTokenSource(plainTokens{"tok"}))
				if strict {
					var err error
					if c, err = c.WithOptions(scribe.WithStrictDecoding()); err != nil {
						t.Fatal(err)
					}
				}
				got, err := op.call(context.Background(), c)
				var de *scribe.DecodeError
				if !errors.As(err, &de) {
					t.Errorf("%s, %s, strict %v: got %+v, %v; want a *DecodeError", op.name, name, strict, got, err)
					continue
				}
				if !isNil(got) {
					t.Errorf("%s, %s: got a result %+v along with the error", op.name, name, got)
				}
				if n := len(f.requests()); n != 1 {
					t.Errorf("%s, %s: %d requests; a decode error is not retried", op.name, name, n)
				}
			}
		}
	}
}

// TestHostileServerOmitsMembers protects the tolerant reader against a
// server that drops or nulls members the contract requires (logo_uri,
// deleted_on, metadata): the default client returns the resource with the
// member's zero value, with or without a logger, and logs one Warn line
// naming the operation and the member, however often it is asked; a WithStrictDecoding client gets a
// *DecodeError naming the member. Served over loopback by httptest.
func TestHostileServerOmitsMembers(t *testing.T) {
	t.Parallel()
	// edit removes member from doc (from a page's item), or sets it null.
	edit := func(doc, member string, null bool) string {
		var v map[string]any
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatal(err)
		}
		m := v
		if data, ok := v["data"].([]any); ok {
			m = data[0].(map[string]any)
		}
		if delete(m, member); null {
			m[member] = nil
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		member, body string
		call         func(context.Context, *scribe.Client) (any, error)
		zero         func(any) bool
	}{
		{"logo_uri", pluginJSON, func(ctx context.Context, c *scribe.Client) (any, error) { return c.GetPlugin(ctx, 100) },
			func(v any) bool {
				p := v.(*scribe.Plugin)
				return p.LogoURI == "" && p.ID == 100 && p.Name == "CRM sync"
			}},
		{"deleted_on", page(false, 1, installationJSON), func(ctx context.Context, c *scribe.Client) (any, error) {
			p, err := c.ListPluginInstallations(ctx, 100, nil).Next()
			if err != nil {
				return nil, err
			}
			return p, nil
		}, func(v any) bool {
			p := v.(*scribe.Page[scribe.PluginInstallation])
			return len(p.Data) == 1 && p.Data[0].DeletedOn == nil && p.Data[0].UUID != ""
		}},
		{"metadata", transcriptJSON, func(ctx context.Context, c *scribe.Client) (any, error) { return c.GetTranscript(ctx, 42) },
			func(v any) bool {
				tr := v.(*scribe.Transcript)
				return tr.Metadata == nil && tr.ID == 42 && tr.Job.Lines == 3
			}},
	}
	for _, tt := range tests {
		for how, body := range map[string]string{"absent": edit(tt.body, tt.member, false), "null": edit(tt.body, tt.member, true)} {
			if how == "null" && tt.member == "deleted_on" {
				continue // nullable: a null deleted_on is an installed plugin, drift of nothing
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, body)
			}))
			t.Cleanup(srv.Close)
			var logs bytes.Buffer // written by the calls, on this goroutine
			c, err := scribe.NewClient(srv.URL, scribe.WithDeveloperKey(testDeveloperKey), scribe.WithMaxRetries(0),
				scribe.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
			if err != nil {
				t.Fatal(err)
			}
			for range 3 {
				got, err := tt.call(context.Background(), c)
				if err != nil || !tt.zero(got) {
					t.Fatalf("%s %s: got %+v, %v; want the resource, the member at its zero value", tt.member, how, got, err)
				}
			}
			lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
			var line map[string]any
			if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &line) != nil || line["level"] != "WARN" ||
				line["member"] != tt.member && line["member"] != "data."+tt.member || line["found"] != how ||
				!strings.HasPrefix(fmt.Sprint(line["operation"]), "GET /") || !strings.Contains(fmt.Sprint(line["operation"]), "{id}") {
				t.Errorf("%s %s: logged %q; want one Warn line naming the operation and the member", tt.member, how, logs.String())
			}
			if got, err := tt.call(context.Background(), with(t, c, scribe.WithLogger(nil))); err != nil || !tt.zero(got) {
				t.Errorf("%s %s, no logger: got %+v, %v; want the resource", tt.member, how, got, err)
			}
			_, err = tt.call(context.Background(), with(t, c, scribe.WithStrictDecoding()))
			var de *scribe.DecodeError
			if !errors.As(err, &de) || !strings.HasSuffix(de.Field, tt.member) && !strings.Contains(err.Error(), `"`+tt.member+`"`) {
				t.Errorf("%s %s, strict: %v; want a *DecodeError naming the member", tt.member, how, err)
			}
		}
	}
}

// TestDecodeErrorsQuoteNoValue protects that a credential a broken server
// puts where a timestamp (or, for a user, the id) belongs never reaches the
// error: the message names the member, what was expected and the byte
// offset, is at most 1 KiB, and quotes no part of the value.
func TestDecodeErrorsQuoteNoValue(t *testing.T) {
	t.Parallel()
	const jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpYXQiOjE3NjQwMDAwMDB9.c2lnbmF0dXJlLXNpZ25hdHVyZQ"
	values := map[string]string{
		"developer key": testDevKey,
		"JWT":           jwt,
		"secret key":    "ask_live_bmV3LWtleS1tYXRlcmlhbC10aGF0LW11c3Qtbm90LWxlYWs",
		"1 MiB":         strings.Repeat("0123456789abcdef", 1<<16),
	}
	for _, op := range operations {
		member, old := `"created_on":`, `"2026-`
		if op.name == "GetMe" {
			member, old = `"id":`, `8`
		}
		at := strings.Index(op.answer, member+old)
		if at < 0 {
			t.Fatalf("%s: no %s in the sample", op.name, member)
		}
		end := at + len(member) + strings.IndexAny(op.answer[at+len(member)+1:], `",}`) + 2
		if op.name != "GetMe" {
			end++ // past the closing quote
		}
		for kind, v := range values {
			body := op.answer[:at] + member + `"` + v + `"` + op.answer[end:]
			f := newFake(t, ok(body))
			_, err := op.call(context.Background(), f.client(scribe.WithTokenSource(plainTokens{jwt})))
			var de *scribe.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("%s, %s: err = %v, want a *DecodeError", op.name, kind, err)
			}
			msg := err.Error()
			if len(msg) > 1024 {
				t.Errorf("%s, %s: a message of %d bytes", op.name, kind, len(msg))
			}
			for i := 0; i+12 <= len(v) && i < 200; i += 6 {
				if strings.Contains(msg, v[i:i+12]) {
					t.Errorf("%s, %s: the message quotes the value: %s", op.name, kind, msg)
					break
				}
			}
			name := strings.Trim(member, `":`)
			if !strings.HasSuffix(de.Field, "/"+name) || !strings.Contains(msg, name) || !strings.Contains(msg, "byte") || de.Offset <= 0 {
				t.Errorf("%s, %s: Field %q Offset %d message %q; want the member, its offset, and what was expected", op.name, kind, de.Field, de.Offset, msg)
			}
		}
	}
}

// TestTimestampsInEveryRFC3339Form protects that the client reads every form
// RFC 3339 allows, as docs/contract.md promises: lower-case t and z, any
// fraction, offsets, -00:00, and the leap second, which becomes the first
// instant of the next minute.
func TestTimestampsInEveryRFC3339Form(t *testing.T) {
	t.Parallel()
	utc := func(s string) time.Time { return mustTime(s).UTC() }
	for in, want := range map[string]time.Time{
		"2026-11-21t09:30:00z":              utc("2026-11-21T09:30:00Z"),
		"2026-11-21T09:30:00.5Z":            utc("2026-11-21T09:30:00.5Z"),
		"2026-11-21T09:30:00.123456789123Z": utc("2026-11-21T09:30:00.123456789Z"),
		"2026-11-21T10:30:00+01:00":         utc("2026-11-21T09:30:00Z"),
		"2026-11-21T09:30:00-00:00":         utc("2026-11-21T09:30:00Z"),
		"2016-12-31T23:59:60Z":              utc("2017-01-01T00:00:00Z"),
		"2016-12-31t23:59:60.25z":           utc("2017-01-01T00:00:00.25Z"),
	} {
		body := strings.Replace(transcriptJSON, `"created_on":"2026-11-21T09:30:00Z"`, `"created_on":"`+in+`"`, 1)
		f := newFake(t, ok(body))
		tr, err := f.client().GetTranscript(context.Background(), 42)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if !tr.CreatedOn.Equal(want) {
			t.Errorf("%s: CreatedOn = %v, want %v", in, tr.CreatedOn, want)
		}
	}
	for _, in := range []string{"2026-11-21 09:30:00Z", "2026-11-21T09:30:00", "2026-11-21T24:00:00Z", "2026-02-29T00:00:00Z"} {
		body := strings.Replace(transcriptJSON, `"created_on":"2026-11-21T09:30:00Z"`, `"created_on":"`+in+`"`, 1)
		f := newFake(t, ok(body))
		if _, err := f.client().GetTranscript(context.Background(), 42); !errors.As(err, new(*scribe.DecodeError)) {
			t.Errorf("%s: err = %v, want a *DecodeError", in, err)
		}
	}
}

// TestMalformedBodiesAreDecodeErrors protects that broken JSON in a 2xx
// answer, of a single resource or of a page, is a *DecodeError.
func TestMalformedBodiesAreDecodeErrors(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		transcriptJSON[:40],
		transcriptJSON + ` trailing`,
		strings.Replace(transcriptJSON, `"id":42`, `"id":1.5`, 1),
		strings.Replace(transcriptJSON, `"lines":3`, `"lines":1e400`, 1),
		strings.Replace(transcriptJSON, `"id":42`, `"id":42,"id":43`, 1),
		strings.Replace(transcriptJSON, `"Hello."`, "\"Hel\xfflo.\"", 1),
	} {
		f := newFake(t, ok(body))
		_, err := f.client().GetTranscript(context.Background(), 42)
		if !errors.As(err, new(*scribe.DecodeError)) {
			t.Errorf("%.60q: err = %v, want a *DecodeError", body, err)
		}
	}
	f := newFake(t, ok(page(false, 1, transcriptJSON[:60])))
	if _, err := f.client().ListTranscripts(context.Background(), nil).Next(); !errors.As(err, new(*scribe.DecodeError)) {
		t.Errorf("a cut page: err = %v, want a *DecodeError", err)
	}
}

// TestNotJSONBodies protects the diagnosis of a 200 whose body is not JSON
// where JSON belongs (a captive portal's page, a bare OK, XML, HTML where a
// timestamp belongs, nothing at all): a *DecodeError naming the place, not
// retried, whose message says that what came is not JSON, what it looks
// like and how it begins, shortly, with no credential and no control
// character; an empty body is called empty.
func TestNotJSONBodies(t *testing.T) {
	t.Parallel()
	const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwb3J0YWwifQ.cG9ydGFsLXNpZ25hdHVyZQ"
	portal := "<!DOCTYPE html>\r\n<html><head>\x1b[2J<title>" + jwt + " " + testDevKey + "</title></head>" +
		strings.Repeat("<p>Welcome to the hotel Wi-Fi.</p>", 50) + "</html>"
	stamp := strings.Replace(transcriptJSON, `"2026-11-21T09:30:00Z"`, `<b>today</b>`, 1)
	tests := []struct {
		name, body string
		field      string   // DecodeError.Field
		want       []string // in the message
	}{
		{"HTML page", portal, "", []string{"at the document (byte 0)", "must be an object, got something that is not JSON",
			`it looks like HTML: "<!DOCTYPE html>  <html><head> [2J<title>[REDACTED] dk_live_[`}},
		{"OK", "OK", "", []string{"must be an object, got something that is not JSON", `it looks like text: "OK"`}},
		{"XML", `<?xml version="1.0"?><user><id>8</id></user>`, "", []string{"got something that is not JSON",
			`it looks like XML: "<?xml version=\"1.0\"?><user><id>8</id></user>"`}},
		{"HTML where a timestamp belongs", stamp, "/created_on", []string{"at /created_on (byte",
			"must be an RFC 3339 timestamp string, got something that is not JSON", `it looks like HTML: "<b>today</b>"`}},
		{"empty", "", "", []string{"at the document (byte 0): the document is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var requests atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				requests.Add(1)
				w.Header().Set("Content-Type", "text/html")
				_, _ = io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			c, err := scribe.NewClient(srv.URL, scribe.WithHTTPClient(srv.Client()), scribe.WithDeveloperKey(testDeveloperKey))
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.GetTranscript(context.Background(), 42)
			var de *scribe.DecodeError
			if !errors.As(err, &de) || de.StatusCode != 200 || de.Field != tt.field {
				t.Fatalf("err = %v, want a *DecodeError of the 200 at %q", err, tt.field)
			}
			if n := requests.Load(); n != 1 {
				t.Errorf("%d requests; a body that is not JSON is not retried", n)
			}
			msg := err.Error()
			for _, want := range tt.want {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q\nlacks %q", msg, want)
				}
			}
			for _, bad := range []string{testDevKey, jwt[:30], "\x1b", "\r", "\n", "Welcome", "acme"} {
				if strings.Contains(msg, bad) {
					t.Errorf("message %q carries %q", msg, bad)
				}
			}
			if len(de.Body) > 64 || len(msg) > 1024 {
				t.Errorf("Body of %d bytes, message of %d: want them short", len(de.Body), len(msg))
			}
		})
	}
}

// with is c.WithOptions(opts...), failing t on its error.
func with(t *testing.T, c *scribe.Client, opts ...scribe.Option) *scribe.Client {
	t.Helper()
	c, err := c.WithOptions(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
