// Package reqlog keeps the last requests answered, bounded and without
// credentials, and counts them all.
package reqlog

import (
	"net/http"
	"sync"
	"time"

	"github.com/scribehq/scribe-go/scribetest/internal/index"
)

// Record is scribetest.Request.
type Record struct {
	Time           time.Time
	Method         string
	Path           string
	Query          string
	IdempotencyKey string
	RequestID      string
	Status         int
	Code           string
}

// MaxIdempotencyKey bounds the Idempotency-Key a record keeps.
const MaxIdempotencyKey = 255

// Log is the request log. The zero value is empty and ready.
type Log struct {
	mu    sync.Mutex
	recs  index.Ring[Record]
	count int
}

// Add records r, answered with status (and problem code, if any).
func (l *Log) Add(r *http.Request, at time.Time, requestID string, status int, code string) {
	key := ""
	if v := r.Header["Idempotency-Key"]; len(v) > 0 {
		key = index.Truncate(v[0], MaxIdempotencyKey)
	}
	rec := Record{
		Time: at, Method: index.Truncate(r.Method, index.MaxMethod),
		Path: index.Truncate(r.URL.Path, index.MaxURLPart), Query: index.Truncate(r.URL.RawQuery, index.MaxURLPart),
		IdempotencyKey: key, RequestID: requestID, Status: status, Code: code,
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.count++
	l.recs.Push(rec)
}

// All returns the records kept, oldest first.
func (l *Log) All() []Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.recs.All()
}

// Count returns how many requests were recorded in all.
func (l *Log) Count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.count
}
