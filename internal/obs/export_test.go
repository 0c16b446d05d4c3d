package obs

// PendingRequestIDs is how many request ids the hooks hold; tests check
// that every answered call gave its id back.
func PendingRequestIDs(o *Observer) int {
	o.calls.mu.Lock()
	defer o.calls.mu.Unlock()
	return len(o.calls.m)
}
