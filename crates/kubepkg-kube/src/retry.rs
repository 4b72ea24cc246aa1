//! The one retry policy of every Kubernetes API call kubepkg makes: a tower layer inside the
//! client [`crate::Cluster`] builds ([`client`]), so no call site has a loop of its own.
//!
//! A request is tried again, after a bounded exponential backoff with jitter, when:
//! - no usable answer came: the connection was refused, reset or closed before or while the
//!   answer arrived, the answer was cut inside its head, or one try (answer body included) took longer than
//!   [`RetryPolicy::attempt_timeout`] (not for watches and log streams, whose answers do not end);
//! - the server said to come back: 429, 502, 503, 504 (waiting at least its `Retry-After`,
//!   up to [`RetryPolicy::max_delay`]);
//! - the server answered 500 for a passing reason: etcd timed out or changed leader, a
//!   `ServerTimeout`/`Timeout` status, a status that suggests a delay (`retryAfterSeconds`),
//!   or a 500 that is not a Kubernetes `Status` at all (a proxy's). Other 500s (a failing
//!   admission webhook, …) are answers and fail at once.
//!
//! Everything else is returned as it came: a TLS certificate error, 4xx answers, a 409
//! conflict (the caller re-reads). The last answer or error is returned when the tries run out.
//!
//! Retrying any method is safe for kubepkg's calls: server-side apply (PATCH) and GET are
//! idempotent, PUT carries a `resourceVersion` where it must not overwrite, DELETE answers 404
//! the second time; a POST whose answer was lost answers 409 `AlreadyExists` on its retry,
//! which the places that create objects treat as done when the object is the one they sent
//! (release records, Leases, CRDs).
//!
//! Above single requests, one more loop exists, [`Settle`]: the few cleanups that must not be
//! lost when even the retried requests fail (a pending release or revision made final, a Lease
//! freed) try their whole read-and-write again a few times.

use std::error::Error as StdError;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::BodyExt;
use kube::client::{Body, DynBody};
use tower::{BoxError, Service, ServiceExt};

use crate::KubeError;

/// The rounds of a cleanup that must not be lost: up to [`Settle::ROUNDS`] tries, paused
/// 250 ms × the round number between them. Written as a loop whose body is one try (and
/// `continue`s, `break`s or `return`s as it likes):
///
/// ```text
/// let mut rounds = Settle::default();
/// while rounds.next().await {
///     let Ok(state) = read().await else { continue };
///     if write(state).await.is_ok() { break }
/// }
/// ```
#[derive(Debug, Default)]
pub struct Settle {
    round: u32,
    unanswered: u32,
}

impl Settle {
    /// How many tries a cleanup gets.
    pub const ROUNDS: u32 = 5;

    /// Whether another try may run, after its pause (none before the first).
    pub async fn next(&mut self) -> bool {
        if self.round >= Self::ROUNDS {
            return false;
        }
        if self.round > 0 {
            tokio::time::sleep(Duration::from_millis(250 * u64::from(self.round))).await;
        }
        self.round += 1;
        true
    }

    /// A round got no answer at all from the API server (connections refused or timing out,
    /// after the client's own retries): whether to give up now, leaving the cleanup to the next
    /// operation — on the second such round, so one unlucky round of a flaky network does not
    /// end it.
    pub fn unanswered(&mut self) -> bool {
        self.unanswered += 1;
        self.unanswered >= 2
    }
}

/// Environment variable: tries per API request, the first included (`1`: no retries).
pub const ATTEMPTS_ENV: &str = "KUBEPKG_API_ATTEMPTS";
/// Environment variable: the longest backoff between two tries, as a Go duration (`5s`).
pub const MAX_DELAY_ENV: &str = "KUBEPKG_API_RETRY_MAX_DELAY";

/// How API requests are retried (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Tries per request, the first included (1: no retries).
    pub attempts: u32,
    /// The backoff before the first retry; it doubles with each retry.
    pub first_delay: Duration,
    /// The cap of the backoff, and of a server's `Retry-After`.
    pub max_delay: Duration,
    /// How long one try of a request that is not a stream may take, its answer read in full.
    pub attempt_timeout: Duration,
}

impl Default for RetryPolicy {
    /// 10 tries, backoff 100 ms doubling up to 5 s (at most about 21 s of waiting in all),
    /// 30 s per try.
    fn default() -> Self {
        RetryPolicy {
            attempts: 10,
            first_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(5),
            attempt_timeout: Duration::from_secs(30),
        }
    }
}

/// A retry setting from the environment that does not parse.
#[derive(Debug, thiserror::Error)]
#[error("{variable}={value:?}: {reason}")]
pub struct BadRetrySetting {
    pub variable: &'static str,
    pub value: String,
    pub reason: String,
}

impl RetryPolicy {
    /// No retries: one try per request.
    pub fn none() -> Self {
        RetryPolicy {
            attempts: 1,
            ..Default::default()
        }
    }

    /// The default policy with [`ATTEMPTS_ENV`] and [`MAX_DELAY_ENV`] applied (`env`: a
    /// variable's value; empty counts as unset).
    pub fn from_env(env: impl Fn(&str) -> Option<String>) -> Result<Self, BadRetrySetting> {
        let mut policy = RetryPolicy::default();
        let set = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        if let Some(v) = set(ATTEMPTS_ENV) {
            policy.attempts = match v.trim().parse::<u32>() {
                Ok(n) if n >= 1 => n,
                _ => {
                    return Err(BadRetrySetting {
                        variable: ATTEMPTS_ENV,
                        value: v,
                        reason: "want a whole number of tries, at least 1".into(),
                    });
                }
            };
        }
        if let Some(v) = set(MAX_DELAY_ENV) {
            let d = parse_go_duration(v.trim()).ok_or_else(|| BadRetrySetting {
                variable: MAX_DELAY_ENV,
                value: v.clone(),
                reason: "want a duration such as 5s or 500ms".into(),
            })?;
            policy.max_delay = d;
            policy.first_delay = policy.first_delay.min(d);
        }
        Ok(policy)
    }

    /// The backoff before retry number `retry` (1 for the first): `first_delay · 2^(retry-1)`
    /// capped at `max_delay`, of which a random half is waited ("equal jitter": between half
    /// and all of it), and never less than the server's `Retry-After` (itself capped).
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        let exp = retry.saturating_sub(1).min(30);
        let full = self
            .first_delay
            .saturating_mul(1u32 << exp)
            .min(self.max_delay);
        let half = full / 2;
        let jitter = Duration::from_nanos(fastrand::u64(0..=half.as_nanos() as u64));
        let backoff = half + jitter;
        match retry_after {
            Some(after) => backoff.max(after.min(self.max_delay)),
            None => backoff,
        }
    }
}

/// `5s`, `500ms`, `1m`: the subset of Go's durations the setting needs.
fn parse_go_duration(s: &str) -> Option<Duration> {
    let (num, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit() && c != '.')?);
    let n: f64 = num.parse().ok()?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" => n * 60.0,
        _ => return None,
    };
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs))
}

/// A client for `config` whose every request goes through `policy` (kube's own retry of 429,
/// 503 and 504 is turned off: one policy). Call it inside a tokio runtime.
pub fn client(mut config: kube::Config, policy: RetryPolicy) -> Result<kube::Client, KubeError> {
    config.default_retry = false;
    let builder = kube::client::ClientBuilder::try_from(config)
        .map_err(|e| KubeError::Config(e.to_string()))?;
    Ok(builder.with_layer(&RetryLayer { policy }).build())
}

/// The layer that retries (see the module docs).
#[derive(Debug, Clone, Copy)]
pub struct RetryLayer {
    pub policy: RetryPolicy,
}

type Inner = tower::buffer::Buffer<
    Request<Body>,
    Pin<Box<dyn Future<Output = Result<Response<Box<DynBody>>, BoxError>> + Send>>,
>;

impl<S> tower::Layer<S> for RetryLayer
where
    S: Service<Request<Body>, Response = Response<Box<DynBody>>, Error = BoxError> + Send + 'static,
    S::Future: Send + 'static,
{
    type Service = Retrying<Inner>;
    fn layer(&self, inner: S) -> Retrying<Inner> {
        let boxed = inner.map_future(|f| Box::pin(f) as Pin<Box<dyn Future<Output = _> + Send>>);
        Retrying {
            inner: tower::buffer::Buffer::new(boxed, 1024),
            policy: self.policy,
        }
    }
}

/// The retrying service: tries a request on `inner` as [`RetryPolicy`] says.
#[derive(Clone)]
pub struct Retrying<S> {
    inner: S,
    policy: RetryPolicy,
}

impl<S> Service<Request<Body>> for Retrying<S>
where
    S: Service<Request<Body>, Response = Response<Box<DynBody>>, Error = BoxError>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    type Response = Response<Box<DynBody>>;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<Body>) -> Self::Future {
        // The ready clone goes with the request; a fresh clone stays for the next one.
        let fresh = self.inner.clone();
        let inner = std::mem::replace(&mut self.inner, fresh);
        let policy = self.policy;
        Box::pin(send(inner, policy, req))
    }
}

/// What kind of answer a request gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// An answer that ends: read in full within the try's timeout.
    Whole,
    /// A watch or a followed log: the answer streams; only its start is retried.
    Stream,
    /// A connection upgrade (exec, attach, port-forward): passed through untouched.
    Upgrade,
}

fn shape<B>(req: &Request<B>) -> Shape {
    if req.headers().contains_key(http::header::UPGRADE) {
        return Shape::Upgrade;
    }
    let streaming = req.uri().query().is_some_and(|q| {
        q.split('&')
            .any(|kv| matches!(kv, "watch=true" | "watch=1" | "follow=true" | "follow=1"))
    });
    if streaming {
        Shape::Stream
    } else {
        Shape::Whole
    }
}

async fn send<S>(
    mut inner: S,
    policy: RetryPolicy,
    req: Request<Body>,
) -> Result<Response<Box<DynBody>>, BoxError>
where
    S: Service<Request<Body>, Response = Response<Box<DynBody>>, Error = BoxError>,
{
    let shape = shape(&req);
    if shape == Shape::Upgrade {
        return inner.ready().await?.call(req).await;
    }
    let (parts, body) = req.into_parts();
    let body = body.collect_bytes().await.map_err(BoxError::from)?;
    let mut tries = 0;
    loop {
        tries += 1;
        let attempt = Request::from_parts(parts.clone(), Body::from(body.clone()));
        let outcome = try_once(&mut inner, attempt, shape, policy.attempt_timeout).await;
        let retry_after = match &outcome {
            Try::Streaming(_) => return outcome.finish(),
            Try::Answer(a) => match transient_answer(a.parts.status, &a.parts.headers, &a.body) {
                Some(after) => after,
                None => return outcome.finish(),
            },
            Try::Failed(e) if is_transient(e.as_ref()) => None,
            Try::Failed(_) => return outcome.finish(),
        };
        if tries >= policy.attempts {
            return outcome.finish();
        }
        tokio::time::sleep(policy.delay(tries, retry_after)).await;
    }
}

/// A buffered answer.
struct Answer {
    parts: http::response::Parts,
    body: Bytes,
}

/// How one try ended.
enum Try {
    Answer(Answer),
    Streaming(Response<Box<DynBody>>),
    Failed(BoxError),
}

impl Try {
    fn finish(self) -> Result<Response<Box<DynBody>>, BoxError> {
        match self {
            Try::Answer(a) => Ok(Response::from_parts(a.parts, whole(a.body))),
            Try::Streaming(r) => Ok(r),
            Try::Failed(e) => Err(e),
        }
    }
}

fn whole(body: Bytes) -> Box<DynBody> {
    Box::new(http_body_util::Full::new(body).map_err(|never| match never {}))
}

async fn try_once<S>(inner: &mut S, req: Request<Body>, shape: Shape, timeout: Duration) -> Try
where
    S: Service<Request<Body>, Response = Response<Box<DynBody>>, Error = BoxError>,
{
    let attempt = async {
        let svc = inner.ready().await?;
        let resp = svc.call(req).await?;
        if shape == Shape::Stream && resp.status().is_success() {
            return Ok(Try::Streaming(resp));
        }
        let (parts, body) = resp.into_parts();
        let body = body.collect().await?.to_bytes();
        Ok::<_, BoxError>(Try::Answer(Answer { parts, body }))
    };
    let result = if shape == Shape::Stream {
        attempt.await
    } else {
        match tokio::time::timeout(timeout, attempt).await {
            Ok(r) => r,
            Err(elapsed) => Err(BoxError::from(AttemptTimedOut(timeout, elapsed))),
        }
    };
    result.unwrap_or_else(Try::Failed)
}

/// One try took longer than [`RetryPolicy::attempt_timeout`].
#[derive(Debug, thiserror::Error)]
#[error("no answer within {}s", .0.as_secs())]
pub struct AttemptTimedOut(Duration, #[source] tokio::time::error::Elapsed);

/// Whether an answer is worth another try, and the server's `Retry-After` if it gave one:
/// `None` when the answer stands.
fn transient_answer(
    status: StatusCode,
    headers: &http::HeaderMap,
    body: &[u8],
) -> Option<Option<Duration>> {
    let retry_after = headers
        .get(http::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(Duration::from_secs);
    match status.as_u16() {
        429 | 502 | 503 | 504 => Some(retry_after),
        500 if passing_internal_error(body) => Some(retry_after),
        _ => None,
    }
}

/// A 500 that says "try again": see the module docs.
fn passing_internal_error(body: &[u8]) -> bool {
    let Ok(status) = serde_json::from_slice::<serde_json::Value>(body) else {
        return true;
    };
    if status.get("kind").and_then(|k| k.as_str()) != Some("Status") {
        return true;
    }
    let reason = status.get("reason").and_then(|r| r.as_str()).unwrap_or("");
    let message = status.get("message").and_then(|m| m.as_str()).unwrap_or("");
    let suggests_delay = status
        .pointer("/details/retryAfterSeconds")
        .and_then(|s| s.as_u64())
        .is_some_and(|s| s > 0);
    matches!(reason, "ServerTimeout" | "Timeout")
        || suggests_delay
        || ETCD_PASSING.iter().any(|m| message.contains(m))
}

/// etcd's answers that pass (the API server relays them in a 500's message).
const ETCD_PASSING: &[&str] = &[
    "etcdserver: request timed out",
    "etcdserver: leader changed",
    "etcdserver: no leader",
    "etcdserver: too many requests",
    "etcdserver: server stopped",
];

/// Whether a transport error is passing: the connection was refused, reset, closed or timed
/// out (anywhere in its chain of causes), as opposed to a TLS certificate or protocol error.
pub fn is_transient(e: &(dyn StdError + 'static)) -> bool {
    let mut cause: Option<&(dyn StdError + 'static)> = Some(e);
    while let Some(c) = cause {
        if c.is::<AttemptTimedOut>() {
            return true;
        }
        if let Some(io) = c.downcast_ref::<std::io::Error>() {
            use std::io::ErrorKind::*;
            if matches!(
                io.kind(),
                ConnectionReset
                    | ConnectionRefused
                    | ConnectionAborted
                    | BrokenPipe
                    | TimedOut
                    | UnexpectedEof
                    | NotConnected
                    | Interrupted
            ) {
                return true;
            }
            // A wrapping io::Error (the TLS connector's) hides the error it wraps from
            // `source()`: look inside.
            if let Some(inner) = io.get_ref()
                && is_transient(inner)
            {
                return true;
            }
        }
        // The connection failed the request after it was made: closed or reset mid-answer, an
        // answer cut inside its head (a parse error), a timeout. Only hyper's "user" errors (a
        // request kubepkg built wrong) stand; the rest, which hyper-util's client reports as
        // `client error (SendRequest)`, get another try like a reset (a GET of a release
        // record at a 30 % fault rate failed on such a parse error before).
        if let Some(h) = c.downcast_ref::<hyper::Error>()
            && !h.is_user()
        {
            return true;
        }
        cause = c.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_cleanup_gives_up_on_its_second_round_without_an_answer_else_after_five() {
        let mut rounds = Settle::default();
        assert!(rounds.next().await);
        assert!(
            !rounds.unanswered(),
            "one unanswered round is not an outage"
        );
        assert!(rounds.next().await);
        assert!(rounds.unanswered(), "the second one is");
        let mut rounds = Settle::default();
        let mut tries = 0;
        while rounds.next().await {
            tries += 1;
        }
        assert_eq!(tries, Settle::ROUNDS);
    }

    #[test]
    fn backoff_doubles_up_to_the_cap_with_jitter_and_honours_retry_after() {
        let p = RetryPolicy::default();
        for _ in 0..200 {
            let d1 = p.delay(1, None);
            assert!(
                (Duration::from_millis(50)..=Duration::from_millis(100)).contains(&d1),
                "{d1:?}"
            );
            let d4 = p.delay(4, None);
            assert!(
                (Duration::from_millis(400)..=Duration::from_millis(800)).contains(&d4),
                "{d4:?}"
            );
            let d9 = p.delay(9, None);
            assert!(
                (Duration::from_millis(2500)..=Duration::from_secs(5)).contains(&d9),
                "{d9:?}"
            );
            assert!(p.delay(u32::MAX, None) <= p.max_delay);
            assert!(p.delay(1, Some(Duration::from_secs(2))) >= Duration::from_secs(2));
            assert_eq!(
                p.delay(1, Some(Duration::from_secs(3600))),
                p.max_delay,
                "Retry-After is capped"
            );
        }
    }

    #[test]
    fn settings_come_from_the_environment() {
        let policy = |vars: &[(&str, &str)]| {
            RetryPolicy::from_env(|k| {
                vars.iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            })
        };
        assert_eq!(policy(&[]).unwrap(), RetryPolicy::default());
        let p = policy(&[(ATTEMPTS_ENV, "3"), (MAX_DELAY_ENV, "50ms")]).unwrap();
        assert_eq!(
            (p.attempts, p.max_delay, p.first_delay),
            (3, Duration::from_millis(50), Duration::from_millis(50))
        );
        let e = policy(&[(ATTEMPTS_ENV, "0")]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "KUBEPKG_API_ATTEMPTS=\"0\": want a whole number of tries, at least 1"
        );
        assert!(policy(&[(MAX_DELAY_ENV, "soon")]).is_err());
    }

    #[test]
    fn passing_answers_are_told_from_final_ones() {
        let h = http::HeaderMap::new();
        let status = |reason: &str, message: &str| {
            serde_json::json!({"kind": "Status", "status": "Failure", "reason": reason,
                "message": message, "code": 500})
            .to_string()
        };
        let s = |c: u16| StatusCode::from_u16(c).unwrap();
        for code in [429, 502, 503, 504] {
            assert_eq!(transient_answer(s(code), &h, b""), Some(None), "{code}");
        }
        for code in [200, 201, 400, 401, 403, 404, 409, 422] {
            assert_eq!(transient_answer(s(code), &h, b""), None, "{code}");
        }
        let etcd = status("", "etcdserver: request timed out");
        assert_eq!(transient_answer(s(500), &h, etcd.as_bytes()), Some(None));
        let leader = status("InternalError", "etcdserver: leader changed");
        assert_eq!(transient_answer(s(500), &h, leader.as_bytes()), Some(None));
        let timeout = status("ServerTimeout", "please try again");
        assert_eq!(transient_answer(s(500), &h, timeout.as_bytes()), Some(None));
        let webhook = status(
            "InternalError",
            "Internal error occurred: failed calling webhook \"x\"",
        );
        assert_eq!(transient_answer(s(500), &h, webhook.as_bytes()), None);
        assert_eq!(
            transient_answer(s(500), &h, b"<html>bad gateway</html>"),
            Some(None)
        );
        let mut with_after = http::HeaderMap::new();
        with_after.insert(http::header::RETRY_AFTER, "7".parse().unwrap());
        assert_eq!(
            transient_answer(s(429), &with_after, b""),
            Some(Some(Duration::from_secs(7)))
        );
    }

    #[test]
    fn resets_and_refusals_are_transient_certificate_errors_are_not() {
        let io = |k| std::io::Error::new(k, "x");
        assert!(is_transient(&io(std::io::ErrorKind::ConnectionReset)));
        assert!(is_transient(&io(std::io::ErrorKind::ConnectionRefused)));
        assert!(is_transient(&io(std::io::ErrorKind::UnexpectedEof)));
        // Wrapped, as hyper-util wraps its connector's error.
        #[derive(Debug, thiserror::Error)]
        #[error("client error (Connect)")]
        struct Wrapped(#[source] std::io::Error);
        assert!(is_transient(&Wrapped(io(std::io::ErrorKind::BrokenPipe))));
        // The TLS connector wraps the socket's error in an io::Error of kind Other.
        let tls = std::io::Error::other(io(std::io::ErrorKind::ConnectionReset));
        assert!(is_transient(&Wrapped(tls)));
        assert!(!is_transient(&Wrapped(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "invalid peer certificate: UnknownIssuer"
        ))));
    }

    #[test]
    fn watches_and_followed_logs_stream_upgrades_pass_through() {
        let r = |uri: &str| Request::builder().uri(uri).body(()).unwrap();
        assert_eq!(shape(&r("/api/v1/pods?watch=true&x=1")), Shape::Stream);
        assert_eq!(
            shape(&r("/api/v1/namespaces/a/pods/p/log?follow=true")),
            Shape::Stream
        );
        assert_eq!(
            shape(&r("/api/v1/pods?labelSelector=watch%3Dtrue")),
            Shape::Whole
        );
        assert_eq!(shape(&r("/api/v1/pods")), Shape::Whole);
        let mut up = r("/api/v1/namespaces/a/pods/p/exec");
        up.headers_mut()
            .insert(http::header::UPGRADE, "websocket".parse().unwrap());
        assert_eq!(shape(&up), Shape::Upgrade);
    }
}
