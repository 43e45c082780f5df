package gitexec

import (
	"context"
	"path/filepath"
	"sync"
)

// memo is one run's answers of TopLevel and Head, by folder.
type memo struct {
	mu    sync.Mutex
	tops  map[string]answer
	heads map[string]answer
	reads Reads
}

type answer struct {
	v   string
	err error
}

// Reads count the git processes a run started to read a checkout's top
// and its HEAD (Remember's memo counts them).
type Reads struct {
	TopLevel, Head int
}

type memoKey struct{}

// Remember returns a context under which TopLevel and Head ask git once
// per folder: a run reads its checkout's top and HEAD once, however many
// of its steps ask. A context that already remembers is returned as is.
func Remember(ctx context.Context) context.Context {
	if _, ok := ctx.Value(memoKey{}).(*memo); ok {
		return ctx
	}
	return context.WithValue(ctx, memoKey{}, &memo{tops: map[string]answer{}, heads: map[string]answer{}})
}

// Counted is how many times git was started under ctx's memo (Remember)
// to read a top and a HEAD; zero without one.
func Counted(ctx context.Context) Reads {
	m, ok := ctx.Value(memoKey{}).(*memo)
	if !ok {
		return Reads{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.reads
}

// remembered answers read through ctx's memo, if any: the folder's
// answer when one was read, else read's, kept. A cancelled read is not
// kept.
func remembered(ctx context.Context, which func(*memo) (map[string]answer, *int), dir string, read func() (string, error)) (string, error) {
	m, ok := ctx.Value(memoKey{}).(*memo)
	if !ok {
		return read()
	}
	key := dir
	if abs, err := filepath.Abs(dir); err == nil {
		key = abs
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	answers, count := which(m)
	if a, ok := answers[key]; ok {
		return a.v, a.err
	}
	v, err := read()
	*count++
	if ctx.Err() == nil {
		answers[key] = answer{v, err}
	}
	return v, err
}
