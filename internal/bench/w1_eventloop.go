package bench

import _ "embed"

// W1EventLoopScript is scene W1 written with the event-loop module's
// set_timeout and set_interval: the same intervals and fires as W1Script,
// so its ns/fire compares the event loop's fire path with the
// runtime-scheduler's.
//
//go:embed w1_eventloop.lua
var W1EventLoopScript []byte
