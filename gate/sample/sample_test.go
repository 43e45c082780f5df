package sample

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// genLog writes a JSONL query log of n lines shaped like real traffic: a
// few head queries asked very often, a long tail, case and punctuation
// variants, near duplicates (a word added), blank lines, pasted documents
// and broken lines.
func genLog(n int, seed uint64) (string, int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	topics := []string{"rotate api key", "dlq redrive", "max message size", "fifo queue ordering", "retention days",
		"delete a queue", "webhook retries", "billing invoice download", "rate limit 429", "consumer lag alert"}
	var b strings.Builder
	malformed := 0
	for i := 0; i < n; i++ {
		switch r := rng.IntN(100); {
		case r < 2:
			b.WriteString("\n")
		case r < 3:
			fmt.Fprintf(&b, `{"query":%q}`+"\n", strings.Repeat("pasted log output ", 40))
		case r < 4:
			b.WriteString(`{"query": "unterminated` + "\n")
			malformed++
		case r < 40: // head: the topics, in variants
			t := topics[rng.IntN(len(topics))]
			switch rng.IntN(4) {
			case 0:
				t = strings.ToUpper(t)
			case 1:
				t += "?"
			case 2:
				t = "how to " + t // near duplicate for the longer topics
			}
			fmt.Fprintf(&b, `{"query":%q,"user":"u%d"}`+"\n", t, rng.IntN(50))
		default: // tail
			fmt.Fprintf(&b, `{"query":"question %d about topic %d"}`+"\n", rng.IntN(3000), rng.IntN(40))
		}
	}
	return b.String(), malformed
}

func TestTenThousandLines(t *testing.T) {
	log, malformed := genLog(10000, 7)
	qs, st, err := Read(strings.NewReader(log), "log.jsonl", Options{Format: JSONL})
	if err != nil {
		t.Fatal(err)
	}
	if st.Lines != 10000 || st.Malformed != malformed || st.Empty == 0 || st.TooLong == 0 || st.Duplicates == 0 || st.NearDuplicates == 0 {
		t.Errorf("stats %+v (malformed want %d)", st, malformed)
	}
	if len(st.Bad) == 0 || st.Bad[0].Line == 0 || !strings.Contains(st.Bad[0].Reason, "not a JSON object") {
		t.Errorf("malformed lines must be named with their line: %+v", st.Bad)
	}
	if qs[0].Count < qs[len(qs)-1].Count {
		t.Error("queries are not most asked first")
	}
	bad, _, err := Read(strings.NewReader("complaint: DLQ redrive broken\nwebhook retries\nwhere is my invoice\nexport audit log\n"), "bad.txt", Options{})
	if err != nil {
		t.Fatal(err)
	}
	picks := Draw(qs, bad, 30, 1)
	var nBad, nOrd int
	ids := map[string]bool{}
	for _, p := range picks {
		if p.Segment == KnownFailure {
			nBad++
		} else {
			nOrd++
		}
		ids[ID(p.Key)] = true
	}
	if len(picks) != 30 || nBad != 4 || nOrd != 26 || len(ids) != 30 {
		t.Errorf("%d picks: %d known failures (all 4), %d ordinary, %d distinct ids", len(picks), nBad, nOrd, len(ids))
	}
	again := Draw(qs, bad, 30, 1)
	other := Draw(qs, bad, 30, 2)
	if fmt.Sprint(again) != fmt.Sprint(picks) {
		t.Error("the same seed drew differently")
	}
	if fmt.Sprint(other) == fmt.Sprint(picks) {
		t.Error("another seed drew the same")
	}
	// With as many known failures as half the size, the split is half and half.
	many := make([]Query, 40)
	for i := range many {
		many[i] = Query{Text: fmt.Sprintf("bad %d", i), Key: fmt.Sprintf("bad %d", i), Count: 1}
	}
	half := Draw(qs, many, 30, 1)
	nBad = 0
	for _, p := range half {
		if p.Segment == KnownFailure {
			nBad++
		}
	}
	if len(half) != 30 || nBad != 15 {
		t.Errorf("split %d of %d", nBad, len(half))
	}
}

func TestWeightedByFrequency(t *testing.T) {
	// "hot" is asked 1000 times, 50 others once each: over many seeds a
	// draw of 5 ordinary queries nearly always holds it.
	qs := []Query{{Text: "hot", Key: "hot", Count: 1000}}
	for i := 0; i < 50; i++ {
		k := fmt.Sprintf("cold %d", i)
		qs = append(qs, Query{Text: k, Key: k, Count: 1})
	}
	hits := 0
	for seed := uint64(0); seed < 200; seed++ {
		for _, p := range Draw(qs, nil, 5, seed) {
			if p.Key == "hot" {
				hits++
			}
		}
	}
	if hits < 195 {
		t.Errorf("the most asked query was drawn %d times in 200", hits)
	}
}

func TestNormalizeAndNearDuplicates(t *testing.T) {
	if got := Normalize("  How do I  ROTATE an API-key?? "); got != "how do i rotate an api key" {
		t.Errorf("Normalize = %q", got)
	}
	log := "rotate api key\nRotate API key!\nhow to rotate api key\nrotate the api key now please\ndlq redrive\n"
	qs, st, err := Read(strings.NewReader(log), "l", Options{})
	if err != nil {
		t.Fatal(err)
	}
	// "rotate api key" ×2 exact; "how to rotate api key" has 3 of 5 tokens: 0.6 < 0.8, kept.
	if st.Duplicates != 1 || len(qs) != 4 || qs[0].Text != "rotate api key" || qs[0].Count != 2 {
		t.Errorf("stats %+v queries %+v", st, qs)
	}
	qs, st, _ = Read(strings.NewReader("rotate api key please\nrotate api key please now\n"), "l", Options{})
	// 4 of 5 tokens shared: 0.8, merged into the earlier (equally asked).
	if st.NearDuplicates != 1 || len(qs) != 1 || qs[0].Count != 2 || qs[0].Text != "rotate api key please" {
		t.Errorf("near: stats %+v queries %+v", st, qs)
	}
}

func TestFormatsAndBadInput(t *testing.T) {
	qs, _, err := Read(strings.NewReader("ts,query,user\n1,\"rotate, api key\",a\n2,dlq redrive,b\n3\n"), "l.csv", Options{Format: CSV})
	if err != nil || len(qs) != 2 || qs[0].Text != "rotate, api key" {
		t.Errorf("csv: %v %+v", err, qs)
	}
	_, st, err := Read(strings.NewReader("ts,query\n1,ok\n3\n"), "l.csv", Options{Format: CSV})
	if err != nil || st.Malformed != 1 || st.Bad[0].Line != 3 {
		t.Errorf("short csv row: %v %+v", err, st)
	}
	if _, _, err := Read(strings.NewReader("a,b\n1,2\n"), "l.csv", Options{Format: CSV}); err == nil || !strings.Contains(err.Error(), `no column "query"`) {
		t.Errorf("missing column: %v", err)
	}
	qs, _, err = Read(strings.NewReader(`{"q":"x"}`+"\n"+`{"q":"y"}`+"\n"), "l.jsonl", Options{Format: JSONL, Field: "q"})
	if err != nil || len(qs) != 2 {
		t.Errorf("jsonl field: %v %+v", err, qs)
	}
	if _, st, err := Read(strings.NewReader("\n\n   \n"+strings.Repeat("x", 400)+"\n"), "empty.log", Options{}); err == nil || !strings.Contains(err.Error(), "no usable query") || st.TooLong != 1 {
		t.Errorf("nothing usable: %v %+v", err, st)
	}
}

func BenchmarkReadAndDraw10k(b *testing.B) {
	log, _ := genLog(10000, 7)
	b.SetBytes(int64(len(log)))
	for i := 0; i < b.N; i++ {
		qs, _, err := Read(strings.NewReader(log), "log.jsonl", Options{Format: JSONL})
		if err != nil {
			b.Fatal(err)
		}
		Draw(qs, nil, 30, 1)
	}
}

// FuzzRead: no log, however broken, crashes Read or yields a query that is
// empty, over the limit or counted as asked fewer than once.
func FuzzRead(f *testing.F) {
	f.Add([]byte("rotate api key\nRotate API key!\n\nhow to rotate api key\n"), 0)
	f.Add([]byte(`{"query":"a"}`+"\n"+`{"query": 1}`+"\n"+`{broken`+"\n"), 1)
	f.Add([]byte("ts,query\n1,\"a, b\"\n2,\"unterminated\n3\n"), 2)
	f.Fuzz(func(t *testing.T, data []byte, format int) {
		o := Options{Format: []string{Text, JSONL, CSV}[uint(format)%3], MaxChars: 50}
		qs, st, err := Read(strings.NewReader(string(data)), "fuzz", o)
		if err != nil {
			return
		}
		total := 0
		for _, q := range qs {
			if strings.TrimSpace(q.Text) == "" || len([]rune(q.Text)) > 50 || q.Count < 1 || Normalize(q.Text) == "" {
				t.Fatalf("bad query %+v", q)
			}
			total += q.Count
		}
		if total > st.Lines {
			t.Fatalf("%d asks from %d lines", total, st.Lines)
		}
		Draft(Draw(qs, nil, 5, 1))
	})
}

func TestNearDuplicateCases(t *testing.T) {
	cases := []struct {
		name, a, b string
		merged     bool
	}{
		{"typo", "how do i rotate my api token", "how do i rotate my api tokne", true},
		{"short words are not typos", "how do i rotate my api key", "how do i rotate my api kye", false},
		{"dropped letter", "configure the dead letter queue redrive", "configure the dead leter queue redrive", true},
		{"extra letter", "what is the maximum message size", "what is the maximumm message size", true},
		{"negation", "is vitamin d supplementation effective", "is vitamin d supplementation not effective", false},
		{"negation word swapped", "can i delete a queue that still has messages with the cli", "can i delete a queue that still has messages without the cli", false},
		{"swapped comparison", "are arterioles larger than venules in skin", "are venules larger than arterioles in skin", false},
		{"two typos in one word", "how do i rotate my api token", "how do i rotate my api tekon", false},
		{"numbers are not typos", "error 4031 on upload to bucket", "error 4032 on upload to bucket", false},
		{"different word", "retention days for fifo queue", "retention hours for fifo queue", false},
		// 10 of 12 words shared (0.83): one content word substituted for
		// another that is no typo of it is another question.
		{"substituted word", "does vitamin d supplementation increase bone mineral density in older adults", "does vitamin d supplementation reduce bone mineral density in older adults", false},
		// A stop word for another ("my" for "the"): 10 of 11 shared, one.
		{"substituted stop word", "how do i rotate my api token for the staging cluster", "how do i rotate the api token for the staging cluster", true},
	}
	// Each pair differs in one word (or its order, or a negation) and
	// would pass 0.8 if that word were taken for a typo of the other, so
	// only the rule under test keeps it apart.
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			qs, st, err := Read(strings.NewReader(c.a+"\n"+c.b+"\n"), "l", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := st.NearDuplicates == 1 && len(qs) == 1; got != c.merged {
				t.Errorf("%q / %q: merged=%v, want %v (stats %+v)", c.a, c.b, got, c.merged, st)
			}
		})
	}
}

// TestTypoTwinsAndNegationsOnAGeneratedLog: 60 questions of 6–9 words, each
// asked in its own spelling and in 3 one-letter typos (a changed, added,
// dropped or swapped letter in a word of 5+ letters), beside 20 negation
// pairs and 10 swapped comparisons. After reading, every question must be
// one query (no typo twins left to draft twice) and no pair may be one.
func TestTypoTwinsAndNegationsOnAGeneratedLog(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	subjects := []string{"retention", "webhook", "invoice", "consumer", "partition", "snapshot", "message", "schedule", "workspace", "throughput"}
	verbs := []string{"configure", "rotate", "restore", "monitor", "increase", "disable", "export", "migrate"}
	places := []string{"console", "terraform", "dashboard", "pipeline", "cluster", "staging", "production"}
	typo := func(q string) string {
		ws := strings.Fields(q)
		for {
			i := rng.IntN(len(ws))
			w := []byte(ws[i])
			if len(w) < 5 {
				continue
			}
			p := rng.IntN(len(w) - 1)
			switch rng.IntN(4) {
			case 0:
				w[p] = byte('a' + (int(w[p]-'a')+1+rng.IntN(24))%26)
			case 1:
				w = append(w[:p+1], append([]byte{byte('a' + rng.IntN(26))}, w[p+1:]...)...)
			case 2:
				w = append(w[:p], w[p+1:]...)
			default:
				if w[p] == w[p+1] {
					continue
				}
				w[p], w[p+1] = w[p+1], w[p]
			}
			ws[i] = string(w)
			return strings.Join(ws, " ")
		}
	}
	var log strings.Builder
	var questions []string
	spellings := map[string][]string{} // question → its 4 normalised spellings
	var contents [][4]string
	for len(questions) < 60 {
		c := [4]string{verbs[rng.IntN(len(verbs))], subjects[rng.IntN(len(subjects))], subjects[rng.IntN(len(subjects))], places[rng.IntN(len(places))]}
		// Two questions sharing three of their four content words are
		// near duplicates by the word rule alone; keep them further apart.
		close := c[1] == c[2]
		for _, o := range contents {
			same := 0
			for _, w := range c {
				if w == o[0] || w == o[1] || w == o[2] || w == o[3] {
					same++
				}
			}
			close = close || same > 2
		}
		if close {
			continue
		}
		contents = append(contents, c)
		q := fmt.Sprintf("how to %s the %s %s on %s", c[0], c[1], c[2], c[3]) // 8 words: one typo leaves 7 of 9, under 0.8
		questions = append(questions, q)
		fmt.Fprintln(&log, q)
		spellings[q] = []string{Normalize(q)}
		for k := 0; k < 3; k++ {
			v := typo(q)
			fmt.Fprintln(&log, v)
			spellings[q] = append(spellings[q], Normalize(v))
		}
	}
	var pairs [][2]string
	for i := 0; i < 20; i++ {
		s, v := subjects[i%len(subjects)], verbs[i%len(verbs)]
		pairs = append(pairs, [2]string{fmt.Sprintf("does %s %s the %s automatically", s, v, places[i%len(places)]),
			fmt.Sprintf("does %s not %s the %s automatically", s, v, places[i%len(places)])})
	}
	for i := 0; i < 10; i++ {
		a, b := subjects[i], subjects[(i+3)%len(subjects)]
		pairs = append(pairs, [2]string{fmt.Sprintf("is the %s larger than the %s by default", a, b),
			fmt.Sprintf("is the %s larger than the %s by default", b, a)})
	}
	for _, p := range pairs {
		fmt.Fprintln(&log, p[0])
		fmt.Fprintln(&log, p[1])
	}
	qs, st, err := Read(strings.NewReader(log.String()), "log", Options{})
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]int{}
	for _, q := range qs {
		byKey[q.Key] = q.Count
	}
	// A question is one query when exactly one drafted query holds one of
	// its spellings and counts all four lines (the most asked spelling
	// leads: two identical typos outnumber the original).
	twins := 0
	for _, q := range questions {
		holders, count := 0, 0
		for _, sp := range spellings[q] {
			if c, ok := byKey[sp]; ok {
				holders++
				count += c
				delete(byKey, sp)
			}
		}
		if holders != 1 || count != 4 {
			twins++
			t.Logf("question %q: %d queries, %d lines; want 1 query of its 4 spellings", q, holders, count)
		}
	}
	merged := 0
	for _, p := range pairs {
		if byKey[Normalize(p[0])] != 1 || byKey[Normalize(p[1])] != 1 {
			merged++
		}
	}
	t.Logf("%d questions × 4 spellings: %d left with a typo twin; %d negation and swapped pairs: %d merged; %s", len(questions), twins, len(pairs), merged, st)
	if twins != 0 || merged != 0 || len(qs) != len(questions)+2*len(pairs) {
		t.Errorf("typo twins %d of %d, pairs merged %d of %d, %d distinct queries (want %d)", twins, len(questions), merged, len(pairs), len(qs), len(questions)+2*len(pairs))
	}
}

func TestKnownFailuresMergedWithTheirLogTwins(t *testing.T) {
	var log strings.Builder
	log.WriteString("does retention expire old messages\n")
	for i := 0; i < 159; i++ {
		log.WriteString("How do I rotate my API token?\n")
	}
	log.WriteString("what is the maximum message size\n")
	qs, _, err := Read(strings.NewReader(log.String()), "search.log", Options{})
	if err != nil {
		t.Fatal(err)
	}
	known, _, err := Read(strings.NewReader("why is the console slow\nhow do i rotate my api tokne\ndoes retention not expire old messages\n"), "complaints.txt", Options{})
	if err != nil {
		t.Fatal(err)
	}
	ordinary, bad := MergeKnown(qs, known, Options{})
	if len(ordinary) != 2 {
		t.Errorf("ordinary pool %+v: the token question's log twin should have left it", ordinary)
	}
	drafts := Draft(Draw(ordinary, bad, 10, 1))
	notes := map[string]string{}
	for _, d := range drafts {
		notes[d.Text] = d.Segments[0] + ", source " + d.Source + ": " + d.Note
	}
	want := map[string]string{
		// the typo twin: the complaint's spelling, the log's frequency.
		"how do i rotate my api tokne": "known-failure, source log: known failure (complaints.txt line 2); asked 159 times in the log (first on line 2)",
		// not in the log: its source is the known-bad file, never "log".
		"why is the console slow": "known-failure, source known-bad: known failure (complaints.txt line 1); not in the log",
		// a negation is another question: both stay.
		"does retention not expire old messages": "known-failure, source known-bad: known failure (complaints.txt line 3); not in the log",
		"does retention expire old messages":     "ordinary, source log: asked once in the log (first on line 1)",
		"what is the maximum message size":       "ordinary, source log: asked once in the log (first on line 161)",
	}
	if len(drafts) != len(want) {
		t.Errorf("%d drafts, want %d: %v", len(drafts), len(want), notes)
	}
	for text, w := range want {
		if notes[text] != w {
			t.Errorf("%q: %q, want %q", text, notes[text], w)
		}
	}
}

func TestLogFormatAndBOM(t *testing.T) {
	cases := []struct {
		path, format  string
		field, column bool
		want          string // "" = an error
	}{
		{"log.txt", "", false, false, Text},
		{"log.txt", "", true, false, JSONL}, // --field decides whatever the name
		{"export.dat", "", false, true, CSV},
		{"log.jsonl", "", false, false, JSONL},
		{"log.csv", "", true, false, ""},    // CSV by name, --field for JSONL
		{"log.jsonl", "", false, true, ""},  // JSONL by name, --column for CSV
		{"log.txt", "csv", true, false, ""}, // --format csv with --field
		{"log.txt", "jsonl", true, false, JSONL},
		{"log.txt", "", true, true, ""},
	}
	for _, c := range cases {
		got, err := LogFormat(c.path, c.format, c.field, c.column)
		if (err != nil) != (c.want == "") || got != c.want {
			t.Errorf("LogFormat(%q, %q, field %v, column %v) = %q, %v; want %q", c.path, c.format, c.field, c.column, got, err, c.want)
		}
		if err != nil && !errors.Is(err, ErrFormat) {
			t.Errorf("%v is not an ErrFormat", err)
		}
	}
	for format, log := range map[string]string{
		JSONL: "\ufeff{\"query\":\"rotate api key\"}\n{\"query\":\"dlq redrive\"}\n",
		CSV:   "\ufeffquery,user\nrotate api key,u1\ndlq redrive,u2\n",
		Text:  "\ufeffrotate api key\ndlq redrive\n",
	} {
		qs, st, err := Read(strings.NewReader(log), "log", Options{Format: format})
		if err != nil || st.Malformed != 0 || len(qs) != 2 || qs[0].Text != "rotate api key" && qs[1].Text != "rotate api key" {
			t.Errorf("%s with a byte order mark: %v %+v %v", format, qs, st, err)
		}
	}
}

func TestCSVErrorNamesTheRowWhereItStarts(t *testing.T) {
	log := "query,user\nrotate api key,u1\n\"a quoted field\nthat runs on\nthen closes\" badly,u2\ndlq redrive,u3\n"
	_, st, _ := Read(strings.NewReader(log), "log.csv", Options{Format: CSV})
	if len(st.Bad) == 0 || st.Bad[0].Line != 3 || !strings.Contains(st.Bad[0].Reason, "noticed on line") {
		t.Errorf("bad rows %+v: want the row starting on line 3", st.Bad)
	}
}
