//! `--debug` (or `$HELM_DEBUG=true`): the request trail on standard error. Every HTTP request
//! kubepkg makes — to the API server (kube's client opens a `HTTP` tracing span per request),
//! to registries (`kubepkg_oci`) and to chart repositories and schema hosts (`kubepkg_fetch`),
//! which open spans of the same name and fields — prints one line when its answer's status is
//! known, or when it ends without one:
//!
//! ```text
//! debug: GET https://127.0.0.1:6443/api/v1/namespaces/shop/secrets?labelSelector=owner%3Dhelm 200 (4 ms)
//! debug: GET https://charts.example.com/index.yaml: no answer (30012 ms)
//! ```
//!
//! Nothing is printed without `--debug`; the layer is installed by [`install`] only then (the
//! controller adds it to its own log subscriber: [`layer`]).

use std::fmt::Write as _;
use std::time::Instant;

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt as _};
use tracing_subscriber::registry::LookupSpan;

/// Installs the request trail as the process's tracing subscriber.
pub fn install() {
    let subscriber = tracing_subscriber::registry().with(RequestTrail);
    // Only fails if a subscriber is set already (then that one reports).
    let _ = tracing::subscriber::set_global_default(subscriber);
}

/// The request trail as a layer of another subscriber (the controller's, beside its log).
pub fn layer() -> RequestTrail {
    RequestTrail
}

/// One request in flight.
struct Request {
    method: String,
    url: String,
    started: Instant,
    printed: bool,
}

/// The fields of an `HTTP` span this layer reads.
#[derive(Default)]
struct Fields {
    method: Option<String>,
    url: Option<String>,
    status: Option<u64>,
}

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let mut text = String::new();
        let _ = write!(text, "{value:?}");
        self.record_str(field, &text);
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "http.method" => self.method = Some(value.trim_matches('"').to_string()),
            "http.url" => self.url = Some(value.trim_matches('"').to_string()),
            _ => {}
        }
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        if field.name() == "http.status_code" {
            self.status = Some(value);
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.record_u64(field, u64::try_from(value).unwrap_or_default());
    }
}

/// The layer that prints the trail.
pub struct RequestTrail;

impl<S> Layer<S> for RequestTrail
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if attrs.metadata().name() != "HTTP" {
            return;
        }
        let mut fields = Fields::default();
        attrs.record(&mut fields);
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(Request {
                method: fields.method.unwrap_or_default(),
                url: fields.url.unwrap_or_default(),
                started: Instant::now(),
                printed: false,
            });
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        let mut fields = Fields::default();
        values.record(&mut fields);
        let (Some(status), Some(span)) = (fields.status, ctx.span(id)) else {
            return;
        };
        let mut ext = span.extensions_mut();
        if let Some(request) = ext.get_mut::<Request>()
            && !request.printed
        {
            request.printed = true;
            eprintln!("{}", line(request, &status.to_string()));
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(&id)
            && let Some(request) = span.extensions().get::<Request>()
            && !request.printed
        {
            eprintln!("{}", line(request, "no answer"));
        }
    }
}

fn line(request: &Request, outcome: &str) -> String {
    let separator = if outcome.starts_with(|c: char| c.is_ascii_digit()) {
        " "
    } else {
        ": "
    };
    format!(
        "debug: {} {}{separator}{outcome} ({} ms)",
        request.method,
        request.url,
        request.started.elapsed().as_millis()
    )
}
