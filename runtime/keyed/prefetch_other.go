//go:build !amd64

package keyed

// prefetch does nothing here; see prefetch_amd64.go.
func prefetch(addr uintptr) {}
