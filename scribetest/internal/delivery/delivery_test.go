package delivery

import (
	"math"
	"testing"
	"time"
)

// TestScaledSaturates: Scaled never wraps around, whatever the factor, and
// jitter stays within [0, MaxDelay].
func TestScaledSaturates(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		d    time.Duration
		f    float64
		want time.Duration
	}{
		{5 * time.Second, 0.001, 5 * time.Millisecond},
		{5 * time.Second, 1e12, MaxDelay},
		{10 * time.Hour, math.MaxFloat64, MaxDelay},
		{0, 1e12, 0},
		{time.Hour, math.NaN(), 0},
	} {
		if got := Scaled(tt.d, tt.f); got != tt.want {
			t.Errorf("Scaled(%v, %g) = %v, want %v", tt.d, tt.f, got, tt.want)
		}
	}
	for range 1000 {
		if j := jitter(MaxDelay); j < 0 || j > MaxDelay {
			t.Fatalf("jitter(MaxDelay) = %v", j)
		}
		if j := jitter(time.Second); j < 800*time.Millisecond || j > 1200*time.Millisecond {
			t.Fatalf("jitter(1s) = %v, want within ±20%%", j)
		}
	}
}
