package errcases

// HostTexts are error texts as handlers return them that name an internal
// host without a URL around it, each with the host names the model must
// not read: Go's resolver and dialer, an upstream's 500 body quoted, a
// Kubernetes service, a Consul node, a cloud VM's name.
var HostTexts = []struct {
	Text  string
	Hosts []string
}{
	{"upstream answered 500: <html><body>502 Bad Gateway (git-03.internal)</body></html>", []string{"git-03.internal"}},
	{"dial tcp: lookup git-03.internal on 127.0.0.53:53: no such host", []string{"git-03.internal", "127.0.0.53"}},
	{"search failed: redis.default.svc.cluster.local refused the connection", []string{"redis.default.svc.cluster.local", "svc.cluster"}},
	{"no healthy instance of billing; last tried billing-7.node.dc1.consul", []string{"billing-7.node.dc1.consul"}},
	{"the job ran on ip-10-0-1-7.ec2.internal and exited 1", []string{"ip-10-0-1-7", "ec2.internal"}},
	{"printer NAS.LAN is offline; backups paused", []string{"NAS.LAN"}},
	{"ldap bind to dc01.ad.corp failed: invalid credentials", []string{"dc01.ad.corp"}},
	{"mirror pkgs.home.arpa answered 503", []string{"pkgs.home.arpa"}},
	{"cache at memcached:11211 timed out", []string{"memcached:11211"}},
}

// PlainTexts are error texts with dotted words that name no host: file
// names, versions, Go identifiers, abbreviations, public host names, paths
// and dotfiles. The model reads them as they are.
var PlainTexts = []string{
	"open main.go: no such file or directory",
	"read note x.md: file does not exist",
	"open /srv/app/.env.local: permission denied",
	"read ./config/settings.local.yaml: is a directory",
	"go.mod requires go >= 1.22.3 (running go 1.21.0)",
	"json: cannot unmarshal string into Go struct field Config.timeout of type int",
	"strconv.Atoi: parsing \"abc\": invalid syntax",
	"x509: certificate signed by unknown authority",
	"unsupported version 2.4.1; use 3.0.0 or later, e.g. 3.1.0",
	"the value must be positive, i.e. larger than 0",
	"GitHub API rate limit exceeded for api.github.com; retry after 60s",
	"the report report.2024.csv is larger than 10 MB",
	Plain,
}
