package bench

import _ "embed"

// IntervalsEventLoopScript is the intervals scene written with the event-loop
// module's set_timeout and set_interval: the same intervals and fires as
// IntervalsScript, so its ns/fire compares the event loop's fire path with the
// runtime-scheduler's.
//
//go:embed w1_eventloop.lua
var IntervalsEventLoopScript []byte
