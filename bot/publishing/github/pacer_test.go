package github

import (
	"context"
	"testing"
	"time"
)

// stepClock advances only when slept on.
type stepClock struct{ now time.Time }

func (c *stepClock) Now() time.Time { return c.now }
func (c *stepClock) Sleep(ctx context.Context, d time.Duration) error {
	if d > 0 {
		c.now = c.now.Add(d)
	}
	return ctx.Err()
}

// TestPacerHourly: with the minute pace at 80, 500 content-creating requests
// take 500 × 0.75 s; the 501st waits until an hour after the first.
func TestPacerHourly(t *testing.T) {
	start := time.Date(2026, 11, 23, 8, 17, 0, 0, time.UTC)
	c := &stepClock{now: start}
	p := &pacer{clock: c, interval: time.Minute / DefaultPerMinute, hourly: PerHour}
	for i := range PerHour {
		if err := p.wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		if want := start.Add(time.Duration(i) * p.interval); !c.now.Equal(want) {
			t.Fatalf("request %d went at %v, want %v", i, c.now.Sub(start), want.Sub(start))
		}
	}
	if err := p.wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := c.now.Sub(start); got != time.Hour {
		t.Errorf("request 501 went %v after the first, want 1h", got)
	}
	if len(p.sent) != PerHour {
		t.Errorf("remembers %d sends, want %d", len(p.sent), PerHour)
	}
}
