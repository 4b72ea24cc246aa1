//! A real browser for tests of web pages: Debian's headless Chromium driven through
//! `chromedriver` with a few W3C WebDriver calls (new session, navigate, execute script,
//! screenshot), and a plain HTTP GET for reading a response as the server sent it.
//!
//! Raw WebDriver rather than a client crate (fantoccini): the tests need six commands, and
//! hyper's client, already built for the workspace, speaks them in a page of code.
//!
//! [`Browser::start`] starts `chromedriver` on a free loopback port and opens one session; both
//! end when the `Browser` is dropped. Chromium and chromedriver are Debian's `chromium` and
//! `chromium-driver` (scripts/lib/needs.sh installs them); a machine without them fails the
//! test with that instruction, never skips it.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

use crate::error::Error;

/// A headless Chromium with one WebDriver session.
pub struct Browser {
    driver: Child,
    base: String,
    session: String,
}

/// The answer to a request: status, `Content-Type`, `Content-Security-Policy`, headers, body.
#[derive(Debug, Clone)]
pub struct Fetched {
    pub status: u16,
    pub content_type: String,
    pub csp: String,
    /// Every header, in order.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

fn failed(what: impl Into<String>, output: impl Into<String>) -> Error {
    Error::Tool {
        command: what.into(),
        output: output.into(),
    }
}

/// A free loopback port (bound, then released for the child to bind).
fn free_port() -> Result<u16, Error> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|source| Error::Io {
        what: "binding a free loopback port",
        path: "127.0.0.1:0".into(),
        source,
    })?;
    Ok(l.local_addr().map(|a| a.port()).unwrap_or_default())
}

/// Sends one HTTP/1.1 request on a new connection (`body` as JSON when given).
async fn send(
    method: &str,
    url: &str,
    accept: &str,
    body: Option<&Value>,
) -> Result<hyper::Response<hyper::body::Incoming>, Error> {
    let payload = body.map(|b| b.to_string()).unwrap_or_default();
    let headers = [("accept", accept), ("content-type", "application/json")];
    send_with(method, url, &headers, payload).await
}

/// Sends one HTTP/1.1 request with `headers` and `payload` on a new connection.
async fn send_with(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    payload: String,
) -> Result<hyper::Response<hyper::body::Incoming>, Error> {
    let what = || format!("{method} {url}");
    let uri: hyper::Uri = url.parse().map_err(|e| failed(what(), format!("{e}")))?;
    let authority = uri.authority().map(|a| a.to_string()).unwrap_or_default();
    let stream = tokio::net::TcpStream::connect(&authority)
        .await
        .map_err(|e| failed(what(), format!("connect: {e}")))?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| failed(what(), format!("{e}")))?;
    tokio::spawn(conn);
    let mut req = hyper::Request::builder()
        .method(method)
        .uri(uri.path_and_query().map_or("/", |p| p.as_str()))
        .header("host", &authority);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let req = req
        .body(Full::new(Bytes::from(payload)))
        .map_err(|e| failed(what(), format!("{e}")))?;
    sender
        .send_request(req)
        .await
        .map_err(|e| failed(what(), format!("{e}")))
}

/// The whole body of `resp`.
async fn body_of(url: &str, resp: hyper::Response<hyper::body::Incoming>) -> Result<Bytes, Error> {
    Ok(resp
        .into_body()
        .collect()
        .await
        .map_err(|e| failed(format!("GET {url}"), format!("reading the body: {e}")))?
        .to_bytes())
}

/// One request; the status and body.
async fn request(method: &str, url: &str, body: Option<&Value>) -> Result<(u16, Bytes), Error> {
    let resp = send(method, url, "application/json", body).await?;
    let status = resp.status().as_u16();
    Ok((status, body_of(url, resp).await?))
}

/// GETs `url` as a plain client (no browser) and keeps what a test checks of the answer.
pub async fn get(url: &str) -> Result<Fetched, Error> {
    fetch("GET", url, &[("accept", "text/html")], String::new()).await
}

/// Sends `method` to `url` with `headers` and `body` as a plain client; the answer (a
/// redirect is not followed: `Location` and `Set-Cookie` are in [`Fetched::headers`]).
pub async fn fetch(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: String,
) -> Result<Fetched, Error> {
    let resp = send_with(method, url, headers, body).await?;
    let all: Vec<(String, String)> = resp
        .headers()
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or_default().to_string()))
        .collect();
    let header = |name: &str| {
        resp.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    };
    let (status, content_type, csp) = (
        resp.status().as_u16(),
        header("content-type"),
        header("content-security-policy"),
    );
    let body = body_of(url, resp).await?;
    Ok(Fetched {
        status,
        content_type,
        csp,
        headers: all,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

/// Reads the event stream at `url` in the background into a shared text, until dropped.
pub struct EventStream {
    text: std::sync::Arc<std::sync::Mutex<String>>,
    task: tokio::task::JoinHandle<()>,
}

impl EventStream {
    /// Opens the stream (a GET whose body never ends).
    pub async fn open(url: &str) -> Result<EventStream, Error> {
        let resp = send("GET", url, "text/event-stream", None).await?;
        let text = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let sink = text.clone();
        let task = tokio::spawn(async move {
            let mut body = resp.into_body();
            while let Some(Ok(frame)) = body.frame().await {
                if let Some(data) = frame.data_ref()
                    && let Ok(mut t) = sink.lock()
                {
                    t.push_str(&String::from_utf8_lossy(data));
                }
            }
        });
        Ok(EventStream { text, task })
    }

    /// What arrived so far.
    pub fn text(&self) -> String {
        self.text.lock().map(|t| t.clone()).unwrap_or_default()
    }
}

impl Drop for EventStream {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Browser {
    /// Starts chromedriver and a headless Chromium session (window 1280×900).
    pub async fn start() -> Result<Browser, Error> {
        let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
            .into_iter()
            .find(|p| Path::new(p).exists())
            .ok_or_else(|| {
                failed(
                    "chromium",
                    "no Chromium: install Debian's chromium and chromium-driver (apt-get install -y chromium chromium-driver; scripts/lib/needs.sh lists them)",
                )
            })?;
        let port = free_port()?;
        let driver = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| {
                failed(
                    "chromedriver",
                    format!(
                        "{e}: install Debian's chromium-driver (apt-get install -y chromium-driver)"
                    ),
                )
            })?;
        let base = format!("http://127.0.0.1:{port}");
        let mut browser = Browser {
            driver,
            base,
            session: String::new(),
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok((200, _)) = request("GET", &format!("{}/status", browser.base), None).await {
                break;
            }
            if Instant::now() > deadline {
                return Err(failed("chromedriver", "did not answer /status within 30 s"));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--window-size=1280,900",
                         "--force-device-scale-factor=1"]
            }
        }}});
        let v = browser.call("POST", "/session", Some(&caps)).await?;
        browser.session = v["sessionId"].as_str().unwrap_or_default().to_string();
        Ok(browser)
    }

    /// One WebDriver command; its `value`, or the driver's error as an [`Error`].
    async fn call(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Value, Error> {
        let url = format!("{}{path}", self.base);
        let (status, bytes) = request(method, &url, body).await?;
        let v: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        if status != 200 {
            return Err(failed(
                format!("WebDriver {method} {path}"),
                format!(
                    "{status}: {}",
                    v["value"]["message"].as_str().unwrap_or_default()
                ),
            ));
        }
        Ok(v["value"].clone())
    }

    fn session_path(&self, rest: &str) -> String {
        format!("/session/{}{rest}", self.session)
    }

    /// Navigates to `url` and waits for the page to load.
    pub async fn goto(&self, url: &str) -> Result<(), Error> {
        self.call(
            "POST",
            &self.session_path("/url"),
            Some(&json!({"url": url})),
        )
        .await
        .map(|_| ())
    }

    /// Runs `script` (a function body; `arguments` are `args`) in the page; its return value.
    pub async fn execute(&self, script: &str, args: Value) -> Result<Value, Error> {
        self.run_script("/execute/sync", script, args).await
    }

    /// Runs `script` asynchronously: it ends by calling its last argument with the result.
    pub async fn execute_async(&self, script: &str, args: Value) -> Result<Value, Error> {
        self.run_script("/execute/async", script, args).await
    }

    /// `script` with `args` sent to the WebDriver command `endpoint` (`/execute/sync` or
    /// `/execute/async`): its result.
    async fn run_script(&self, endpoint: &str, script: &str, args: Value) -> Result<Value, Error> {
        self.call(
            "POST",
            &self.session_path(endpoint),
            Some(&json!({"script": script, "args": args})),
        )
        .await
    }

    /// The page's visible text.
    pub async fn text(&self) -> Result<String, Error> {
        let v = self
            .execute("return document.body.innerText;", json!([]))
            .await?;
        Ok(v.as_str().unwrap_or_default().to_string())
    }

    /// The visible text of the first element matching `css` (empty when none).
    pub async fn text_of(&self, css: &str) -> Result<String, Error> {
        let v = self
            .execute(
                "var e = document.querySelector(arguments[0]); return e ? e.innerText : '';",
                json!([css]),
            )
            .await?;
        Ok(v.as_str().unwrap_or_default().to_string())
    }

    /// Waits (up to `timeout`) until `predicate(page text)` holds, reading the page as it is
    /// (no reload); the last text read when it never does.
    pub async fn wait_for_text(
        &self,
        what: &str,
        css: &str,
        timeout: Duration,
        predicate: impl Fn(&str) -> bool,
    ) -> Result<String, Error> {
        let deadline = Instant::now() + timeout;
        loop {
            let text = self.text_of(css).await?;
            if predicate(&text) {
                return Ok(text);
            }
            if Instant::now() > deadline {
                return Err(failed(
                    format!("waiting for {what}"),
                    format!("never seen in {css}; it reads:\n{text}"),
                ));
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Presses Tab `n` times on the focused element; the focused element's text and tag after.
    pub async fn tab(&self, n: usize) -> Result<String, Error> {
        let mut keys = Vec::new();
        for _ in 0..n {
            keys.push(json!({"type": "keyDown", "value": "\u{E004}"}));
            keys.push(json!({"type": "keyUp", "value": "\u{E004}"}));
        }
        self.call(
            "POST",
            &self.session_path("/actions"),
            Some(&json!({"actions": [{"type": "key", "id": "keyboard", "actions": keys}]})),
        )
        .await?;
        let v = self
            .execute(
                "var e = document.activeElement; return e ? e.tagName + ' ' + e.innerText : '';",
                json!([]),
            )
            .await?;
        Ok(v.as_str().unwrap_or_default().to_string())
    }

    /// Presses Enter on the focused element.
    pub async fn enter(&self) -> Result<(), Error> {
        let keys = [
            json!({"type": "keyDown", "value": "\u{E007}"}),
            json!({"type": "keyUp", "value": "\u{E007}"}),
        ];
        self.call(
            "POST",
            &self.session_path("/actions"),
            Some(&json!({"actions": [{"type": "key", "id": "keyboard", "actions": keys}]})),
        )
        .await
        .map(|_| ())
    }

    /// The page's URL now.
    pub async fn url(&self) -> Result<String, Error> {
        let v = self.call("GET", &self.session_path("/url"), None).await?;
        Ok(v.as_str().unwrap_or_default().to_string())
    }

    /// Saves a PNG screenshot of the whole page (the window grown to the page's height) to
    /// `path`.
    pub async fn screenshot(&self, path: &Path) -> Result<(), Error> {
        let height = self
            .execute(
                "return Math.ceil(document.documentElement.scrollHeight);",
                json!([]),
            )
            .await?
            .as_u64()
            .unwrap_or(900)
            .clamp(600, 4000);
        self.call(
            "POST",
            &self.session_path("/window/rect"),
            Some(&json!({"width": 1280, "height": height + 140})),
        )
        .await?;
        let v = self
            .call("GET", &self.session_path("/screenshot"), None)
            .await?;
        let png = base64::engine::general_purpose::STANDARD
            .decode(v.as_str().unwrap_or_default())
            .map_err(|e| failed("decoding a screenshot", format!("{e}")))?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|source| Error::Io {
                what: "creating the screenshot directory",
                path: dir.to_path_buf(),
                source,
            })?;
        }
        std::fs::write(path, png).map_err(|source| Error::Io {
            what: "writing a screenshot",
            path: path.to_path_buf(),
            source,
        })?;
        self.call(
            "POST",
            &self.session_path("/window/rect"),
            Some(&json!({"width": 1280, "height": 900})),
        )
        .await
        .map(|_| ())
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Closes the session (and with it Chromium), then ends the driver.
        use std::io::{Read, Write};
        let address = self.base.trim_start_matches("http://").to_string();
        if let Ok(mut c) = std::net::TcpStream::connect(&address) {
            let _ = c.set_read_timeout(Some(Duration::from_secs(10)));
            let _ = write!(
                c,
                "DELETE /session/{} HTTP/1.1\r\nHost: {address}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                self.session
            );
            let _ = c.read_to_end(&mut Vec::new());
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
