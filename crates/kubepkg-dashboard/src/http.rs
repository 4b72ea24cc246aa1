//! The HTTP side: accepting connections, routing a GET to its view, the embedded assets, and
//! the headers every response carries (Content-Security-Policy and the other browser
//! protections). Only GET and HEAD are answered: the dashboard changes nothing.

use std::convert::Infallible;

use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::header::{HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;

use crate::error::DashboardError;
use crate::html::{esc, page};
use crate::live::{Changes, Subject};
use crate::query::{Query, name};
use crate::views::history::Compared;
use crate::{Dashboard, Scope, live, views};

type Body = UnsyncBoxBody<Bytes, Infallible>;

const CSS: &str = include_str!("../assets/dashboard.css");
const JS: &str = include_str!("../assets/dashboard.js");

/// The policy: only this origin's script, style and event streams; no inline anything, no
/// frames, no forms posting elsewhere.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// Serves connections from `listener` until the process ends.
pub(crate) async fn accept(
    listener: tokio::net::TcpListener,
    dashboard: Dashboard,
    changes: Changes,
) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let dashboard = dashboard.clone();
        let changes = changes.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req: Request<hyper::body::Incoming>| {
                let dashboard = dashboard.clone();
                let changes = changes.clone();
                async move { Ok::<_, Infallible>(answer(req, dashboard, changes).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

async fn answer(
    req: Request<hyper::body::Incoming>,
    dashboard: Dashboard,
    changes: Changes,
) -> Response<Body> {
    let path = req.uri().path().to_string();
    if dashboard.authenticated && path == "/login" && req.method() == Method::POST {
        return login(&dashboard, req).await;
    }
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return text(
            StatusCode::METHOD_NOT_ALLOWED,
            "the dashboard is read-only: GET only\n",
        );
    }
    // Served to many users, every request carries its token (no rebinding page has it);
    // served on this machine, the host name must be the one the user opened.
    if !dashboard.authenticated && !host_allowed(&req) {
        return text(
            StatusCode::MISDIRECTED_REQUEST,
            "this dashboard answers requests for an IP address or localhost only (a page from another site cannot read it)\n",
        );
    }
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    match segments.as_slice() {
        ["static", "dashboard.css"] => return asset("text/css; charset=utf-8", CSS),
        ["static", "dashboard.js"] => return asset("text/javascript; charset=utf-8", JS),
        ["login"] if dashboard.authenticated => return login_page(StatusCode::OK, ""),
        ["logout"] if dashboard.authenticated => return logout(),
        _ => {}
    }
    let dashboard = if dashboard.authenticated {
        let user = match crate::auth::token_of(req.headers()) {
            Some(token) => crate::auth::authenticate(&dashboard.kube.client, &token).await,
            None => Ok(None),
        };
        match user {
            Ok(Some(user)) => dashboard.as_user(user),
            Ok(None) => return login_page(StatusCode::UNAUTHORIZED, ""),
            Err(e) => return error_page(&e),
        }
    } else {
        dashboard
    };
    let query = Query::parse(req.uri().query());
    let result = match segments.as_slice() {
        ["events"] => return events(dashboard, changes, Subject::List),
        ["events", ns, n] => match (name("namespace", ns), name("package", n)) {
            (Ok(ns), Ok(n)) => match dashboard.check(ns).await {
                Ok(()) => {
                    let subject = Subject::Package {
                        namespace: ns.to_string(),
                        name: n.to_string(),
                    };
                    return events(dashboard, changes, subject);
                }
                Err(e) => Err(e),
            },
            (Err(e), _) | (_, Err(e)) => Err(e),
        },
        [] => list(&dashboard, &query).await,
        ["packages", ns, n] => package(&dashboard, ns, n).await,
        ["packages", ns, n, "history"] => history(&dashboard, ns, n, &query).await,
        ["packages", ns, n, "values"] => values(&dashboard, ns, n, &query).await,
        ["packages", ns, n, "plan"] => plan(&dashboard, ns, n).await,
        _ => Err(DashboardError::NotFound { path: path.clone() }),
    };
    match result {
        Ok(html) => html_response(StatusCode::OK, html),
        Err(e) => error_page(&e),
    }
}

/// `POST /login`: the form's token, checked with a TokenReview, kept in an HttpOnly cookie.
async fn login(dashboard: &Dashboard, req: Request<hyper::body::Incoming>) -> Response<Body> {
    let body = match http_body_util::Limited::new(req.into_body(), 64 * 1024)
        .collect()
        .await
    {
        Ok(b) => b.to_bytes(),
        Err(_) => return login_page(StatusCode::PAYLOAD_TOO_LARGE, "The form is too large."),
    };
    let form = Query::parse(Some(&String::from_utf8_lossy(&body)));
    let Some(token) = form.get("token").map(str::trim).filter(|t| !t.is_empty()) else {
        return login_page(StatusCode::UNAUTHORIZED, "Give a token.");
    };
    match crate::auth::authenticate(&dashboard.kube.client, token).await {
        Ok(Some(_)) => {
            let mut r = text(StatusCode::SEE_OTHER, "signed in\n");
            r.headers_mut()
                .insert(hyper::header::LOCATION, HeaderValue::from_static("/"));
            let cookie = format!(
                "{}={token}; HttpOnly; SameSite=Strict; Path=/",
                crate::auth::COOKIE
            );
            if let Ok(v) = HeaderValue::from_str(&cookie) {
                r.headers_mut().insert(hyper::header::SET_COOKIE, v);
            }
            r
        }
        Ok(None) => login_page(
            StatusCode::UNAUTHORIZED,
            "The API server does not accept this token.",
        ),
        Err(e) => error_page(&e),
    }
}

fn logout() -> Response<Body> {
    let mut r = text(StatusCode::SEE_OTHER, "signed out\n");
    r.headers_mut()
        .insert(hyper::header::LOCATION, HeaderValue::from_static("/login"));
    r.headers_mut().insert(
        hyper::header::SET_COOKIE,
        HeaderValue::from_static("kubepkg-token=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0"),
    );
    r
}

/// The sign-in form (a token, sent by POST and kept in an HttpOnly cookie).
fn login_page(status: StatusCode, problem: &str) -> Response<Body> {
    let problem = if problem.is_empty() {
        String::new()
    } else {
        format!("<p class=\"error\" role=\"alert\">{}</p>", esc(problem))
    };
    let body = format!(
        "<h1>Sign in</h1>\n{problem}<p>This dashboard shows the packages of the namespaces your Kubernetes identity may read. Give a bearer token (for a ServiceAccount: <code>kubectl create token NAME -n NAMESPACE</code>).</p>\n\
<form method=\"post\" action=\"/login\"><label>Token <input type=\"password\" name=\"token\" autocomplete=\"off\" required></label> <button type=\"submit\">Sign in</button></form>"
    );
    standalone_page(status, "Sign in", ("Sign in", "/login"), &body)
}

/// A DNS-rebinding guard: a page of another site whose name was made to point at this address
/// would send its own host name; an IP literal or `localhost` is what the user opened.
fn host_allowed<B>(req: &Request<B>) -> bool {
    let Some(host) = req
        .headers()
        .get(hyper::header::HOST)
        .and_then(|h| h.to_str().ok())
    else {
        return true;
    };
    let name = if let Some(rest) = host.strip_prefix('[') {
        return rest
            .split(']')
            .next()
            .is_some_and(|ip| ip.parse::<std::net::Ipv6Addr>().is_ok());
    } else {
        host.rsplit_once(':').map_or(host, |(h, _)| h)
    };
    name == "localhost" || name.parse::<std::net::Ipv4Addr>().is_ok()
}

async fn list(d: &Dashboard, query: &Query) -> Result<String, DashboardError> {
    let all = d.packages().await?;
    let others = d.others(&all).await?;
    let scope = match &d.scope {
        Scope::Namespace(n) => format!("namespace {n}"),
        Scope::All if d.authenticated => "every namespace you may read".to_string(),
        Scope::All => "every namespace".to_string(),
    };
    Ok(views::list::render(&all, &others, query, &scope))
}

async fn package(d: &Dashboard, ns: &str, n: &str) -> Result<String, DashboardError> {
    let (ns, n) = (name("namespace", ns)?, name("package", n)?);
    let status = d.status(ns, n).await?;
    let events = d.events(ns, &status.revision).await;
    Ok(views::package::render(&status, &events))
}

async fn history(
    d: &Dashboard,
    ns: &str,
    n: &str,
    query: &Query,
) -> Result<String, DashboardError> {
    let (ns, n) = (name("namespace", ns)?, name("package", n)?);
    let h = d.history(ns, n).await?;
    let compared = match (query.revision("from")?, query.revision("to")?) {
        (Some(from), Some(to)) => Some(Compared {
            from,
            to,
            components: d.diff(ns, n, from, to).await?,
            values_from: d.values(ns, n, Some(from)).await?.1,
            values_to: d.values(ns, n, Some(to)).await?.1,
        }),
        (None, None) => None,
        _ => {
            return Err(DashboardError::BadRequest {
                what: "from/to",
                value: String::new(),
                expected: "give both revisions to compare (from and to)",
            });
        }
    };
    Ok(views::history::render(&h, compared.as_ref()))
}

async fn values(d: &Dashboard, ns: &str, n: &str, query: &Query) -> Result<String, DashboardError> {
    let (ns, n) = (name("namespace", ns)?, name("package", n)?);
    let h = d.history(ns, n).await?;
    let (rev, comps) = d.values(ns, n, query.revision("revision")?).await?;
    Ok(views::values::render(&rev, &h, &comps))
}

async fn plan(d: &Dashboard, ns: &str, n: &str) -> Result<String, DashboardError> {
    let (ns, n) = (name("namespace", ns)?, name("package", n)?);
    Ok(views::plan::render(&d.plan(ns, n).await?))
}

fn events(d: Dashboard, changes: Changes, subject: Subject) -> Response<Body> {
    let mut r = respond(
        StatusCode::OK,
        "text/event-stream",
        live::stream(d, changes, subject),
    );
    r.headers_mut().insert(
        HeaderName::from_static("x-accel-buffering"),
        HeaderValue::from_static("no"),
    );
    r
}

fn error_page(e: &DashboardError) -> Response<Body> {
    let status = StatusCode::from_u16(e.status()).unwrap_or(StatusCode::BAD_GATEWAY);
    let body = format!(
        "<h1>{}</h1>\n<p class=\"error\">{}</p>\n<p><a href=\"/\">Back to the package list</a></p>",
        status.canonical_reason().unwrap_or("Error"),
        esc(&e.to_string())
    );
    standalone_page(status, "Error", ("Packages", "/"), &body)
}

/// A page of its own (no live updates) titled `title`, its one breadcrumb `(text, href)`, as
/// the response with `status`.
fn standalone_page(
    status: StatusCode,
    title: &str,
    (crumb, href): (&str, &str),
    body: &str,
) -> Response<Body> {
    let html = page(title, &[(crumb.to_string(), href.to_string())], body, None);
    html_response(status, html)
}

/// An HTML page as the response with `status`.
fn html_response(status: StatusCode, html: String) -> Response<Body> {
    respond(
        status,
        "text/html; charset=utf-8",
        Full::new(Bytes::from(html)).boxed_unsync(),
    )
}

fn asset(content_type: &'static str, body: &'static str) -> Response<Body> {
    respond(
        StatusCode::OK,
        content_type,
        Full::new(Bytes::from_static(body.as_bytes())).boxed_unsync(),
    )
}

fn text(status: StatusCode, body: &'static str) -> Response<Body> {
    respond(
        status,
        "text/plain; charset=utf-8",
        Full::new(Bytes::from_static(body.as_bytes())).boxed_unsync(),
    )
}

fn respond(status: StatusCode, content_type: &'static str, body: Body) -> Response<Body> {
    let mut r = Response::new(body);
    *r.status_mut() = status;
    let h = r.headers_mut();
    for (name, value) in [
        (hyper::header::CONTENT_TYPE, content_type),
        (hyper::header::CONTENT_SECURITY_POLICY, CSP),
        (hyper::header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (hyper::header::REFERRER_POLICY, "no-referrer"),
        (hyper::header::X_FRAME_OPTIONS, "DENY"),
        (hyper::header::CACHE_CONTROL, "no-store"),
    ] {
        h.insert(name, HeaderValue::from_static(value));
    }
    r
}
