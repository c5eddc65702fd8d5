package scribetest

import (
	"math/rand/v2"
	"testing"
)

// TestRowTableActsAsAMap protects the store's row table (rowtable.go): for
// ids of every kind (small and dense, across chunk boundaries, spread wide,
// up to the 2^53-1 a caller may choose, negative), get, at, set (adding or
// replacing), delete and len answer as a Go map does, through a random
// sequence of operations, whichever of chunks and map holds a row.
func TestRowTableActsAsAMap(t *testing.T) {
	t.Parallel()
	ids := []int64{1, 2, 3, rowChunkLen - 1, rowChunkLen, rowChunkLen + 1, 5 * rowChunkLen, 123457,
		1<<24 - 1, 1 << 24, 1 << 40, 1<<53 - 1, -5}
	for i := int64(10); i < 3000; i += 7 {
		ids = append(ids, i)
	}
	var tab rowTable[pluginRow]
	want := map[int64]pluginRow{}
	rng := rand.New(rand.NewPCG(1, 2))
	for step := range 20000 {
		id := ids[rng.IntN(len(ids))]
		switch rng.IntN(3) {
		case 0, 1:
			r := pluginRow{id: id, name: itoa(int64(step))}
			tab.set(id, r)
			want[id] = r
		case 2:
			tab.delete(id)
			delete(want, id)
		}
		if tab.len() != len(want) {
			t.Fatalf("step %d: len %d, want %d", step, tab.len(), len(want))
		}
	}
	for _, id := range append(ids, 0, -1, 4, 1<<50, 1<<25) {
		got, ok := tab.get(id)
		w, wok := want[id]
		if ok != wok || got != w || tab.at(id) != w {
			t.Errorf("id %d: get = %+v, %v; at = %+v; want %+v, %v", id, got, ok, tab.at(id), w, wok)
		}
	}
	if len(tab.dense) > 4*tab.len()/rowChunkLen+1 {
		t.Errorf("%d chunks for %d rows, over the bound of four slots a row", len(tab.dense), tab.len())
	}
	// Consecutive ids, as the store assigns them, fill chunks; ids spread
	// wide go to the map and take no chunk of their own.
	var seq, wide rowTable[int64]
	for i := range int64(5000) {
		seq.set(i+1, i)
		wide.set(i*rowChunkLen, i)
	}
	if len(seq.dense) != 5001/rowChunkLen+1 || len(seq.sparse) != 0 {
		t.Errorf("consecutive ids: %d chunks and %d in the map; want every row in %d chunks", len(seq.dense), len(seq.sparse), 5001/rowChunkLen+1)
	}
	if len(wide.dense) > 4*5000/rowChunkLen+1 {
		t.Errorf("ids 1024 apart: %d chunks for 5000 rows", len(wide.dense))
	}
	for i := range int64(5000) {
		if v, ok := wide.get(i * rowChunkLen); !ok || v != i {
			t.Fatalf("ids 1024 apart: id %d = %d, %v", i*rowChunkLen, v, ok)
		}
	}

	// A deleted row lets its strings go.
	tab.set(7, pluginRow{name: "kept"})
	tab.delete(7)
	if s := tab.dense[0][7]; s.ok || s.row.name != "" {
		t.Errorf("deleted slot = %+v, want zero", s)
	}
	tab.reserve(1 << 20) // a bulk load: changes nothing visible
	for id, w := range want {
		if got, ok := tab.get(id); !ok || got != w {
			t.Fatalf("after reserve: id %d = %+v, %v; want %+v", id, got, ok, w)
		}
	}
}
