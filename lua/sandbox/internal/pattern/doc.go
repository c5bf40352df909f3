// Package pattern matches Lua 5.1 patterns (the reference manual,
// section 5.4.1) in byte strings, for string.find, match, gmatch and gsub.
//
// # Compiling
//
// Compile checks a whole pattern before any match is tried, so a
// malformed pattern is an error whatever the subject. What the manual
// leaves undefined, and the error texts, follow gopher-lua's string
// library (see Compile).
//
// # Matching
//
// A match backtracks over a stack of choices, one for each quantified
// item passed that could still match differently; it does not recurse.
// Patterns such as ("a-"):rep(5) .. "b" take time that grows as a power of
// the subject's length: a match calls its stop function every CheckEvery
// steps and ends with ErrStopped when it says so. At most MaxDepth choices
// stay open (ErrTooComplex), as Lua bounds its matcher.
//
// # Concurrency
//
// A Pattern may be shared; a Matcher belongs to one goroutine.
package pattern
