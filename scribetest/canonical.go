package scribetest

import (
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"
)

// Non-canonical paths (docs/server.md, "Routing"; issue 10 item 7).
//
// http.ServeMux cleans a request's path before it matches it: a path with an
// empty segment ("//plugins"), a "." or ".." segment ("/plugins/./1",
// "/v1/../plugins") is answered with a redirect to the cleaned path, a
// text/html page with status 307 (301 before Go 1.26), before any handler of
// ours runs. The service never redirects (CONTRACT §6), and every error is
// problem+json (CONTRACT §5), so the server refuses such a path itself,
// before the mux sees it, with 404 not_found: the path names no resource as
// written, and a client that sent it has a bug to fix (a base URL with a
// trailing slash joined with "/plugins", say) that a redirect would hide.

// canonicalPath reports whether the mux would serve r's path as it is, that
// is whether cleaning it (the mux's cleanPath: path.Clean, keeping a
// trailing slash) changes nothing. It checks the escaped path, which the mux
// cleans, and the decoded one too, so that "/%2e/plugins" or
// "/plugins/%2e%2e" (dot segments once decoded) get the same 404 rather than
// a match on a literal "%2e" segment. CONNECT requests are not cleaned by
// the mux.
func canonicalPath(r *http.Request) bool {
	if r.Method == http.MethodConnect {
		return true
	}
	return isClean(r.URL.EscapedPath()) && isClean(r.URL.Path)
}

// isClean reports whether p is an absolute path that cleaning leaves as it is.
func isClean(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	clean := path.Clean(p)
	if strings.HasSuffix(p, "/") && clean != "/" {
		clean += "/"
	}
	return clean == p
}

// nonCanonicalDetail says what is wrong with the path and what to send. The
// path is quoted as sent; requestID has already refused one over 8 KiB.
func nonCanonicalDetail(r *http.Request) string {
	return fmt.Sprintf("no operation at %q: the path has an empty, \".\" or \"..\" segment; "+
		"the service does not clean or redirect paths, send each segment once (such as /plugins/1)", r.URL.EscapedPath())
}

// canonicalPaths answers a non-canonical path with 404 not_found
// (problem+json, with the Request-Id of the chain around it) and passes
// every other request to next, the routes' ServeMux.
func (s *Server) canonicalPaths(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !canonicalPath(r) {
			writeProblem(w, r, notFound(nonCanonicalDetail(r)))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// adminCanonicalPaths is canonicalPaths for the admin API's mux: a 404 in
// the admin API's own {"error"} shape.
func adminCanonicalPaths(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !canonicalPath(r) {
			adminError(w, http.StatusNotFound, errors.New(nonCanonicalDetail(r)))
			return
		}
		next.ServeHTTP(w, r)
	})
}
