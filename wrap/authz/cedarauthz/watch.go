package cedarauthz

import (
	"context"
	"io"
	"log/slog"
	"os"
	"time"
)

// fileStat is what the watcher compares: a file replaced by a rename is
// another file even with the same time and size.
type fileStat struct {
	info os.FileInfo
}

func (a fileStat) same(b fileStat) bool {
	if a.info == nil || b.info == nil {
		return a.info == b.info
	}
	return a.info.ModTime().Equal(b.info.ModTime()) && a.info.Size() == b.info.Size() && os.SameFile(a.info, b.info)
}

// read returns the file's stat and content.
func read(path string) (fileStat, []byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return fileStat{}, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fileStat{}, nil, err
	}
	src, err := io.ReadAll(f)
	if err != nil {
		return fileStat{}, nil, err
	}
	return fileStat{fi}, src, nil
}

// watch polls the file every interval until Close, reloading it once a
// change has settled: the same time and size at two polls in a row.
func (p *Policies) watch() {
	defer close(p.done)
	t := time.NewTicker(p.cfg.interval)
	defer t.Stop()
	var pending fileStat
	failing := false
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
		fi, err := os.Stat(p.path)
		if err != nil {
			if !failing {
				p.cfg.logger.LogAttrs(context.Background(), slog.LevelError, "cedarauthz: cannot read the policy file; the last good policies stay in force",
					slog.String("path", p.path), slog.String("error", err.Error()))
			}
			failing, pending = true, fileStat{}
			continue
		}
		failing = false
		st := fileStat{fi}
		p.mu.Lock()
		seen := p.seen
		p.mu.Unlock()
		if st.same(seen) {
			pending = fileStat{}
			continue
		}
		if !st.same(pending) {
			pending = st
			continue
		}
		pending = fileStat{}
		_ = p.Reload() // logged; the seen stat keeps a bad file from being parsed again each poll
	}
}
