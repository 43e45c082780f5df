package gate

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseShard reads a shard "i/n" (1 ≤ i ≤ n).
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("wants i/n with 1 ≤ i ≤ n, got %q", s)
	}
	return i, n, nil
}
