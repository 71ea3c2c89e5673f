// Package otelcoltest runs a real OpenTelemetry Collector for tests: the
// one testdata/otelcol builds from the collector's own Go modules (its
// OTLP receiver and the contrib file exporter), receiving OTLP over HTTP
// on loopback and writing what it receives as OTLP JSON, which the test
// reads back. It is built by testmain: a package that starts it calls
// testmain.Main from its TestMain.
package otelcoltest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/folio-mcp/folio/internal/mcptest"
	"github.com/folio-mcp/folio/internal/testmain"
)

// Collector is a running collector.
type Collector struct {
	// Endpoint is its OTLP/HTTP receiver, as OTEL_EXPORTER_OTLP_ENDPOINT
	// takes it.
	Endpoint string
	traces   string
	metrics  string
	log      string
}

// Prebuild starts building the collector in the background
// (testmain.Prebuild), for a TestMain whose tests start it.
func Prebuild() {
	testmain.Prebuild("otelcol", source(), buildEnv())
}

// buildEnv is the go command's environment for the collector's nested
// module: its own go.mod and go.sum, as they are.
func buildEnv() []string { return []string{"GOWORK=off", "GOFLAGS=-mod=readonly"} }

// source is the directory of the collector's module.
func source() string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..", "testdata", "otelcol")
}

// binary builds the collector once per test binary (testmain.Build). Its
// modules come from the module proxy the first time (about two minutes
// to build on two cores); then from the module and build caches.
func binary(t testing.TB) string {
	t.Helper()
	path, err := testmain.Build("otelcol", source(), buildEnv())
	if err != nil {
		if os.Getenv("FOLIO_REQUIRE_OTELCOL") == "" {
			t.Skipf("the collector could not be built (FOLIO_REQUIRE_OTELCOL makes this fail): %v", err)
		}
		t.Fatal(err)
	}
	return path
}

// Start runs a collector until the test ends.
func Start(t testing.TB) *Collector {
	t.Helper()
	bin := binary(t)
	dir := t.TempDir()
	addr := mcptest.FreeAddr(t)
	c := &Collector{Endpoint: "http://" + addr, traces: filepath.Join(dir, "traces.json"), metrics: filepath.Join(dir, "metrics.json"), log: filepath.Join(dir, "collector.log")}
	config := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      http:
        endpoint: %s
exporters:
  file/traces:
    path: %s
  file/metrics:
    path: %s
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [file/traces]
    metrics:
      receivers: [otlp]
      exporters: [file/metrics]
`, addr, c.traces, c.metrics)
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(c.log)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command(bin, "--config", path)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if conn, err := net.Dial("tcp", addr); err == nil {
			conn.Close()
			return c
		}
		select {
		case <-exited:
			t.Fatalf("the collector exited:\n%s", c.Log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the collector did not listen within 20 s:\n%s", c.Log())
		}
	}
}

// Log is what the collector has logged.
func (c *Collector) Log() string {
	b, _ := os.ReadFile(c.log)
	return string(b)
}

// Span is a span as the collector received it.
type Span struct {
	TraceID      string
	SpanID       string
	ParentSpanID string
	Name         string
	// Kind is OTLP's: 2 server, 3 client.
	Kind int
	// Attributes are its string, int and bool attributes, as text.
	Attributes map[string]string
	// Status is OTLP's status code: 0 unset, 1 ok, 2 error.
	Status int
	// Resource are its resource's attributes.
	Resource map[string]string
}

// attribute is an OTLP JSON key-value.
type attribute struct {
	Key   string `json:"key"`
	Value struct {
		String *string          `json:"stringValue"`
		Int    *json.RawMessage `json:"intValue"`
		Bool   *bool            `json:"boolValue"`
	} `json:"value"`
}

func attributes(list []attribute) map[string]string {
	out := map[string]string{}
	for _, a := range list {
		switch v := a.Value; {
		case v.String != nil:
			out[a.Key] = *v.String
		case v.Int != nil:
			var s string
			if json.Unmarshal(*v.Int, &s) != nil {
				s = string(*v.Int)
			}
			out[a.Key] = s
		case v.Bool != nil:
			out[a.Key] = fmt.Sprint(*v.Bool)
		}
	}
	return out
}

// Spans are the spans received so far.
func (c *Collector) Spans(t testing.TB) []Span {
	t.Helper()
	var out []Span
	for _, line := range lines(t, c.traces) {
		var data struct {
			ResourceSpans []struct {
				Resource struct {
					Attributes []attribute `json:"attributes"`
				} `json:"resource"`
				ScopeSpans []struct {
					Spans []struct {
						TraceID      string      `json:"traceId"`
						SpanID       string      `json:"spanId"`
						ParentSpanID string      `json:"parentSpanId"`
						Name         string      `json:"name"`
						Kind         int         `json:"kind"`
						Attributes   []attribute `json:"attributes"`
						Status       struct {
							Code int `json:"code"`
						} `json:"status"`
					} `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		if err := json.Unmarshal(line, &data); err != nil {
			t.Fatalf("the collector's traces: %v", err)
		}
		for _, rs := range data.ResourceSpans {
			res := attributes(rs.Resource.Attributes)
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					out = append(out, Span{TraceID: s.TraceID, SpanID: s.SpanID, ParentSpanID: s.ParentSpanID, Name: s.Name,
						Kind: s.Kind, Attributes: attributes(s.Attributes), Status: s.Status.Code, Resource: res})
				}
			}
		}
	}
	return out
}

// MetricNames are the names of the metrics received so far.
func (c *Collector) MetricNames(t testing.TB) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, line := range lines(t, c.metrics) {
		var data struct {
			ResourceMetrics []struct {
				ScopeMetrics []struct {
					Metrics []struct {
						Name string `json:"name"`
					} `json:"metrics"`
				} `json:"scopeMetrics"`
			} `json:"resourceMetrics"`
		}
		if err := json.Unmarshal(line, &data); err != nil {
			t.Fatalf("the collector's metrics: %v", err)
		}
		for _, rm := range data.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					out[m.Name] = true
				}
			}
		}
	}
	return out
}

// Point is a data point of a metric, as the collector received it.
type Point struct {
	// Metric is the metric's name, Unit its unit.
	Metric, Unit string
	// Attributes are the point's string, int and bool attributes, as
	// text; Resource its resource's.
	Attributes, Resource map[string]string
	// Count is a histogram point's count, and Bounds its explicit bucket
	// boundaries.
	Count  int
	Bounds []float64
}

// Points are the data points of the metric name received so far: those
// of a histogram (sum or gauge points too, without their values).
func (c *Collector) Points(t testing.TB, name string) []Point {
	t.Helper()
	type point struct {
		Attributes []attribute `json:"attributes"`
		Count      string      `json:"count"`
		Bounds     []float64   `json:"explicitBounds"`
	}
	type points struct {
		DataPoints []point `json:"dataPoints"`
	}
	var out []Point
	for _, line := range lines(t, c.metrics) {
		var data struct {
			ResourceMetrics []struct {
				Resource struct {
					Attributes []attribute `json:"attributes"`
				} `json:"resource"`
				ScopeMetrics []struct {
					Metrics []struct {
						Name      string  `json:"name"`
						Unit      string  `json:"unit"`
						Histogram *points `json:"histogram"`
						Sum       *points `json:"sum"`
						Gauge     *points `json:"gauge"`
					} `json:"metrics"`
				} `json:"scopeMetrics"`
			} `json:"resourceMetrics"`
		}
		if err := json.Unmarshal(line, &data); err != nil {
			t.Fatalf("the collector's metrics: %v", err)
		}
		for _, rm := range data.ResourceMetrics {
			res := attributes(rm.Resource.Attributes)
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					if m.Name != name {
						continue
					}
					for _, ps := range []*points{m.Histogram, m.Sum, m.Gauge} {
						if ps == nil {
							continue
						}
						for _, dp := range ps.DataPoints {
							n, _ := strconv.Atoi(dp.Count)
							out = append(out, Point{Metric: m.Name, Unit: m.Unit, Attributes: attributes(dp.Attributes), Resource: res, Count: n, Bounds: dp.Bounds})
						}
					}
				}
			}
		}
	}
	return out
}

// lines are the whole JSON lines of the file at path (none before it
// exists): a line the collector is still writing is left for later.
func lines(t testing.TB, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	b = b[:bytes.LastIndexByte(b, '\n')+1]
	var out [][]byte
	for line := range bytes.Lines(b) {
		if line = bytes.TrimSpace(line); len(line) > 0 {
			out = append(out, line)
		}
	}
	return out
}
