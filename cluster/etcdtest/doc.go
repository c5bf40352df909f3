// Package etcdtest starts a real etcd for the tests of cluster/etcdlease
// and of `metronome run --cluster`: in-process, with
// go.etcd.io/etcd/server/v3/embed, on loopback ports and a temporary
// directory, with 10ms heartbeats and a 100ms election timeout (ready in
// tens of milliseconds). It is its own Go module so that the server's
// dependencies stay out of the main module.
//
// ETCD_ENDPOINTS (comma-separated host:port or URLs) points the tests at
// an external etcd instead; tests that stop and restart the server skip
// then.
//
// cmd/etcd-local is the same server as a program, for trying
// examples/cluster by hand.
package etcdtest
