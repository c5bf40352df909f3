package etcdlease_test

import (
	"context"
	"log"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/metronome-rt/metronome/cluster/etcdlease"
	"github.com/metronome-rt/metronome/runtime/keyed"
	"github.com/metronome-rt/metronome/temporal"
)

// A Spot's regen timer ticks in one process at a time; its writes are
// fenced, so a tick that started just before another process took over
// writes nothing. (It needs an etcd: the tests are in cluster/etcdtest.)
func Example() {
	ctx := context.Background()
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{"127.0.0.1:2379"}, DialTimeout: 2 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	defer cli.Close()
	store, err := etcdlease.Open(cli, etcdlease.Options{TTL: 2 * temporal.Second})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close() // before cli.Close: resigns every claim and revokes the lease

	s, _ := keyed.New(keyed.Options{Clock: store.Clock()})
	defer s.Close()
	var owner atomic.Pointer[keyed.Owner] // the claim may call back before NewOwnerAuthority returns
	claim, err := store.Claim(ctx, "spot-42", func() {
		if o := owner.Load(); o != nil {
			o.Refresh()
		}
	})
	if err != nil {
		log.Fatal(err)
	}
	o, _ := s.NewOwnerAuthority(claim)
	owner.Store(o)
	_, _ = o.Register(keyed.Config{Key: "regen", Interval: temporal.Second, Callback: func(f keyed.Fire) {
		resp, err := claim.FencedTxn(ctx, f.Fence).Then(clientv3.OpPut("/spots/42/hp", "100")).Commit()
		if err == nil && !resp.Succeeded {
			log.Printf("spot-42 moved to another process; tick %d wrote nothing", f.DeliveryIndex)
		}
	}})
}
