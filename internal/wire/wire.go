// Package wire holds the JSON shapes that the client and the reference server
// share: the list envelope of every list operation and the RFC 9457 problem
// document of every error. Keeping one definition means the two sides cannot
// drift apart silently.
package wire

// ProblemContentType is the media type of every error response (RFC 9457).
const ProblemContentType = "application/problem+json"

// List is the envelope of every list operation (docs/pagination.md).
type List[T any] struct {
	HasMore    bool `json:"has_more"`
	TotalCount int  `json:"total_count"`
	Data       []T  `json:"data"`
}

// Problem is an RFC 9457 problem document with the service's extension
// members code and request_id.
type Problem struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Detail    string `json:"detail"`
	Code      string `json:"code"`
	RequestID string `json:"request_id"`
}
