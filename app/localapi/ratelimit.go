package localapi

import (
	"math"
	"sync"
	"time"
)

// limiter is a token bucket per key (the bearer token): rate tokens per second, at most
// burst banked. Only authorized requests reach it, so it holds one bucket per valid token.
type limiter struct {
	mu      sync.Mutex
	rate    float64
	burst   float64
	now     func() time.Time
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newLimiter(rate float64, burst int, now func() time.Time) *limiter {
	return &limiter{rate: rate, burst: float64(burst), now: now, buckets: map[string]*bucket{}}
}

// allow takes one token from key's bucket. When none is left it returns false and how
// long until one is (at least a millisecond).
func (l *limiter) allow(key string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[key] = b
	}
	if elapsed := now.Sub(b.last).Seconds(); elapsed > 0 {
		b.tokens = math.Min(l.burst, b.tokens+elapsed*l.rate)
	}
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
	return false, max(wait, time.Millisecond)
}

// streamSlots caps the event streams open at once per key (the bearer token). Each open
// stream holds a subscription, a buffer of sseBuffer changes (about 150 KB) and a
// connection, so without a cap one client could open them until memory runs out.
type streamSlots struct {
	mu   sync.Mutex
	max  int
	open map[string]int
}

func newStreamSlots(max int) *streamSlots {
	return &streamSlots{max: max, open: map[string]int{}}
}

// acquire takes one of key's slots. It returns false when key already has max streams
// open; otherwise a function that frees the slot (call it once, when the stream ends).
func (s *streamSlots) acquire(key string) (release func(), ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open[key] >= s.max {
		return nil, false
	}
	s.open[key]++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.open[key]--; s.open[key] <= 0 {
				delete(s.open, key)
			}
		})
	}, true
}
