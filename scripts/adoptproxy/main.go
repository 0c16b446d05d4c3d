// Command adoptproxy is the module proxy of scripts/adopt.sh: it serves the
// modules under -dir (the checkout, laid out as a file-based GOPROXY) and
// answers 404 for any other path of those modules, so that go get's look-up
// of github.com/mcpwrap/mcpwrap/wrap as a module path is a clean "not found";
// every other request goes to -upstream, the machine's own proxy.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	dir := flag.String("dir", "", "file-based proxy directory")
	prefix := flag.String("prefix", "github.com/mcpwrap/", "module paths served from -dir only")
	upstream := flag.String("upstream", "https://proxy.golang.org", "proxy for every other module")
	addrFile := flag.String("addr-file", "", "where to write the listening address")
	flag.Parse()
	up, err := url.Parse(*upstream)
	if err != nil {
		log.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(up)
	director := rp.Director
	rp.Director = func(r *http.Request) {
		director(r)
		r.Host = up.Host
	}
	files := http.FileServer(http.Dir(*dir))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := strings.TrimPrefix(r.URL.Path, "/")
		if strings.HasPrefix(p, *prefix) {
			if _, err := os.Stat(filepath.Join(*dir, filepath.FromSlash(p))); err != nil {
				http.NotFound(w, r)
				return
			}
			files.ServeHTTP(w, r)
			return
		}
		rp.ServeHTTP(w, r)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*addrFile, []byte(fmt.Sprintf("http://%s\n", ln.Addr())), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Fatal(http.Serve(ln, h))
}
