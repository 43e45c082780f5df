package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/recallgate/recallgate/gate/corpus"
)

func main() {
	f, _ := os.Create("/tmp/corpus-w/cpu.prof")
	pprof.StartCPUProfile(f)
	defer pprof.StopCPUProfile()
	t := time.Now()
	n := 0
	err := corpus.Walk(os.Args[1], func(d corpus.Document) error { n++; return nil })
	fmt.Println(n, err, time.Since(t))
}
