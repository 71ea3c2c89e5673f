package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// Options shape folio's telemetry.
type Options struct {
	// Prometheus adds a reader of every metric that Telemetry.Metrics
	// serves in Prometheus's text format.
	Prometheus bool
	// Version is folio's, the resource's service.version.
	Version string
	// Getenv reads the OTEL_* variables (os.Getenv in folio).
	Getenv func(string) string
}

// Telemetry is what folio exports: traces and metrics over OTLP when the
// environment asks for them, metrics for Prometheus when the admin
// listener serves them. A signal that is off has no provider.
type Telemetry struct {
	// Tracer is nil when traces are off; Meter when metrics are.
	Tracer trace.TracerProvider
	Meter  metric.MeterProvider
	// Metrics serves the metrics in Prometheus's text format; nil
	// without Options.Prometheus.
	Metrics http.Handler

	shutdown []func(context.Context) error
}

// ErrConfig is the error of OTEL_* variables folio cannot follow.
var ErrConfig = errors.New("telemetry")

// New sets up what the environment and opt ask for. Traces go over OTLP
// when OTEL_TRACES_EXPORTER is "otlp", or an OTLP endpoint is set
// (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) and
// OTEL_TRACES_EXPORTER is not "none"; metrics likewise with METRICS.
// OTEL_SDK_DISABLED=true turns both off. The exporters read the rest of
// OTEL_EXPORTER_OTLP_* themselves (protocol http/protobuf, the default, or
// grpc; headers, timeouts, TLS), and the resource OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES. Unlike an SDK's defaults, nothing is exported
// unless asked for: folio runs on developers' machines.
func New(ctx context.Context, opt Options) (*Telemetry, error) {
	t := &Telemetry{}
	traces, err := wanted(opt.Getenv, "TRACES")
	if err != nil {
		return nil, err
	}
	metrics, err := wanted(opt.Getenv, "METRICS")
	if err != nil {
		return nil, err
	}
	if traces == "" && metrics == "" && !opt.Prometheus {
		return t, nil
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName("folio"), semconv.ServiceVersion(opt.Version)),
		resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil && res == nil {
		return nil, fmt.Errorf("%w: the resource: %v", ErrConfig, err)
	}
	if traces != "" {
		var exp sdktrace.SpanExporter
		if traces == "grpc" {
			exp, err = otlptracegrpc.New(ctx)
		} else {
			exp, err = otlptracehttp.New(ctx)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: the OTLP trace exporter: %v", ErrConfig, err)
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		t.Tracer = tp
		t.shutdown = append(t.shutdown, tp.Shutdown)
	}
	var readers []sdkmetric.Option
	if metrics != "" {
		var exp sdkmetric.Exporter
		if metrics == "grpc" {
			exp, err = otlpmetricgrpc.New(ctx)
		} else {
			exp, err = otlpmetrichttp.New(ctx)
		}
		if err != nil {
			t.Shutdown(ctx)
			return nil, fmt.Errorf("%w: the OTLP metric exporter: %v", ErrConfig, err)
		}
		readers = append(readers, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
	}
	if opt.Prometheus {
		reg := prometheus.NewRegistry()
		exp, err := otelprom.New(otelprom.WithRegisterer(reg))
		if err != nil {
			t.Shutdown(ctx)
			return nil, fmt.Errorf("%w: the Prometheus exporter: %v", ErrConfig, err)
		}
		readers = append(readers, sdkmetric.WithReader(exp))
		t.Metrics = promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	}
	if len(readers) > 0 {
		mp := sdkmetric.NewMeterProvider(append(readers, sdkmetric.WithResource(res))...)
		t.Meter = mp
		t.shutdown = append(t.shutdown, mp.Shutdown)
	}
	return t, nil
}

// wanted is how the signal (TRACES or METRICS) is to be exported: "" (not
// at all), "http/protobuf" or "grpc".
func wanted(getenv func(string) string, signal string) (string, error) {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return "", nil
	}
	switch exporter := strings.TrimSpace(getenv("OTEL_" + signal + "_EXPORTER")); exporter {
	case "none":
		return "", nil
	case "":
		if getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && getenv("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT") == "" {
			return "", nil
		}
	case "otlp":
	default:
		return "", fmt.Errorf("%w: OTEL_%s_EXPORTER=%s: folio exports otlp, or none", ErrConfig, signal, exporter)
	}
	protocol := getenv("OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL")
	if protocol == "" {
		protocol = getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	switch protocol {
	case "", "http/protobuf":
		return "http/protobuf", nil
	case "grpc":
		return "grpc", nil
	}
	return "", fmt.Errorf("%w: OTLP protocol %q: folio speaks http/protobuf or grpc", ErrConfig, protocol)
}

// Shutdown flushes what is buffered and ends the exporters.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	var errs []error
	for _, f := range t.shutdown {
		errs = append(errs, f(ctx))
	}
	t.shutdown = nil
	return errors.Join(errs...)
}
