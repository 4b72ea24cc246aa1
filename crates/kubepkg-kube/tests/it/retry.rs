//! The retry layer of every client ([`kubepkg_kube::retry`]) against a local HTTP server that
//! answers each request as a script says: drop the connection, cut an answer short, stall, or
//! answer 429/500/503 before the real answer. The server counts what it was asked, so each
//! test checks both the client's result and how many tries it made.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, PostParams};
use kubepkg_kube::retry::{self, RetryPolicy};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the server does with one request.
#[derive(Debug, Clone)]
enum Step {
    /// Closes the connection without answering.
    Drop,
    /// Sends the head and half the body, then closes.
    Cut,
    /// Answers nothing for this long, then closes.
    Stall(Duration),
    /// Answers `code` with these headers and body.
    Answer(u16, Vec<(&'static str, String)>, String),
}

fn ok_configmap(name: &str) -> Step {
    Step::Answer(
        200,
        vec![],
        serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": "ns", "resourceVersion": "7"},
            "data": {"k": "v"}})
        .to_string(),
    )
}

fn status(code: u16, reason: &str, message: &str) -> Step {
    Step::Answer(
        code,
        vec![],
        serde_json::json!({"apiVersion": "v1", "kind": "Status", "status": "Failure",
            "code": code, "reason": reason, "message": message})
        .to_string(),
    )
}

/// A scripted server on a loopback port; `asked` records each request's method and path.
struct Server {
    url: String,
    asked: Arc<Mutex<Vec<String>>>,
}

async fn server(script: Vec<Step>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let script = Arc::new(Mutex::new(VecDeque::from(script)));
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    tokio::spawn(async move {
        loop {
            let Ok((conn, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(serve(conn, script.clone(), seen.clone()));
        }
    });
    Server { url, asked }
}

async fn serve(
    mut conn: TcpStream,
    script: Arc<Mutex<VecDeque<Step>>>,
    asked: Arc<Mutex<Vec<String>>>,
) {
    let mut buf = Vec::new();
    loop {
        // One request: the head, then Content-Length bytes of body.
        let head_end = loop {
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            let mut chunk = [0u8; 4096];
            match conn.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
        let length: usize = head
            .lines()
            .find_map(|l| {
                let (k, v) = l.split_once(':')?;
                k.eq_ignore_ascii_case("content-length")
                    .then(|| v.trim().parse().ok())?
            })
            .unwrap_or(0);
        while buf.len() < head_end + length {
            let mut chunk = [0u8; 4096];
            match conn.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
        buf.drain(..head_end + length);
        let line = head.lines().next().unwrap_or_default();
        let mut words = line.split(' ');
        let (method, path) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
        asked.lock().unwrap().push(format!("{method} {path}"));
        let step = script
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or_else(|| status(418, "Script", "the script ran out"));
        match step {
            Step::Drop => return,
            Step::Stall(d) => {
                tokio::time::sleep(d).await;
                return;
            }
            Step::Cut => {
                let body = ok_body();
                let text = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{}",
                    body.len(),
                    &body[..body.len() / 2]
                );
                let _ = conn.write_all(text.as_bytes()).await;
                return;
            }
            Step::Answer(code, headers, body) => {
                let mut text = format!(
                    "HTTP/1.1 {code} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
                    body.len()
                );
                for (k, v) in headers {
                    text.push_str(&format!("{k}: {v}\r\n"));
                }
                text.push_str("\r\n");
                text.push_str(&body);
                if conn.write_all(text.as_bytes()).await.is_err() {
                    return;
                }
            }
        }
    }
}

fn ok_body() -> String {
    match ok_configmap("cm") {
        Step::Answer(_, _, b) => b,
        _ => unreachable!(),
    }
}

/// Fast backoff so the tests do not wait (the delays themselves are unit-tested).
fn quick(attempts: u32) -> RetryPolicy {
    RetryPolicy {
        attempts,
        first_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(5),
        attempt_timeout: Duration::from_millis(500),
    }
}

fn configmaps(s: &Server, policy: RetryPolicy) -> Api<ConfigMap> {
    let mut config = kube::Config::new(s.url.parse().unwrap());
    config.default_namespace = "ns".into();
    let client = retry::client(config, policy).unwrap();
    Api::namespaced(client, "ns")
}

fn tries(s: &Server) -> usize {
    s.asked.lock().unwrap().len()
}

#[tokio::test]
async fn passing_failures_are_tried_again_until_the_answer() {
    let s = server(vec![
        Step::Drop,
        Step::Cut,
        status(429, "TooManyRequests", "slow down"),
        Step::Answer(503, vec![("retry-after", "0".into())], "unavailable".into()),
        status(500, "InternalError", "etcdserver: request timed out"),
        status(500, "InternalError", "etcdserver: leader changed"),
        status(504, "Timeout", "gateway timeout"),
        Step::Stall(Duration::from_secs(2)),
        ok_configmap("cm"),
    ])
    .await;
    let cm = configmaps(&s, quick(10)).get("cm").await.unwrap();
    assert_eq!(cm.data.unwrap()["k"], "v");
    assert_eq!(tries(&s), 9, "{:?}", s.asked.lock().unwrap());
}

#[tokio::test]
async fn answers_that_stand_are_not_tried_again() {
    for (step, code) in [
        (status(404, "NotFound", "configmaps \"cm\" not found"), 404),
        (status(409, "Conflict", "the object has been modified"), 409),
        (status(403, "Forbidden", "no"), 403),
        (
            status(500, "InternalError", "failed calling webhook \"w\": boom"),
            500,
        ),
    ] {
        let s = server(vec![step, ok_configmap("cm")]).await;
        let e = configmaps(&s, quick(10)).get("cm").await.unwrap_err();
        match e {
            kube::Error::Api(st) => assert_eq!(st.code, code),
            other => panic!("{code}: {other:?}"),
        }
        assert_eq!(tries(&s), 1, "{code}");
    }
}

#[tokio::test]
async fn when_the_tries_run_out_the_last_failure_is_returned() {
    let s = server(vec![status(503, "ServiceUnavailable", "down"); 5]).await;
    let e = configmaps(&s, quick(3)).get("cm").await.unwrap_err();
    assert!(
        matches!(&e, kube::Error::Api(st) if st.code == 503),
        "{e:?}"
    );
    assert_eq!(tries(&s), 3);

    let s = server(vec![Step::Drop; 5]).await;
    let e = configmaps(&s, quick(4)).get("cm").await.unwrap_err();
    let failure = kubepkg_kube::ApiFailure::from(e);
    assert!(
        matches!(failure, kubepkg_kube::ApiFailure::Transport(_)),
        "{failure:?}"
    );
    assert_eq!(tries(&s), 4);
}

#[tokio::test]
async fn a_create_whose_answer_was_lost_is_sent_again() {
    let s = server(vec![Step::Drop, status(409, "AlreadyExists", "exists")]).await;
    let cm: ConfigMap = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "cm"}, "data": {"k": "v"}}))
    .unwrap();
    let e = configmaps(&s, quick(5))
        .create(&PostParams::default(), &cm)
        .await
        .unwrap_err();
    // The create's answer was lost; its retry meets the object: the caller decides.
    assert!(
        matches!(&e, kube::Error::Api(st) if st.reason == "AlreadyExists"),
        "{e:?}"
    );
    assert_eq!(
        *s.asked.lock().unwrap(),
        [
            "POST /api/v1/namespaces/ns/configmaps?",
            "POST /api/v1/namespaces/ns/configmaps?"
        ]
    );
}

#[tokio::test]
async fn one_try_only_when_retries_are_off() {
    let s = server(vec![Step::Drop, ok_configmap("cm")]).await;
    assert!(configmaps(&s, RetryPolicy::none()).get("cm").await.is_err());
    assert_eq!(tries(&s), 1);
}
