package callcache

import (
	"sync"
	"time"
)

// Entry is one kept answer.
type Entry struct {
	// Value is the answer, kept as it was given (never copied or changed).
	Value any
	// Size is what the answer counts for against the byte bound.
	Size int
	// Stored is when the answer was made; Expires when it stops being
	// served.
	Stored, Expires time.Time
	// Group is what Forget removes it with (wrap: a tool's name, or
	// resources/read).
	Group string
	// Gen is the LRU's generation (Gen) when the call that made the
	// answer began: Put refuses it once a Forget of every group came
	// since, under the same lock, so that no answer made before a write
	// ended is kept after it.
	Gen uint64
}

// LRU keeps answers within MaxEntries entries and MaxBytes bytes,
// forgetting the least recently used first. One owner (a caller) holds at
// most a Share of each bound, its own least recently used answers going
// first, so that a caller making many distinct calls pushes out its own
// answers, not other callers'. It is safe for concurrent use.
type LRU struct {
	maxEntries, maxBytes     int
	shareEntries, shareBytes int

	mu      sync.Mutex
	entries map[Key]*node
	owners  map[string]*owner
	groups  map[string]int // entries by group
	all     ring           // most recently used first
	bytes   int
	gen     uint64 // Forgets of every group
}

type node struct {
	key   Key
	e     Entry
	owner *owner
	// all and own are the node's places in the LRU's ring and its owner's.
	all, own links
}

type links struct{ prev, next *node }

type owner struct {
	name         string
	ring         ring
	count, bytes int
}

// ring is a doubly linked list of nodes through one of their links.
type ring struct {
	head, tail *node
	own        bool // through node.own, else node.all
}

func (r *ring) l(n *node) *links {
	if r.own {
		return &n.own
	}
	return &n.all
}

func (r *ring) pushFront(n *node) {
	l := r.l(n)
	l.prev, l.next = nil, r.head
	if r.head != nil {
		r.l(r.head).prev = n
	}
	r.head = n
	if r.tail == nil {
		r.tail = n
	}
}

func (r *ring) remove(n *node) {
	l := r.l(n)
	if l.prev != nil {
		r.l(l.prev).next = l.next
	} else {
		r.head = l.next
	}
	if l.next != nil {
		r.l(l.next).prev = l.prev
	} else {
		r.tail = l.prev
	}
	l.prev, l.next = nil, nil
}

// NewLRU returns an LRU of at most maxEntries entries and maxBytes bytes,
// an owner holding at most 1/share of each (share ≤ 1: no share).
func NewLRU(maxEntries, maxBytes, share int) *LRU {
	l := &LRU{maxEntries: maxEntries, maxBytes: maxBytes, shareEntries: maxEntries, shareBytes: maxBytes,
		entries: map[Key]*node{}, owners: map[string]*owner{}, groups: map[string]int{}}
	if share > 1 {
		l.shareEntries, l.shareBytes = max(maxEntries/share, 1), max(maxBytes/share, 1)
	}
	return l
}

// Gen is how many times Forget dropped every entry.
func (l *LRU) Gen() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.gen
}

// MaxEntry is the size of the largest answer the LRU keeps.
func (l *LRU) MaxEntry() int { return l.shareBytes }

// Get returns k's entry if it has not expired at now.
func (l *LRU) Get(k Key, now time.Time) (Entry, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, ok := l.entries[k]
	if !ok {
		return Entry{}, false
	}
	if !now.Before(n.e.Expires) {
		l.drop(n)
		return Entry{}, false
	}
	l.all.remove(n)
	l.all.pushFront(n)
	n.owner.ring.remove(n)
	n.owner.ring.pushFront(n)
	return n.e, true
}

// Put keeps e under k for owner, replacing what k held; an entry larger
// than MaxEntry is not kept.
func (l *LRU) Put(k Key, who string, e Entry) {
	if e.Size > l.shareBytes || e.Size < 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if e.Gen != l.gen {
		return
	}
	if n, ok := l.entries[k]; ok {
		l.drop(n)
	}
	o := l.ownerOf(who)
	l.makeRoom(o, e.Size)
	l.owners[who] = o // again, when the loops above dropped its last entry
	n := &node{key: k, e: e, owner: o}
	l.entries[k] = n
	l.all.pushFront(n)
	o.ring.pushFront(n)
	o.count++
	o.bytes += e.Size
	l.bytes += e.Size
	l.groups[e.Group]++
}

// ownerOf is who's share of the cache, new if who has none.
func (l *LRU) ownerOf(who string) *owner {
	o := l.owners[who]
	if o == nil {
		o = &owner{name: who, ring: ring{own: true}}
		l.owners[who] = o
	}
	return o
}

// makeRoom drops the least recently used entries, first of o's share, then
// of all, until an entry of size bytes fits in both.
func (l *LRU) makeRoom(o *owner, size int) {
	for o.count > 0 && (o.count >= l.shareEntries || o.bytes+size > l.shareBytes) {
		l.drop(o.ring.tail)
	}
	for l.all.tail != nil && (len(l.entries) >= l.maxEntries || l.bytes+size > l.maxBytes) {
		l.drop(l.all.tail)
	}
}

// Holds reports whether the LRU keeps answers of group.
func (l *LRU) Holds(group string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.groups[group] > 0
}

// Forget drops every entry of group, or every entry when group is "" (and
// then a new generation begins).
func (l *LRU) Forget(group string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if group == "" {
		// A call of every tool that may write comes here: an empty LRU
		// only begins a new generation, with no allocation.
		l.gen++
		if len(l.entries) > 0 {
			l.entries, l.owners, l.groups = map[Key]*node{}, map[string]*owner{}, map[string]int{}
			l.all, l.bytes = ring{}, 0
		}
		return
	}
	for n := l.all.head; n != nil; {
		next := n.all.next
		if group == "" || n.e.Group == group {
			l.drop(n)
		}
		n = next
	}
}

// Len returns the number of entries and their bytes.
func (l *LRU) Len() (entries, bytes int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries), l.bytes
}

func (l *LRU) drop(n *node) {
	delete(l.entries, n.key)
	l.all.remove(n)
	o := n.owner
	o.ring.remove(n)
	o.count--
	o.bytes -= n.e.Size
	l.bytes -= n.e.Size
	if l.groups[n.e.Group]--; l.groups[n.e.Group] == 0 {
		delete(l.groups, n.e.Group)
	}
	if o.count == 0 {
		delete(l.owners, o.name)
	}
}
