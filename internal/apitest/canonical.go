package apitest

import (
	"net/http"
	"strings"
)

// nonCanonical reports whether req's path has an empty, "." or ".." segment,
// raw or percent-encoded ("//plugins", "/plugins/./1", "/%2e/plugins"). The
// contract's paths have none, so such a path names no operation: its answer
// is the document's 404, not that of the operation the cleaned path would
// name (docs/contract.md, "Operations"). A trailing slash is an empty last
// segment, already unknown.
func nonCanonical(req *http.Request) bool {
	for _, p := range []string{req.URL.EscapedPath(), req.URL.Path} {
		segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
		for i, seg := range segs {
			if seg == "." || seg == ".." || seg == "" && i < len(segs)-1 {
				return true
			}
		}
	}
	return false
}
