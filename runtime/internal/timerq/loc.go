package timerq

// loc is where an entry is, as the ID table records it by ID. It is one
// int32, so the table costs 4 bytes per ID, and its ranges are ordered so
// that the usual case, a heap slot, is one unsigned compare:
//
//	far ring    below farLoc0       farLoc0 - (chunk*farChunk + offset)
//	free ID     -maxLen .. 0        -(next free ID + 1); 0 ends the list
//	heap slot   1 .. maxLen         slot index + 1
//	hot entry   hotLoc              maxLen + 1
//	run         above hotLoc        run index + hotLoc + 1
//
// maxLen is also the most entries a heap holds, and farMaxN the most the
// far ring holds, so every loc fits.
type loc int32

const (
	maxLen  = 1<<30 - 1
	hotLoc  = loc(maxLen + 1)
	farLoc0 = loc(-maxLen - 1)
)

// heapLoc is the loc of heap slot i.
func heapLoc(i int) loc { return loc(i + 1) }

// inHeap reports whether p is a heap slot.
func (p loc) inHeap() bool { return uint32(p-1) < maxLen }

// heapIndex is the slot index of a heap loc.
func (p loc) heapIndex() int { return int(p - 1) }

// runLoc is the loc of run slot i.
func runLoc(i int) loc { return hotLoc + 1 + loc(i) }

// runIndex is the slot index of a run loc.
func (p loc) runIndex() int { return int(p - hotLoc - 1) }

// farLoc is the loc of slot off of far chunk c.
func farLoc(c, off int32) loc { return farLoc0 - loc(c*farChunk+off) }

// inFar reports whether p is in the far ring.
func (p loc) inFar() bool { return p <= farLoc0 }

// chunk returns the far chunk and the slot in it of a far loc.
func (p loc) chunk() (c, off int32) {
	k := int32(farLoc0 - p)
	return k / farChunk, k % farChunk
}

// freeLoc is the loc of a free ID whose successor on the free list is
// next-1 (next is 0 at the end of the list, like Heap.free).
func freeLoc(next int32) loc { return loc(-next) }

// isFree reports whether p is a free ID's.
func (p loc) isFree() bool { return farLoc0 < p && p <= 0 }

// nextFree is the successor, plus one, of a free ID on the free list.
func (p loc) nextFree() int32 { return int32(-p) }
