// Package telemetry is folio's OpenTelemetry: the tracer and meter
// providers that the standard OTEL_* variables ask for (OTLP over HTTP or
// gRPC, off unless asked), the Prometheus exporter behind the admin
// listener's /metrics, and the spans and metrics of MCP requests and
// sessions as OpenTelemetry's MCP semantic conventions have them, trace
// context carried in params._meta. What go-sdk does not tell of a request
// is read off the wire: its id in an HTTP body (RequestID), and on the
// connections folio makes to other servers (ClientTransport, or
// ClientHTTP in the HTTP exchanges of a streamable HTTP one).
package telemetry
