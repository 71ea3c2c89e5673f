// Package telemetry is folio's OpenTelemetry: the tracer and meter
// providers that the standard OTEL_* variables ask for (OTLP over HTTP or
// gRPC, off unless asked), the Prometheus exporter behind the admin
// listener's /metrics, and the spans and metrics of MCP requests as
// OpenTelemetry's MCP semantic conventions have them, trace context
// carried in params._meta.
package telemetry
