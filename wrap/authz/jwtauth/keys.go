package jwtauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// maxDocumentBytes caps a metadata document or key set.
const maxDocumentBytes = 1 << 20

// keySet is the issuer's key set, fetched again when it is MaxAge old, or
// when a token names a key it does not hold (at most once per minRefetch);
// concurrent verifications that need a fetch share one.
type keySet struct {
	url                string
	client             *http.Client
	maxAge, minRefetch time.Duration

	mu      sync.Mutex
	cur     *keys
	tried   time.Time // the start of the last fetch, successful or not
	failed  time.Time // the end of the last fetch, if it failed
	failErr error     // the error of that failed fetch
	pending *fetch
}

type keys struct {
	byID    map[string]jose.JSONWebKey
	noID    []jose.JSONWebKey
	fetched time.Time
}

type fetch struct {
	done chan struct{}
	keys *keys
	err  error
}

// key returns the public key of id for a token signed with alg. While the
// issuer cannot be reached, a token whose key the set of a moment ago does
// not hold cannot be decided: it gets the last fetch's error, for as long as
// fetches fail, never ErrInvalidToken (the issuer may have published the
// key since), and costs the issuer at most one fetch per minRefetch.
func (s *keySet) key(ctx context.Context, id, alg string) (any, error) {
	s.mu.Lock()
	cur := s.cur
	fresh := cur != nil && time.Since(cur.fetched) < s.maxAge
	s.mu.Unlock()
	if fresh {
		if k, ok := cur.find(id, alg); ok {
			return k, nil
		}
	}
	if err := s.failedRecently(); err != nil {
		// A fetch failed a moment ago: no new one yet.
		return s.stillHeld(cur, id, alg, err)
	}
	if fresh && !s.mayRefetch() {
		return nil, invalid("signed with a key the issuer does not publish")
	}
	next, err := s.refresh(ctx)
	if err != nil {
		return s.stillHeld(cur, id, alg, err)
	}
	if k, ok := next.find(id, alg); ok {
		return k, nil
	}
	return nil, invalid("signed with a key the issuer does not publish")
}

// stillHeld returns the key of id for alg from cur, the set of a moment
// ago, while the issuer is unreachable (the fetch failed with err): its
// keys still hold up to twice maxAge after it was fetched. Otherwise it
// returns err.
func (s *keySet) stillHeld(cur *keys, id, alg string, err error) (any, error) {
	if cur == nil || time.Since(cur.fetched) >= 2*s.maxAge {
		return nil, err
	}
	if k, ok := cur.find(id, alg); ok {
		return k, nil
	}
	return nil, err
}

// published reports whether the key set as last fetched still holds the
// key id for alg: what a remembered token's key must be.
func (s *keySet) published(id, alg string) bool {
	s.mu.Lock()
	cur := s.cur
	s.mu.Unlock()
	if cur == nil || time.Since(cur.fetched) >= s.maxAge { // stale: verify anew, which fetches
		return false
	}
	_, ok := cur.find(id, alg)
	return ok
}

// mayRefetch reports whether a fetch for an unknown key may start now.
func (s *keySet) mayRefetch() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pending != nil || time.Since(s.tried) >= s.minRefetch
}

// failedRecently returns the error of the last fetch when it failed less
// than minRefetch ago and none is under way; nil otherwise.
func (s *keySet) failedRecently() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending == nil && s.failErr != nil && time.Since(s.failed) < s.minRefetch {
		return s.failErr
	}
	return nil
}

// refresh fetches the key set, or waits for the fetch under way.
func (s *keySet) refresh(ctx context.Context) (*keys, error) {
	s.mu.Lock()
	f := s.pending
	if f == nil {
		f = &fetch{done: make(chan struct{})}
		s.pending = f
		s.tried = time.Now()
		// Not bound to ctx: the verifications waiting for it share it, and
		// one of them giving up must not fail the others.
		go s.run(context.WithoutCancel(ctx), f)
	}
	s.mu.Unlock()
	select {
	case <-f.done:
		return f.keys, f.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *keySet) run(ctx context.Context, f *fetch) {
	ctx, cancel := context.WithTimeout(ctx, defaultHTTPTimeout)
	defer cancel()
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	err := getJSON(ctx, s.client, s.url, &set)
	var k *keys
	if err == nil {
		k, err = index(set.Keys)
	}
	if err != nil {
		err = fmt.Errorf("jwtauth: key set %s: %w", s.url, err)
	}
	s.mu.Lock()
	if err == nil {
		s.cur, s.failed, s.failErr = k, time.Time{}, nil
	} else {
		s.failed, s.failErr = time.Now(), err
	}
	s.pending = nil
	s.mu.Unlock()
	f.keys, f.err = k, err
	close(f.done)
}

// index keeps the set's public signing keys; a key go-jose cannot read
// (a type it does not know) is skipped, not the set.
func index(set []json.RawMessage) (*keys, error) {
	k := &keys{byID: map[string]jose.JSONWebKey{}, fetched: time.Now()}
	for _, raw := range set {
		key, ok := signingKey(raw)
		switch {
		case !ok:
		case key.KeyID == "":
			k.noID = append(k.noID, key)
		default:
			k.byID[key.KeyID] = key
		}
	}
	if len(k.byID) == 0 && len(k.noID) == 0 {
		return nil, errors.New("no public signing key")
	}
	return k, nil
}

// signingKey returns the public key of a key set entry meant for
// signatures; ok is false for an entry go-jose cannot read, one for
// another use, a symmetric key (a token could be MACed with it) or an
// invalid one.
func signingKey(raw json.RawMessage) (key jose.JSONWebKey, ok bool) {
	if key.UnmarshalJSON(raw) != nil || (key.Use != "" && key.Use != "sig") {
		return key, false
	}
	if !key.IsPublic() {
		if _, symmetric := key.Key.([]byte); symmetric {
			return key, false
		}
		key = key.Public()
	}
	return key, key.Valid()
}

// find returns the key of id that may verify alg; a token naming no key
// gets the only key without an id, if there is exactly one.
func (k *keys) find(id, alg string) (any, bool) {
	var key jose.JSONWebKey
	switch {
	case id != "":
		var ok bool
		if key, ok = k.byID[id]; !ok {
			return nil, false
		}
	case len(k.noID) == 1:
		key = k.noID[0]
	default:
		return nil, false
	}
	if key.Algorithm != "" && key.Algorithm != alg {
		return nil, false
	}
	return key.Key, true
}

// discover reads the issuer's jwks_uri from its metadata.
func discover(ctx context.Context, client *http.Client, issuer string) (string, error) {
	base := strings.TrimSuffix(issuer, "/")
	var errs []error
	for _, p := range []string{"/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"} {
		var md struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		if err := getJSON(ctx, client, base+p, &md); err != nil {
			errs = append(errs, err)
			continue
		}
		if md.Issuer != issuer {
			return "", fmt.Errorf("jwtauth: the metadata at %s names issuer %q, not %q", base+p, md.Issuer, issuer)
		}
		if md.JWKSURI == "" {
			return "", fmt.Errorf("jwtauth: the metadata at %s has no jwks_uri", base+p)
		}
		return md.JWKSURI, nil
	}
	return "", fmt.Errorf("jwtauth: discovering the key set of %s: %w", issuer, errors.Join(errs...))
}

func getJSON(ctx context.Context, client *http.Client, url string, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocumentBytes+1))
	if err != nil {
		return err
	}
	if len(body) > maxDocumentBytes {
		return fmt.Errorf("GET %s: larger than %d bytes", url, maxDocumentBytes)
	}
	if err := json.Unmarshal(body, into); err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	return nil
}
