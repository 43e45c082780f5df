package input

// HitsPerDepth is how many hits of one answer recallgate keeps for each
// candidate the gate scores: an answer holding more than
// MaxKeptHits(k) hits keeps its first MaxKeptHits(k) in rank order and
// the rest are dropped (with one warning per side), so a retriever that
// ignores k cannot grow memory without bound. The multiple leaves room for
// chunk hits that collapse to fewer documents.
const HitsPerDepth = 10

// MinKeptHits is the least an answer keeps, whatever the depth.
const MinKeptHits = 1000

// MaxKeptHits is the number of hits kept of one answer asked for k
// candidates: HitsPerDepth × k, and at least MinKeptHits.
func MaxKeptHits(k int) int {
	if n := HitsPerDepth * k; n > MinKeptHits {
		return n
	}
	return MinKeptHits
}
