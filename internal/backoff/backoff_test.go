package backoff_test

import (
	"testing"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/backoff"
)

func TestDelay(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name string
		e    backoff.Exponential
		n    int
		lo   time.Duration
		hi   time.Duration
	}{
		{"full first", backoff.Exponential{Initial: 100 * ms, Max: time.Second}, 1, 0, 100 * ms},
		{"full doubles", backoff.Exponential{Initial: 100 * ms, Max: time.Second}, 3, 0, 400 * ms},
		{"full capped", backoff.Exponential{Initial: 100 * ms, Max: time.Second}, 20, 0, time.Second},
		{"equal never below half", backoff.Exponential{Initial: 100 * ms, Max: time.Second, Jitter: backoff.Equal}, 2, 100 * ms, 200 * ms},
		{"none exact", backoff.Exponential{Initial: 100 * ms, Jitter: backoff.None}, 2, 200 * ms, 200 * ms},
		{"overflow capped", backoff.Exponential{Initial: time.Hour, Max: 2 * time.Hour, Jitter: backoff.None}, 64, 2 * time.Hour, 2 * time.Hour},
		{"zero waits nothing", backoff.Exponential{}, 3, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for range 200 {
				if d := c.e.Delay(c.n); d < c.lo || d > c.hi {
					t.Fatalf("Delay(%d) = %v, want in [%v, %v]", c.n, d, c.lo, c.hi)
				}
			}
		})
	}
}

func TestRandEnds(t *testing.T) {
	e := backoff.Exponential{Initial: 100 * time.Millisecond, Jitter: backoff.Equal, Rand: func() float64 { return 0 }}
	if d := e.Delay(1); d != 50*time.Millisecond {
		t.Fatalf("Equal with Rand 0 = %v, want 50ms", d)
	}
	e.Rand = func() float64 { return 0.999999999 }
	if d := e.Delay(1); d != 100*time.Millisecond {
		t.Fatalf("Equal with Rand ~1 = %v, want 100ms", d)
	}
}

func TestRetryAfterWins(t *testing.T) {
	e := backoff.Exponential{Initial: time.Second, Jitter: backoff.None}
	if d := e.Wait(1, 7*time.Second); d != 7*time.Second {
		t.Fatalf("Wait with Retry-After = %v, want 7s", d)
	}
	if d := e.Wait(1, 0); d != time.Second {
		t.Fatalf("Wait without Retry-After = %v, want 1s", d)
	}
}

func TestRetries(t *testing.T) {
	for n, want := range map[int]int{-1: 0, 0: backoff.DefaultRetries, 1: 1, 5: 5} {
		if got := backoff.Retries(n); got != want {
			t.Errorf("Retries(%d) = %d, want %d", n, got, want)
		}
	}
}
