// Command gen writes a seeded synthetic benchmark case: an eval set with
// graded gold labels and a run of Q queries × H hits, as JSONL and as TREC
// qrels/run, so recallgate and trec_eval can score the same data.
//
//	go run ./bench/gen -queries 10000 -hits 1000 -out /tmp/rgbench
//	go run ./bench/gen -queries 3000 -gold 31 -zero-every 20 -out /tmp/rgbench   # as TREC collections come
//
// With -grow it instead writes a larger corpus from a BEIR corpus
// (JSONL, gzip-compressed when it ends in .gz): the documents as they are,
// then -copies perturbed copies of each under new ids ("ID~cN"), every copy
// with about a tenth of its words dropped and a few neighbours swapped, so
// the copies are near duplicates, not exact ones:
//
//	go run ./bench/gen -grow ../shared/data/scifact/corpus.jsonl.gz -copies 38 -out /tmp/sf200k   # 202,137 documents
package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	queries := flag.Int("queries", 10000, "number of queries")
	hits := flag.Int("hits", 1000, "hits per query")
	docs := flag.Int("docs", 100000, "corpus size the doc ids are drawn from")
	gold := flag.Int("gold", 8, "gold labels per query (grades 0–3)")
	zeroEvery := flag.Int("zero-every", 0, "judge every N-th query only grade 0 (none relevant), as TREC qrels may (0 = none)")
	seed := flag.Int64("seed", 1, "random seed")
	out := flag.String("out", "bench-data", "output folder")
	grow := flag.String("grow", "", "a BEIR corpus to grow instead (writes OUT/corpus.jsonl.gz)")
	copies := flag.Int("copies", 9, "with -grow: perturbed copies of each document")
	flag.Parse()
	if *grow != "" {
		if err := growCorpus(*grow, *copies, *seed, *out); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		return
	}
	if err := gen(*queries, *hits, *docs, *gold, *zeroEvery, *seed, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func gen(nq, nh, nd, ng, zeroEvery int, seed int64, out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	r := rand.New(rand.NewSource(seed))
	files := map[string]*bufio.Writer{}
	var closers []*os.File
	for _, name := range []string{"set.jsonl", "qrels.txt", "run.jsonl", "run.trec"} {
		f, err := os.Create(filepath.Join(out, name))
		if err != nil {
			return err
		}
		closers = append(closers, f)
		files[name] = bufio.NewWriterSize(f, 1<<20)
	}
	for q := 0; q < nq; q++ {
		qid := fmt.Sprintf("q%05d", q)
		// Gold docs: the first is always relevant, the others graded 0–3;
		// every zeroEvery-th query is judged only grade 0.
		zero := zeroEvery > 0 && q%zeroEvery == zeroEvery-1
		golds := map[string]int{}
		for len(golds) < ng {
			d := fmt.Sprintf("d%06d", r.Intn(nd))
			g := r.Intn(4)
			if len(golds) == 0 {
				g = 1 + r.Intn(3)
			}
			if zero {
				g = 0
			}
			golds[d] = g
		}
		w := files["set.jsonl"]
		unanswerable := ""
		if zero {
			unanswerable = `"unanswerable":true,`
		}
		fmt.Fprintf(w, `{"id":%q,"query":"synthetic query %d",%s"gold":{`, qid, q, unanswerable)
		i := 0
		for _, d := range sortedKeys(golds) {
			if i > 0 {
				w.WriteByte(',')
			}
			fmt.Fprintf(w, "%q:%d", d, golds[d])
			fmt.Fprintf(files["qrels.txt"], "%s 0 %s %d\n", qid, d, golds[d])
			i++
		}
		w.WriteString("}}\n")
		// Hits: unique doc ids, some gold docs planted at random ranks,
		// strictly decreasing scores so the TREC order is the JSONL order.
		seen := map[string]bool{}
		list := make([]string, 0, nh)
		for _, d := range sortedKeys(golds) {
			if r.Intn(3) > 0 {
				list = append(list, d)
				seen[d] = true
			}
		}
		for len(list) < nh {
			d := fmt.Sprintf("d%06d", r.Intn(nd))
			if !seen[d] {
				seen[d] = true
				list = append(list, d)
			}
		}
		r.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
		w = files["run.jsonl"]
		fmt.Fprintf(w, `{"id":%q,"hits":[`, qid)
		for rank, d := range list {
			if rank > 0 {
				w.WriteByte(',')
			}
			score := float64(nh-rank) / 10
			fmt.Fprintf(w, `{"doc":%q,"score":%.1f}`, d, score)
			fmt.Fprintf(files["run.trec"], "%s Q0 %s %d %.1f gen\n", qid, d, rank+1, score)
		}
		w.WriteString("]}\n")
	}
	for _, w := range files {
		if err := w.Flush(); err != nil {
			return err
		}
	}
	for _, f := range closers {
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// growCorpus writes OUT/corpus.jsonl.gz: the corpus at in, then copies
// perturbed copies of every document with new ids.
func growCorpus(in string, copies int, seed int64, out string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = bufio.NewReader(f)
	if strings.HasSuffix(in, ".gz") {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return err
		}
		r = zr
	}
	type doc struct {
		ID    string `json:"id"`
		Title string `json:"title"`
		Text  string `json:"text"`
	}
	var docs []doc
	dec := json.NewDecoder(r)
	for {
		var d doc
		if err := dec.Decode(&d); err == io.EOF {
			break
		} else if err != nil {
			return fmt.Errorf("%s: %w", in, err)
		}
		docs = append(docs, d)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	o, err := os.Create(filepath.Join(out, "corpus.jsonl.gz"))
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(o)
	w := bufio.NewWriterSize(zw, 1<<20)
	enc := json.NewEncoder(w)
	rnd := rand.New(rand.NewSource(seed))
	perturb := func(s string) string {
		words := strings.Fields(s)
		kept := words[:0]
		for _, w := range words {
			if rnd.Intn(10) > 0 {
				kept = append(kept, w)
			}
		}
		for i := 0; i+1 < len(kept); i += 7 + rnd.Intn(7) {
			kept[i], kept[i+1] = kept[i+1], kept[i]
		}
		return strings.Join(kept, " ")
	}
	for c := 0; c <= copies; c++ {
		for _, d := range docs {
			if c > 0 {
				d = doc{ID: fmt.Sprintf("%s~c%d", d.ID, c), Title: perturb(d.Title), Text: perturb(d.Text)}
			}
			if err := enc.Encode(d); err != nil {
				return err
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	fmt.Printf("%s: %d documents\n", filepath.Join(out, "corpus.jsonl.gz"), len(docs)*(copies+1))
	return o.Close()
}
