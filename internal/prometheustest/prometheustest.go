// Package prometheustest runs a real Prometheus (Debian's package) for
// tests: it scrapes the targets it is given every 200 ms and answers
// instant queries.
package prometheustest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/folio-mcp/folio/internal/mcptest"
)

// Prometheus is a running Prometheus.
type Prometheus struct {
	// URL is its HTTP API's base.
	URL string
	log string
}

// Start runs Prometheus scraping targets (host:port, /metrics), until the
// test ends. Without prometheus on PATH the test is skipped, unless
// FOLIO_REQUIRE_PROMETHEUS is set (as in CI), when it fails.
func Start(t testing.TB, targets ...string) *Prometheus {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("FOLIO_REQUIRE_PROMETHEUS") != "" {
			t.Fatalf("prometheus is required (FOLIO_REQUIRE_PROMETHEUS is set): %v", err)
		}
		t.Skip("prometheus is not installed (apt-get install prometheus)")
	}
	dir := t.TempDir()
	quoted, _ := json.Marshal(targets)
	config := fmt.Sprintf(`global:
  scrape_interval: 200ms
  scrape_timeout: 200ms
scrape_configs:
  - job_name: folio
    static_configs:
      - targets: %s
`, quoted)
	path := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := mcptest.FreeAddr(t)
	p := &Prometheus{URL: "http://" + addr, log: filepath.Join(dir, "prometheus.log")}
	out, err := os.Create(p.log)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command(bin, "--config.file="+path, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(p.URL + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus was not ready within 20 s:\n%s", p.Log())
		}
	}
}

// Log is what Prometheus has logged.
func (p *Prometheus) Log() string {
	b, _ := os.ReadFile(p.log)
	return string(b)
}

// Query answers the instant query q: the value of its one sample, and
// whether there is one.
func (p *Prometheus) Query(t testing.TB, q string) (float64, bool) {
	t.Helper()
	resp, err := http.Get(p.URL + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var answer struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		t.Fatalf("query %s: %v", q, err)
	}
	if answer.Status != "success" {
		t.Fatalf("query %s: %s", q, answer.Error)
	}
	if len(answer.Data.Result) != 1 {
		return 0, false
	}
	s, _ := answer.Data.Result[0].Value[1].(string)
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

// Await waits until the query q answers want, and fails the test when it
// does not within 20 s.
func (p *Prometheus) Await(t testing.TB, q string, want float64) {
	t.Helper()
	var v float64
	var ok bool
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if v, ok = p.Query(t, q); ok && v == want {
			return
		}
	}
	t.Fatalf("prometheus: %s is %v (answered: %v), want %v\n%s", q, v, ok, want, p.Log())
}
