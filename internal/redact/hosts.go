package redact

import (
	"regexp"
	"strings"
)

// internalSuffixes end the names of hosts that only a private network
// resolves: RFC 6762's .local (and Kubernetes' .cluster.local), RFC 8375's
// .home.arpa, Kubernetes' .svc, Consul's .consul, cloud providers'
// .internal, and the .lan, .corp, .intranet, .localdomain of office
// networks. Public replaces a name ending in one with HostMark, as it does
// the host of a URL: a plain error quoting an upstream's answer names its
// hosts too.
var internalSuffixes = [...]string{"internal", "local", "localdomain", "lan", "corp", "intranet", "svc", "consul", "home.arpa"}

// dottedName is a candidate host name: two labels or more.
var dottedName = regexp.MustCompile(`\b[A-Za-z0-9][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)+`)

// redactInternalHosts replaces in s every dotted name whose last label is
// an internal suffix ("git-03.internal", "redis.default.svc.cluster.local",
// "ip-10-0-1-7.ec2.internal") with HostMark. A name inside a path or a
// file name (after '/', '\\' or '.', as in ".env.local") is left alone,
// and so is every other dotted word: file names (main.go), versions
// (1.22.3), Go identifiers (json.Unmarshal), public host names.
func redactInternalHosts(s string) string {
	if !mayNameInternalHost(s) {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range dottedName.FindAllStringIndex(s, -1) {
		start, end := m[0], m[1]
		if start > 0 && strings.IndexByte(`./\`, s[start-1]) >= 0 || !internalName(s[start:end]) {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(HostMark)
		last = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// mayNameInternalHost reports whether s holds ".<suffix>" for some
// internal suffix, ignoring case: the cheap test before the regular
// expression.
func mayNameInternalHost(s string) bool {
	if !strings.Contains(s, ".") {
		return false
	}
	for _, suf := range internalSuffixes {
		if containsFold(s, "."+suf) {
			return true
		}
	}
	return false
}

// internalName reports whether the dotted name ends in an internal suffix
// (a whole label, any case).
func internalName(name string) bool {
	for _, suf := range internalSuffixes {
		if len(name) > len(suf)+1 && name[len(name)-len(suf)-1] == '.' && strings.EqualFold(name[len(name)-len(suf):], suf) {
			return true
		}
	}
	return false
}
