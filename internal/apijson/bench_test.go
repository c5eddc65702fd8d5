package apijson

import (
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
)

// page100 is a list of 100 resources in the shape the service sends.
func page100() []byte {
	var b strings.Builder
	b.WriteString(`{"has_more":true,"data":[`)
	for i := range 100 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id":` + strconv.Itoa(i+1) + `,"created_on":"2026-11-21T09:30:00Z","metadata":{"source":"zoom","n":3},"user":{"id":7,"name":"Ada Lovelace"}}`)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// BenchmarkUnmarshal measures what the seam adds to the library: Require's
// presence checks and ParseTime, against v2's plain decoding of the same
// page (ratio seam/plain).
func BenchmarkUnmarshal(b *testing.B) {
	data := page100()
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var l list
			if err := json.Unmarshal(data, &l); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("seam", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var l list
			if err := Unmarshal(data, &l, lenient); err != nil {
				b.Fatal(err)
			}
		}
	})
}
