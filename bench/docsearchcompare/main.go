// Command docsearchcompare weighs bleve v2 against folio's own BM25
// (package docsearch) for issue 36's docs search, on the same chunks of
// testdata/docsearch: quality on the tune half of its questions (hit@2000
// and hit@500, as docsearch/eval_test.go measures them), and speed and
// memory over the corpus repeated to a size. bench/docsearchcompare.sh
// runs it; it is a separate module so that folio's go.mod does not gain
// bleve.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/folio-mcp/folio/tokencount"
)

// chunkWords is the most words of a passage, as docsearch's index cuts
// them.
const chunkWords = 100

func main() {
	fixture := flag.String("fixture", "testdata/docsearch", "the docs search fixture")
	mode := flag.String("mode", "quality", "quality (tune half) or speed (corpus repeated to -mb)")
	engineName := flag.String("engine", "folio", "speed: folio (docsearch's index), bleve-mem (scorch in memory) or bleve-disk (scorch in -dir)")
	mb := flag.Float64("mb", 100, "speed: megabytes of text to index (the corpus repeated)")
	dir := flag.String("dir", "", "speed: the directory bleve-disk makes its index in (must not exist)")
	batch := flag.Int("batch", 1000, "chunks in a bleve batch")
	rounds := flag.Int("rounds", 1, "speed: times each tune question is searched")
	flag.Parse()
	qs, err := tuneQuestions(*fixture)
	if err != nil {
		log.Fatal(err)
	}
	files, size, err := corpus(*fixture)
	if err != nil {
		log.Fatal(err)
	}
	switch *mode {
	case "quality":
		err = quality(qs, files, *batch)
	case "speed":
		err = speed(qs, files, size, speedOptions{*engineName, *mb, *dir, *batch, *rounds})
	default:
		err = fmt.Errorf("-mode %q: quality or speed", *mode)
	}
	if err != nil {
		log.Fatal(err)
	}
}

// variant is one way of indexing the passages for the quality table.
type variant struct {
	name string
	make func() (engine, error)
}

func variants(batch int) []variant {
	bleveWith := func(o bleveOptions) func() (engine, error) {
		o.batch = batch
		return func() (engine, error) { return newBleve(o) }
	}
	vs := []variant{
		{"folio docsearch (Index.Search)", func() (engine, error) { return newFolio(), nil }},
	}
	for _, a := range []string{"en", "standard"} {
		for _, s := range []string{"bm25", "tfidf"} {
			vs = append(vs, variant{fmt.Sprintf("bleve scorch, %s analyzer, %s", a, s), bleveWith(bleveOptions{analyzer: analyzers[a], scoring: scorings[s]})})
		}
	}
	return append(vs,
		variant{"bleve scorch, en analyzer, bm25 with true mean lengths", bleveWith(bleveOptions{analyzer: analyzers["en"], scoring: scorings["bm25"], trueLength: true})},
		variant{"bleve scorch, en analyzer, bm25, one field (headings twice, then body)", bleveWith(bleveOptions{analyzer: analyzers["en"], scoring: scorings["bm25"], oneField: true})},
		variant{"bleve scorch, en analyzer, bm25 with true mean lengths, one field", bleveWith(bleveOptions{analyzer: analyzers["en"], scoring: scorings["bm25"], oneField: true, trueLength: true})},
		variant{"bleve NewMemOnly (upsidedown), en analyzer, bm25 asked", bleveWith(bleveOptions{analyzer: analyzers["en"], scoring: scorings["bm25"], upsidedown: true})},
	)
}

// quality indexes the corpus's passages with every variant and prints
// its figures on the tune half.
func quality(qs []question, files []file, batch int) error {
	counter, err := tokencount.New(tokencount.O200kBase)
	if err != nil {
		return err
	}
	var cs []chunk
	lines := map[string][]string{}
	for _, f := range files {
		cs = append(cs, chunks(f, chunkWords)...)
		lines[f.path] = strings.SplitAfter(f.text, "\n")
	}
	answered := 0
	for _, q := range qs {
		if len(q.Answers) > 0 {
			answered++
		}
	}
	fmt.Printf("tune half: %d questions, %d with an answer; %d files, %d passages of at most %d words\n\n", len(qs), answered, len(files), len(cs), chunkWords)
	fmt.Println("| index | hit@2000 | hit@500 | tokens on no-answer questions (of 2000) | over budget |")
	fmt.Println("| --- | --- | --- | --- | --- |")
	for _, v := range variants(batch) {
		if err := qualityRow(counter, v, qs, files, lines, cs); err != nil {
			return err
		}
	}
	return nil
}

// qualityRow indexes files with v's engine and prints its row.
func qualityRow(counter tokencount.Counter, v variant, qs []question, files []file, lines map[string][]string, cs []chunk) error {
	e, err := v.make()
	if err != nil {
		return err
	}
	if err := addAll(e, files, ""); err != nil {
		return err
	}
	if f, ok := e.(*folio); ok && f.ix.Stats().Passages != len(cs) {
		return fmt.Errorf("%s: %d passages, where chunks cuts %d: the engines would not rank the same passages", v.name, f.ix.Stats().Passages, len(cs))
	}
	s, err := evaluate(counter, qs, lines, e.search)
	if err != nil {
		return err
	}
	if s.answered == 0 {
		return fmt.Errorf("%s: no question with an answer: nothing measured", v.name)
	}
	fmt.Printf("| %s | %.3f | %.3f | %.0f | %d |\n", v.name, float64(s.hit2000)/float64(s.answered), float64(s.hit500)/float64(s.answered), float64(s.noneTokens)/float64(max(s.none, 1)), s.over)
	if s.over > 0 {
		return fmt.Errorf("%s: %d answers over their budget", v.name, s.over)
	}
	if be, ok := e.(*bleveEngine); ok && v.name == "bleve scorch, en analyzer, bm25" {
		if err := printMeans(be, cs); err != nil {
			return err
		}
	}
	return e.close()
}

// printMeans prints, after the row of bleve's BM25, the mean field
// lengths it scores by beside the true ones.
func printMeans(e *bleveEngine, cs []chunk) error {
	for _, field := range []string{"body", "headings"} {
		bm, tm, err := meanLength(e.idx, e.opts.analyzer, field, cs)
		if err != nil {
			return err
		}
		fmt.Printf("|   (mean length of %s: bleve's BM25 takes %.0f, the true mean is %.1f tokens) | | | | |\n", field, bm, tm)
	}
	return nil
}

// addAll adds files to e, each path under prefix, and flushes.
func addAll(e engine, files []file, prefix string) error {
	for _, f := range files {
		if err := e.add(file{prefix + f.path, f.text}); err != nil {
			return err
		}
	}
	return e.flush()
}

// speedOptions are the speed mode's flags.
type speedOptions struct {
	engine string
	mb     float64
	dir    string
	batch  int
	rounds int
}

// speed indexes the corpus repeated to o.mb (each copy under its own path
// prefix), with one engine, and prints a row: indexing rate (chunking
// included, and chunking alone), heap in use after indexing, size on
// disk, and the search latencies of the tune questions. Times are CPU
// time (the process's, on one core when GOMAXPROCS=1), not wall time, so
// that other work on the machine does not count.
func speed(qs []question, files []file, size int, o speedOptions) error {
	copies := int(o.mb*1e6+float64(size)-1) / size
	total := float64(copies*size) / 1e6
	n := 0
	chunking := cpuTime(func() {
		for c := range copies {
			for _, f := range files {
				n += len(chunks(file{fmt.Sprintf("copy%03d/%s", c, f.path), f.text}, chunkWords))
			}
		}
	})
	e, err := speedEngine(o)
	if err != nil {
		return err
	}
	before := heapInuse()
	indexing := cpuTime(func() {
		for c := range copies {
			if err = addAll(e, files, fmt.Sprintf("copy%03d/", c)); err != nil {
				return
			}
		}
		e, err = persist(e, o)
	})
	if err != nil {
		return err
	}
	heap := (float64(heapInuse()) - float64(before)) / 1e6
	p50, p90, err := latencies(e, qs, o.rounds)
	if err != nil {
		return err
	}
	disk, err := dirSize(o.dir)
	if err != nil {
		return err
	}
	name := o.engine
	if strings.HasPrefix(o.engine, "bleve") {
		name += fmt.Sprintf(", batches of %d", o.batch)
	}
	fmt.Printf("| %s | %.1f MB (%d copies, %d chunks) | %.1f | %.1f | %.0f MB (%.2f per MB) | %.0f MB (%.2f per MB) | %s | %s | %s |\n",
		name, total, copies, n, total/indexing.Seconds(), total/chunking.Seconds(), heap, heap/total, disk/1e6, disk/1e6/total,
		rss(), p50.Round(10*time.Microsecond), p90.Round(10*time.Microsecond))
	return e.close()
}

// speedEngine makes the engine o names: folio's docsearch index, or
// bleve with the en analyzer and BM25, in memory or in o.dir.
func speedEngine(o speedOptions) (engine, error) {
	bo := bleveOptions{analyzer: analyzers["en"], scoring: scorings["bm25"], batch: o.batch}
	switch o.engine {
	case "folio":
		return newFolio(), nil
	case "bleve-mem":
		return newBleve(bo)
	case "bleve-disk":
		if o.dir == "" {
			return nil, fmt.Errorf("bleve-disk needs -dir")
		}
		bo.path = o.dir
		return newBleve(bo)
	}
	return nil, fmt.Errorf("-engine %q: folio, bleve-mem or bleve-disk", o.engine)
}

// persist closes an index on disk (its segments written) and opens it
// again for searching; other engines are as they were.
func persist(e engine, o speedOptions) (engine, error) {
	be, ok := e.(*bleveEngine)
	if !ok || be.opts.path == "" {
		return e, nil
	}
	if err := be.close(); err != nil {
		return nil, err
	}
	idx, err := bleve.Open(be.opts.path)
	if err != nil {
		return nil, err
	}
	be.idx = idx
	return be, nil
}

// latencies searches every question rounds times, and gives the median
// and the 90th percentile of their CPU times.
func latencies(e engine, qs []question, rounds int) (p50, p90 time.Duration, err error) {
	var ds []time.Duration
	for range rounds {
		for _, q := range qs {
			ds = append(ds, cpuTime(func() { _, err = e.search(q.Question) }))
			if err != nil {
				return 0, 0, err
			}
		}
	}
	slices.Sort(ds)
	return ds[len(ds)/2], ds[len(ds)*9/10], nil
}

// cpuTime is the CPU time (user and system) the process spends while f
// runs.
func cpuTime(f func()) time.Duration {
	used := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			log.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := used()
	f()
	return used() - start
}

// heapInuse is the heap in use after a collection.
func heapInuse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// rss is the process's resident set as /proc says it (mapped index files
// included), or "?".
func rss() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

// dirSize is the bytes of the files under dir, 0 when dir is "".
func dirSize(dir string) (float64, error) {
	if dir == "" {
		return 0, nil
	}
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	return float64(n), err
}
