package scribetest

import (
	"math"
	"testing"
	"time"
)

// TestScaledSaturates: Scaled never wraps around, whatever the factor, and
// jitter stays within [0, MaxWebhookDelay].
func TestScaledSaturates(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		d    time.Duration
		f    float64
		want time.Duration
	}{
		{5 * time.Second, 0.001, 5 * time.Millisecond},
		{5 * time.Second, 1e12, MaxWebhookDelay},
		{10 * time.Hour, math.MaxFloat64, MaxWebhookDelay},
		{0, 1e12, 0},
		{time.Hour, math.NaN(), 0},
	} {
		if got := scaled(tt.d, tt.f); got != tt.want {
			t.Errorf("scaled(%v, %g) = %v, want %v", tt.d, tt.f, got, tt.want)
		}
	}
	for range 1000 {
		if j := jitter(MaxWebhookDelay); j < 0 || j > MaxWebhookDelay {
			t.Fatalf("jitter(MaxWebhookDelay) = %v", j)
		}
		if j := jitter(time.Second); j < 800*time.Millisecond || j > 1200*time.Millisecond {
			t.Fatalf("jitter(1s) = %v, want within ±20%%", j)
		}
	}
}
