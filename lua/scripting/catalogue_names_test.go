package scripting

// The rows of TestBadInputCatalogue for names the script got wrong (a
// method, a zone id or a module: each names the receiver and the nearest
// names), and for hints that must fit the mistake they follow.
var catalogueNames = []catalogueRow{
	{"names/handle method", `h1:cancle()`,
		"runtime-scheduler handle", "'cancle'", "has no method", "did you mean 'cancel'?"},
	{"names/scheduler camelCase", `s:scheduleOnce{ delay = ms5, callback = cb }`,
		"runtime-scheduler", "'scheduleOnce'", "has no method", "did you mean 'schedule_once'?"},
	{"names/scheduler kebab", `s["schedule-onse"](s, { delay = ms5, callback = cb })`,
		"runtime-scheduler", "'schedule-onse'", "has no method", "did you mean 'schedule-once'?"},
	{"names/host camelCase", `hs:scheduleOnce{ delay = ms5, callback = cb }`,
		"app-host scheduler", "'scheduleOnce'", "has no method", "did you mean 'schedule_once'?"},
	{"names/host no near name", `hs:frobnicate()`,
		"app-host scheduler", "'frobnicate'", "has no method", "(methods: clear, count, "},
	{"names/made scheduler", `ms:registr("x", cb)`,
		"app-host scheduler", "'registr'", "has no method", "did you mean 'register'?"},
	{"names/Debouncer", `db:cancle()`,
		"runtime-timers Debouncer", "'cancle'", "has no method", "did you mean 'cancel'?"},
	{"names/duration", `ms5:total_msec()`,
		"Temporal.duration", "'total_msec'", "has no method", "did you mean 'total_ms'?"},
	{"names/instant", `I.parse("2000-01-01T00:00:00Z"):epochMs()`,
		"Temporal.instant", "'epochMs'", "has no method", "did you mean 'epoch_ms'?"},
	{"names/zone", `s:schedule_recurrence{ recurrence_set = daily, zone_id = "Europe/Pariss", callback = cb }`,
		"schedule-recurrence:", "zone-id:", `"Europe/Pariss"`, `did you mean "Europe/Paris"?`},
	{"names/module", `require "runtime_schedular"`,
		"module", "'runtime_schedular'", "not found", "did you mean 'runtime_scheduler'?"},
	{"names/module kebab", `require "event-lop"`,
		"module", "'event-lop'", "not found", "did you mean 'event-loop'?"},
	// hints that fit the mistake
	{"hints/event-loop real clock", elPre + `EL.new{ clock = "real" }`,
		"event-loop.new:", "the wall clock is refused", `use clock = "virtual" (the default)`, "--allow-wallclock"},
	{"hints/owner lease number", `s:owner{ lease = 100 }`,
		"'owner'", ":lease", "got number 100", "a number has no unit: write Temporal.duration{ milliseconds = 100 } or { seconds = 100 }"},
	{"hints/host owner lease number", `hs:owner{ lease = 2.5 }`,
		"'owner'", ":lease", "got number 2.5", "a number has no unit: write Temporal.duration{ seconds = 30 }, for example"},
	{"hints/handle dot call", `h1.remaining()`,
		"'remaining'", "#1", "got nil", "handle expected, got nil (call methods with ':')"},
}
