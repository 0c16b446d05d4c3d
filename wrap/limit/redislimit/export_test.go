package redislimit

import "github.com/mcpwrap/mcpwrap/wrap"

// Missed is how many keys a cache store remembers a miss of.
func Missed(s wrap.CacheStore) int {
	c := s.(*cacheStore)
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.missed)
}

// MaxMissed is the bound of Missed.
const MaxMissed = maxMissed
