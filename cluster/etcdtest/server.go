package etcdtest

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// Server is an etcd started in-process, which a test may stop and start
// again on the same ports and data.
type Server struct {
	dir          string
	client, peer url.URL
	e            *embed.Etcd
}

// Start starts an etcd whose data lives in dir, on free loopback ports.
func Start(dir string) (*Server, error) {
	c, err := freePort()
	if err != nil {
		return nil, err
	}
	p, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, client: url.URL{Scheme: "http", Host: c}, peer: url.URL{Scheme: "http", Host: p}}
	return s, s.Restart()
}

// StartAt is Start on the given client and peer addresses (host:port).
func StartAt(dir, client, peer string) (*Server, error) {
	s := &Server{dir: dir, client: url.URL{Scheme: "http", Host: client}, peer: url.URL{Scheme: "http", Host: peer}}
	return s, s.Restart()
}

// Endpoint is the client address, host:port.
func (s *Server) Endpoint() string { return s.client.Host }

// Running reports whether the server is up.
func (s *Server) Running() bool { return s.e != nil }

// Stop stops the server; its data stays for Restart.
func (s *Server) Stop() {
	if s.e != nil {
		s.e.Close()
		s.e = nil
	}
}

// Restart starts the server again (or the first time) and waits until it
// serves, at most 20s.
func (s *Server) Restart() error {
	if s.e != nil {
		return errors.New("etcdtest: the server is running")
	}
	cfg := embed.NewConfig()
	cfg.Name = "metronome-test"
	cfg.Dir = s.dir
	cfg.TickMs, cfg.ElectionMs = 10, 100
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{s.client}, []url.URL{s.client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{s.peer}, []url.URL{s.peer}
	cfg.InitialCluster = cfg.Name + "=" + s.peer.String()
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	cfg.UnsafeNoFsync = true // a test's data is thrown away
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return fmt.Errorf("etcdtest: starting etcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(20 * time.Second):
		e.Close()
		return errors.New("etcdtest: etcd not ready within 20s")
	}
	s.e = e
	return nil
}

// External returns the endpoints ETCD_ENDPOINTS names, if it is set.
func External() ([]string, bool) {
	v := strings.TrimSpace(os.Getenv("ETCD_ENDPOINTS"))
	if v == "" {
		return nil, false
	}
	var eps []string
	for _, e := range strings.Split(v, ",") {
		if e = strings.TrimSpace(e); e != "" {
			eps = append(eps, e)
		}
	}
	return eps, len(eps) > 0
}

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
