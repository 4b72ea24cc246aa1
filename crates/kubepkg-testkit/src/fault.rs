//! A fault-injection proxy in front of the local API server, loopback only: a TCP proxy whose
//! kubeconfig ([`FaultProxy::kubeconfig`]) points clients at it, and which, at a configurable
//! rate, resets connections (RST), refuses new ones, delays requests, cuts answers short and
//! drops long-lived streams (watches).
//!
//! TLS passes through it untouched (the API server's certificate names 127.0.0.1, so clients
//! verify it as usual), so faults are injected at the TCP level: the proxy cannot see requests
//! and so cannot answer 429 or 503 itself. Those answers are tested against the retry layer
//! with a local HTTP server (`crates/kubepkg-kube/tests/it/retry.rs`).
//!
//! The rate is the chance that each of these meets a fault, drawn among the enabled kinds:
//! - a new connection (its first write, the TLS ClientHello): refused (RST before the
//!   handshake), delayed, or its answer reset; the handshake's second write draws nothing, so
//!   a try on a fresh connection meets one draw, as one on a kept-alive connection does;
//! - each later write of the client (about one request): reset before it reaches the server,
//!   delayed 20–300 ms, or its answer reset or cut short (FIN) when it comes;
//! - a connection's life: dropped after 0.1–3 s, whatever it carries (a watch stream, most
//!   often).
//!
//! [`FaultProxy::set_rate`] changes the rate while the proxy runs (0 lets everything through).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{ReadHalf, WriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use crate::error::Error;
use crate::plane::ControlPlane;

/// Which faults the proxy injects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Faults {
    /// Reset a connection (RST) as a request goes out or as its answer comes.
    pub reset: bool,
    /// Close a new connection at once, before the TLS handshake.
    pub refuse: bool,
    /// Hold a request back for 20–300 ms before passing it on.
    pub latency: bool,
    /// End an answer early (FIN after part of it), and drop connections after a while
    /// (watch streams).
    pub cut: bool,
}

impl Faults {
    /// Every kind of fault.
    pub const ALL: Faults = Faults {
        reset: true,
        refuse: true,
        latency: true,
        cut: true,
    };
}

/// What the proxy did so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FaultStats {
    pub connections: u64,
    pub writes: u64,
    pub resets: u64,
    pub refused: u64,
    pub delayed: u64,
    pub cuts: u64,
    /// Connections dropped after a while (streams cut mid-way).
    pub dropped: u64,
}

impl FaultStats {
    /// Faults injected in all.
    pub fn faults(&self) -> u64 {
        self.resets + self.refused + self.delayed + self.cuts + self.dropped
    }

    /// Faults that break a connection (all but delays).
    pub fn breaks(&self) -> u64 {
        self.resets + self.refused + self.cuts + self.dropped
    }
}

impl std::fmt::Display for FaultStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} connections, {} client writes: {} resets, {} refused, {} delayed, {} answers cut, {} connections dropped",
            self.connections,
            self.writes,
            self.resets,
            self.refused,
            self.delayed,
            self.cuts,
            self.dropped
        )
    }
}

#[derive(Default)]
struct Counters {
    connections: AtomicU64,
    writes: AtomicU64,
    resets: AtomicU64,
    refused: AtomicU64,
    delayed: AtomicU64,
    cuts: AtomicU64,
    dropped: AtomicU64,
}

struct Shared {
    upstream: String,
    faults: Faults,
    /// The rate in millionths.
    rate: AtomicU64,
    counters: Counters,
}

/// A running proxy; stops (and drops every connection) when dropped.
pub struct FaultProxy {
    shared: Arc<Shared>,
    kubeconfig: PathBuf,
    stop: watch::Sender<bool>,
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

/// What a client's write meets.
enum Fate {
    Pass,
    Reset,
    Delay(Duration),
    /// Its answer is reset (`true`) or cut short (`false`) when it comes.
    Answer(bool),
}

/// What the next chunk from the server meets (set by the client's write before it).
const ANSWER_PASS: u8 = 0;
const ANSWER_RESET: u8 = 1;
const ANSWER_CUT: u8 = 2;

impl FaultProxy {
    /// Starts a proxy to `plane`'s API server on a loopback port, injecting `faults` at `rate`
    /// (0.0–1.0), and writes a kubeconfig for it into `dir`.
    pub async fn start(
        plane: &ControlPlane,
        faults: Faults,
        rate: f64,
        dir: &Path,
    ) -> Result<FaultProxy, Error> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|source| Error::Io {
                what: "binding the fault proxy",
                path: PathBuf::from("127.0.0.1:0"),
                source,
            })?;
        let port = listener.local_addr().map(|a| a.port()).unwrap_or_default();
        let (kubeconfig, upstream) = plane.kubeconfig_via(port)?;
        let out = dir.join("fault-proxy.kubeconfig");
        // JSON is YAML: kubeconfig readers take it.
        let text = serde_json::to_string_pretty(&kubeconfig).map_err(|e| Error::Kubeconfig {
            path: plane.kubeconfig().to_path_buf(),
            message: e.to_string(),
        })?;
        std::fs::write(&out, text).map_err(|source| Error::Io {
            what: "writing the fault proxy's kubeconfig",
            path: out.clone(),
            source,
        })?;
        let shared = Arc::new(Shared {
            upstream,
            faults,
            rate: AtomicU64::new(0),
            counters: Counters::default(),
        });
        let (stop, stopped) = watch::channel(false);
        let proxy = FaultProxy {
            shared: shared.clone(),
            kubeconfig: out,
            stop,
        };
        proxy.set_rate(rate);
        tokio::spawn(accept(listener, shared, stopped));
        Ok(proxy)
    }

    /// A kubeconfig whose cluster is this proxy (the plane's admin credentials).
    pub fn kubeconfig(&self) -> &Path {
        &self.kubeconfig
    }

    /// Changes the fault rate (0.0–1.0) from now on.
    pub fn set_rate(&self, rate: f64) {
        let millionths = (rate.clamp(0.0, 1.0) * 1_000_000.0) as u64;
        self.shared.rate.store(millionths, Ordering::Relaxed);
    }

    /// What the proxy did so far.
    pub fn stats(&self) -> FaultStats {
        let c = &self.shared.counters;
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        FaultStats {
            connections: get(&c.connections),
            writes: get(&c.writes),
            resets: get(&c.resets),
            refused: get(&c.refused),
            delayed: get(&c.delayed),
            cuts: get(&c.cuts),
            dropped: get(&c.dropped),
        }
    }
}

impl Shared {
    fn hit(&self) -> bool {
        let rate = self.rate.load(Ordering::Relaxed);
        rate > 0 && fastrand::u64(0..1_000_000) < rate
    }

    /// What the client's next write meets (`opening`: the first of a connection).
    fn fate(&self, opening: bool) -> Fate {
        self.counters.writes.fetch_add(1, Ordering::Relaxed);
        if !self.hit() {
            return Fate::Pass;
        }
        let f = self.faults;
        let mut choices = Vec::new();
        if f.reset {
            choices.extend([0, 1]);
        }
        if opening && f.refuse {
            choices.push(0);
        }
        if f.latency {
            choices.push(2);
        }
        if f.cut {
            choices.push(3);
        }
        match choices.get(fastrand::usize(0..choices.len().max(1))) {
            Some(0) => Fate::Reset,
            Some(1) => Fate::Answer(true),
            Some(2) => {
                self.counters.delayed.fetch_add(1, Ordering::Relaxed);
                Fate::Delay(Duration::from_millis(fastrand::u64(20..=300)))
            }
            Some(_) => Fate::Answer(false),
            None => Fate::Pass,
        }
    }
}

async fn accept(listener: TcpListener, shared: Arc<Shared>, mut stopped: watch::Receiver<bool>) {
    loop {
        let conn = tokio::select! {
            c = listener.accept() => c,
            _ = stopped.changed() => return,
        };
        let Ok((client, _)) = conn else { continue };
        shared.counters.connections.fetch_add(1, Ordering::Relaxed);
        let shared = shared.clone();
        let mut stopped = stopped.clone();
        tokio::spawn(async move {
            tokio::select! {
                _ = connection(client, shared) => {}
                _ = stopped.changed() => {}
            }
        });
    }
}

/// Closes with RST instead of FIN (SO_LINGER 0; with a zero linger the close never blocks).
fn reset(stream: &TcpStream) {
    #[allow(deprecated)]
    let _ = stream.set_linger(Some(Duration::ZERO));
}

async fn connection(mut client: TcpStream, shared: Arc<Shared>) {
    let Ok(mut server) = TcpStream::connect(&shared.upstream).await else {
        reset(&client);
        return;
    };
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    // Some connections are dropped after a while, whatever they carry.
    let lifetime = (shared.faults.cut && shared.hit())
        .then(|| Duration::from_millis(fastrand::u64(100..=3_000)));
    let answer = AtomicU8::new(ANSWER_PASS);
    let end = {
        let (cr, cw) = client.split();
        let (sr, sw) = server.split();
        let life = async {
            match lifetime {
                Some(d) => tokio::time::sleep(d).await,
                None => std::future::pending().await,
            }
        };
        // Either direction ending ends both.
        tokio::select! {
            end = upstream(cr, sw, &shared, &answer) => end,
            end = downstream(sr, cw, &shared, &answer) => end,
            () = life => {
                shared.counters.dropped.fetch_add(1, Ordering::Relaxed);
                End::Closed
            }
        }
    };
    if end == End::Reset {
        shared.counters.resets.fetch_add(1, Ordering::Relaxed);
        // Both peers see RST when the sockets close.
        reset(&client);
        reset(&server);
    }
}

/// How a pump ended.
#[derive(Debug, PartialEq, Eq)]
enum End {
    Closed,
    Reset,
}

/// Client to server: each write draws its fate.
async fn upstream(
    mut from: ReadHalf<'_>,
    mut to: WriteHalf<'_>,
    shared: &Shared,
    answer: &AtomicU8,
) -> End {
    let mut buf = vec![0u8; 16 * 1024];
    for write in 0u64.. {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return End::Closed,
            Ok(n) => n,
        };
        let fate = match write {
            0 => shared.fate(true),
            1 => Fate::Pass,
            _ => shared.fate(false),
        };
        match fate {
            Fate::Pass => {}
            Fate::Delay(d) => tokio::time::sleep(d).await,
            Fate::Reset if write == 0 => {
                shared.counters.refused.fetch_add(1, Ordering::Relaxed);
                return End::Reset;
            }
            Fate::Reset => return End::Reset,
            Fate::Answer(reset) => {
                let a = if reset { ANSWER_RESET } else { ANSWER_CUT };
                answer.store(a, Ordering::Relaxed);
            }
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return End::Closed;
        }
    }
    End::Closed
}

/// Server to client: passed on, unless the request before said to reset or cut its answer.
async fn downstream(
    mut from: ReadHalf<'_>,
    mut to: WriteHalf<'_>,
    shared: &Shared,
    answer: &AtomicU8,
) -> End {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return End::Closed,
            Ok(n) => n,
        };
        match answer.swap(ANSWER_PASS, Ordering::Relaxed) {
            ANSWER_RESET => return End::Reset,
            ANSWER_CUT => {
                shared.counters.cuts.fetch_add(1, Ordering::Relaxed);
                let _ = to.write_all(&buf[..n / 2]).await;
                let _ = to.shutdown().await;
                return End::Closed;
            }
            _ => {}
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return End::Closed;
        }
    }
}
