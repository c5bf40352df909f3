// Command etcd-local runs a single-member etcd on loopback, in-process,
// for trying examples/cluster without installing etcd:
//
//	cd cluster/etcdtest && go run ./cmd/etcd-local -addr 127.0.0.1:2379
//
// Its data goes in a temporary directory, removed on Ctrl-C.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/metronome-rt/metronome/cluster/etcdtest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:2379", "client `HOST:PORT`")
	peer := flag.String("peer", "127.0.0.1:2380", "peer `HOST:PORT`")
	flag.Parse()
	dir, err := os.MkdirTemp("", "etcd-local-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	s, err := etcdtest.StartAt(dir, *addr, *peer)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("etcd serving on %s (data in %s); Ctrl-C stops it\n", *addr, dir)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	s.Stop()
}
