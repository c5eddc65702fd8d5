package auth_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/scribehq/scribe-go/auth"
)

// heapAfterGC returns the live heap after a full collection.
func heapAfterGC() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// cacheBytesPerEntry fills a plain map[uuid]token and a Cache with the tokens
// of n installations (uuids allocated beforehand, as a server holds them
// anyway) and returns the bytes each holds per installation and their ratio.
func cacheBytesPerEntry(tb testing.TB, n int) (ratio, mapBytes, cacheBytes float64) {
	key := mustKey(tb, goldenKey)
	uuids := make([]string, n)
	for i := range uuids {
		uuids[i] = uuidN(i)
	}
	now := time.Now()

	before := heapAfterGC()
	m := make(map[string]string)
	for _, u := range uuids {
		tok, err := auth.Mint(key, u, now)
		if err != nil {
			tb.Fatal(err)
		}
		m[u] = tok
	}
	mapBytes = float64(heapAfterGC()-before) / float64(n)
	runtime.KeepAlive(m)
	m = nil

	ctx := context.Background()
	before = heapAfterGC()
	c := auth.NewCache(key, auth.WithMaxEntries(n))
	for _, u := range uuids {
		if _, err := c.Token(ctx, u); err != nil {
			tb.Fatal(err)
		}
	}
	cacheBytes = float64(heapAfterGC()-before) / float64(n)
	runtime.KeepAlive(c)
	runtime.KeepAlive(uuids)
	return cacheBytes / mapBytes, mapBytes, cacheBytes
}
